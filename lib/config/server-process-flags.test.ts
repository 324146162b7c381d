import assert from "node:assert/strict";
import { test } from "node:test";
import { serverProcessFlags } from "@/lib/config/server-process-flags";

test("the server's old generation and young semi-spaces are capped when NODE_OPTIONS sets neither", () => {
  assert.deepEqual(serverProcessFlags(""), ["--max-old-space-size=256", "--max-semi-space-size=4"]);
  assert.deepEqual(serverProcessFlags("--enable-source-maps"), ["--max-old-space-size=256", "--max-semi-space-size=4"]);
});

test("a size in NODE_OPTIONS wins over its own flag only, in either spelling", () => {
  assert.deepEqual(serverProcessFlags("--max-old-space-size=1024"), ["--max-semi-space-size=4"]);
  assert.deepEqual(serverProcessFlags("--enable-source-maps  --max_old_space_size=512"), ["--max-semi-space-size=4"]);
  assert.deepEqual(serverProcessFlags("--max-semi-space-size=16"), ["--max-old-space-size=256"]);
});
