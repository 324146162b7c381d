// What the driver reads back for a DateTime is the instant that was written, in any process time zone.
// own-process: sets the process time zone (TZ) for all its tests, which would reach the other unit files in a shared process
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { sqlDate, sqliteBoolean } from "@/lib/db/sql-values";

const originalZone = process.env.TZ;
before(() => {
  process.env.TZ = "America/Argentina/Buenos_Aires";
});
after(() => {
  if (originalZone === undefined) delete process.env.TZ;
  else process.env.TZ = originalZone;
});

test("sqlDate reads each form SQLite and PostgreSQL give as the same UTC instant", () => {
  const instant = "2026-11-29T12:00:00.000Z";
  assert.equal(sqlDate("2026-11-29T12:00:00.000+00:00")?.toISOString(), instant, "the model API's ISO text");
  assert.equal(sqlDate("2026-11-29 12:00:00")?.toISOString(), instant, "SQLite's CURRENT_TIMESTAMP text is UTC, not local");
  assert.equal(sqlDate("2026-11-29T12:00:00.000")?.toISOString(), instant, "ISO text without a designator is UTC");
  assert.equal(sqlDate(Date.parse(instant))?.toISOString(), instant, "epoch milliseconds");
  assert.equal(sqlDate(new Date(instant))?.toISOString(), instant, "a Date");
  assert.equal(sqlDate(null), null);
});

test("sqliteBoolean reads 0/1 and booleans", () => {
  assert.deepEqual([sqliteBoolean(0), sqliteBoolean(1), sqliteBoolean(1n), sqliteBoolean(true), sqliteBoolean(false)], [false, true, true, true, false]);
});
