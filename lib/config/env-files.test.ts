// own-process: sets an environment variable and changes the working directory, which would reach the other unit files in a shared process
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";

test("a command-line tool reads the settings written in .env of its folder; a variable set in the environment wins", async () => {
  const folder = mkdtempSync(path.join(tmpdir(), "acredita-env-files-"));
  writeFileSync(path.join(folder, ".env"), "ACREDITA_ENV_FILES_PROBE=from-dotenv\nACREDITA_ENV_FILES_SET=from-dotenv\n");
  process.env.ACREDITA_ENV_FILES_SET = "from-environment";
  const before = process.cwd();
  process.chdir(folder);
  try {
    await import("@/lib/config/env-files");
  } finally {
    process.chdir(before);
  }
  assert.deepEqual([process.env.ACREDITA_ENV_FILES_PROBE, process.env.ACREDITA_ENV_FILES_SET], ["from-dotenv", "from-environment"]);
});

test("every command-line tool that reads the settings loads the environment files before anything else", () => {
  for (const script of ["create-user", "dead-letters", "outbox", "reconcile", "retention", "worker", "receiver"]) {
    const imports = readFileSync(path.join("scripts", `${script}.ts`), "utf8").split("\n").filter((line) => line.startsWith("import "));
    const first = imports.filter((line) => line !== 'import "@/lib/log/cli-logs-to-stderr";')[0];
    assert.equal(first, 'import "@/lib/config/env-files";', script);
  }
});
