// slow-test: runs the migration engine (prisma migrate deploy, as npm start does) on four new databases
// The CLIs on a database `npm start` has not set up yet, as a new operator meets them: the
// administrative commands apply the migrations the way `npm start` does (same lock rules), the
// processes started beside a server say in one line to run `npm start` once; never a Prisma stack
// trace, never an empty database file left behind. SQLite files here (the lock rules are SQLite's).
// Each command's main runs in this process on its own database (SQLite's locks hold between the
// connections of one process as between processes).
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import Database from "better-sqlite3";
import { applySqliteMigrations } from "@/lib/db/apply-migrations";
import { committedMigrations } from "@/lib/db/pending-migrations";
import { onPostgres } from "@/e2e/support/test-database";
import { runMain } from "@/e2e/support/cli";
import type { CliMain } from "@/lib/background/cli-io";
import { main as createUserCli } from "@/scripts/create-user";
import { main as deadLettersCli } from "@/scripts/dead-letters";
import { main as outboxCli } from "@/scripts/outbox";
import { main as retentionCli } from "@/scripts/retention";
import { main as workerCli } from "@/scripts/worker";
import { main as receiverCli } from "@/scripts/receiver";
import { baseEnv } from "@/e2e/support/real-server";

const skip = onPostgres ? "SQLite files and their locks" : false;
const folder = mkdtempSync(path.join(tmpdir(), "acredita-cli-schema-"));
const ALL = committedMigrations(path.join("prisma", "migrations"));
const LAST = ALL.at(-1)!;

const COMMANDS: Record<string, CliMain> = { "create-user": createUserCli, "dead-letters": deadLettersCli, outbox: outboxCli, retention: retentionCli, worker: workerCli };

/** Runs the main of `npm run <name>` on the SQLite file `file`, in production mode. */
function cli(name: string, file: string, args: string[], env: Record<string, string> = {}) {
  const { ACREDITA_MODE: _mode, ...inherited } = process.env;
  return runMain(COMMANDS[name], args, { ...inherited, DATABASE_URL: `file:${file}`, ...env });
}

const createUser = (file: string, email: string) => cli("create-user", file, ["--email", email, "--name", "Ana", "--role", "admin"], { ACREDITA_NEW_PASSWORD: "saffron-glacier-tunnel-88" });

test("create-user before the first npm start: it applies the migrations as npm start does, then creates the first admin", { skip }, async () => {
  const file = path.join(folder, "first-admin.db");
  const first = await createUser(file, "ana@shop.test");
  assert.deepEqual(first, { code: 0, stdout: "created ana@shop.test (admin)\n", stderr: `create-user: Migrations applied (SQLite): ${ALL.join(", ")}.\n` });
  // Nothing pending the second time: not a word about migrations.
  assert.deepEqual(await createUser(file, "bea@shop.test"), { code: 0, stdout: "created bea@shop.test (admin)\n", stderr: "" });
});

test("dead-letters, outbox and retention on a new database migrate it and answer as on any empty one; a database in a folder that does not exist yet is made there, as npm start makes data/ on a fresh clone", { skip }, async () => {
  const migrated = `Migrations applied (SQLite): ${ALL.join(", ")}.\n`;
  const deadLetters = await cli("dead-letters", path.join(folder, "dead-letters.db"), ["list"]);
  assert.deepEqual(deadLetters, { code: 0, stdout: "0 open dead letters\n", stderr: `dead-letters: ${migrated}` });
  const outbox = await cli("outbox", path.join(folder, "outbox.db"), ["list", "--json"]);
  assert.deepEqual([outbox.code, JSON.parse(outbox.stdout), outbox.stderr], [0, { data: [], count: 0 }, `outbox: ${migrated}`]);
  // In a folder not made yet (every command makes it the same way, lib/db/cli-schema.ts): one migration run proves both.
  const inNewFolder = path.join(folder, "no-folder-yet", "retention.db");
  const retention = await cli("retention", inNewFolder, ["--json", "--dry-run"]);
  assert.deepEqual([retention.code, retention.stderr], [0, `retention: ${migrated}`]);
  assert.equal(existsSync(inNewFolder), true);
});

test("a migration pending while another process holds the file: one line naming it, exit 3, nothing applied; the worker says to run npm start once", { skip }, async () => {
  const file = path.join(folder, "held.db");
  // Migrated as a test database is (the CLIs' own migration run is the tests' above).
  applySqliteMigrations(file);
  // As after an upgrade: the last migration is not applied yet.
  const holder = new Database(file);
  holder.prepare("DELETE FROM _prisma_migrations WHERE migration_name = ?").run(LAST);
  try {
    const held = await cli("dead-letters", file, ["list"]);
    assert.deepEqual(held, {
      code: 3,
      stdout: "",
      stderr: `dead-letters: migration ${LAST} is pending and other processes hold the SQLite database ${file} (workers, receivers, or a server still running); stop them, run npm start (it migrates), then start them again (docs/operations.md, "Upgrade with a migration"). Nothing was applied.\n`,
    });
    const worker = await cli("worker", file, []);
    assert.deepEqual(worker, { code: 1, stdout: "", stderr: `Acredita worker cannot start: migration ${LAST} is pending on ${file}; run npm start once to apply it (docs/operations.md, "Upgrade with a migration")\n` });
    assert.deepEqual(holder.prepare("SELECT count(*) AS n FROM _prisma_migrations WHERE migration_name = ?").get(LAST), { n: 0 });
  } finally {
    holder.close();
  }
});

test("the worker on a database nobody set up: one line, exit 1, and no database file created", { skip }, async () => {
  const file = path.join(folder, "never-started.db");
  assert.deepEqual(await cli("worker", file, []), { code: 1, stdout: "", stderr: `Acredita worker cannot start: the database is not set up yet (no migrations applied to ${file}); run npm start once to apply them\n` });
  assert.equal(existsSync(file), false);
});

test("a wrong setting or an unmigrated database stops the receiver at start with exit 1 and a message naming the problem", { skip }, async () => {
  const run = (env: Record<string, string>) => runMain(receiverCli, [], { ...baseEnv(`file:${path.join(folder, "receiver-unused.db")}`), ...env });
  const badPort = await run({ RECEIVER_PORT: "70000" });
  assert.equal(badPort.code, 1);
  assert.equal(badPort.stderr.trim(), "Acredita receiver cannot start: RECEIVER_PORT: Too big: expected number to be <=65535");
  const missing = path.join(folder, "receiver-missing.db");
  const absent = await run({ DATABASE_URL: `file:${missing}`, RECEIVER_PORT: "1" });
  assert.equal(absent.code, 1);
  assert.equal(absent.stderr, `Acredita receiver cannot start: the database is not set up yet (no migrations applied to ${missing}); run npm start once to apply them\n`);
  assert.equal(existsSync(missing), false, "the missing database file was created");
  const unmigrated = path.join(folder, "receiver-unmigrated.db");
  writeFileSync(unmigrated, "");
  const empty = await run({ DATABASE_URL: `file:${unmigrated}`, RECEIVER_PORT: "1" });
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${unmigrated}${suffix}`, { force: true });
  assert.equal(empty.code, 1);
  assert.equal(empty.stderr, `Acredita receiver cannot start: the database is not set up yet (no migrations applied to ${unmigrated}); run npm start once to apply them\n`);
});
