import assert from "node:assert/strict";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { prepareCliSchema } from "@/lib/db/cli-schema";
import { applySqliteMigrations } from "@/lib/db/apply-migrations";

const folder = mkdtempSync(path.join(tmpdir(), "acredita-cli-schema-unit-"));

test("an engine that fails on a new file: one line with its last line, the exit status of npm start, and the empty file it left removed", async () => {
  const file = path.join(folder, "failed.db");
  // What a failing engine leaves: the file it opened, empty.
  const deploy = () => {
    writeFileSync(file, "");
    return { ok: false, output: "Prisma schema loaded from prisma/schema.prisma\nError: P1003 something went wrong\n" };
  };
  assert.deepEqual(await prepareCliSchema("create-user", `file:${file}`, { apply: true, deploy }), { ok: false, exitCode: 1, message: "create-user: migrations failed (Error: P1003 something went wrong)" });
  assert.equal(existsSync(file), false);
});

test("a database the test helper migrated counts as migrated: nothing to apply, the engine never runs", async () => {
  const file = path.join(folder, "helper.db");
  applySqliteMigrations(file);
  const deploy = () => assert.fail("the engine ran");
  assert.deepEqual(await prepareCliSchema("dead-letters", `file:${file}`, { apply: true, deploy }), { ok: true });
  assert.deepEqual(await prepareCliSchema("Acredita worker cannot start", `file:${file}`, { apply: false }), { ok: true });
});
