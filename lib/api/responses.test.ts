import assert from "node:assert/strict";
import { test } from "node:test";
import { withDatabaseErrors } from "@/lib/api/responses";

test("a database timeout or busy error becomes 503 database_unavailable; any other error propagates", async () => {
  for (const message of ["canceling statement due to statement timeout", "timeout exceeded when trying to connect", "SQLITE_BUSY: database is locked"]) {
    const response = await withDatabaseErrors(async () => {
      throw new Error(message);
    });
    assert.deepEqual([response.status, await response.json()], [503, { error: "database unavailable; retry later", code: "database_unavailable" }]);
  }
  await assert.rejects(
    withDatabaseErrors(async () => {
      throw new TypeError("a bug");
    }),
    /a bug/,
  );
  assert.equal((await withDatabaseErrors(async () => Response.json({ ok: true }, { status: 201 }))).status, 201);
});
