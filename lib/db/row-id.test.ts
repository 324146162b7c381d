import assert from "node:assert/strict";
import { test } from "node:test";
import { newRowId } from "@/lib/db/row-id";

test("row ids sort by time, and in creation order within one millisecond", () => {
  const at = new Date("2026-11-29T12:00:00.000Z");
  const sameMillisecond = Array.from({ length: 1_000 }, () => newRowId(at));
  assert.deepEqual([...sameMillisecond].sort(), sameMillisecond);
  assert.equal(new Set(sameMillisecond).size, 1_000);
  const later = newRowId(new Date("2026-11-29T12:00:00.001Z"));
  assert.ok(later > sameMillisecond.at(-1)!);
  assert.match(later, /^[0-9A-HJKMNP-TV-Z]{26}$/);
});
