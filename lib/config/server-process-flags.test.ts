import assert from "node:assert/strict";
import { test } from "node:test";
import { SERVER_PROCESS_FLAGS, serverProcessFlags } from "@/lib/config/server-process-flags";

test("the server's old generation is capped when NODE_OPTIONS sets no heap size", () => {
  assert.deepEqual(serverProcessFlags(""), ["--max-old-space-size=256"]);
  assert.deepEqual(serverProcessFlags("--enable-source-maps --max-semi-space-size=4"), [...SERVER_PROCESS_FLAGS]);
});

test("an old-generation size in NODE_OPTIONS wins, in either spelling", () => {
  assert.deepEqual(serverProcessFlags("--max-old-space-size=1024"), []);
  assert.deepEqual(serverProcessFlags("--enable-source-maps  --max_old_space_size=512"), []);
});
