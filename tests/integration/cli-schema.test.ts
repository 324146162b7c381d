// slow-test: runs each administrative CLI as its own process (tsx start-up, about 2 s each) on new databases
// The CLIs on a database `npm start` has not set up yet, as a new operator meets them: the
// administrative commands apply the migrations the way `npm start` does (same lock rules), the
// processes started beside a server say in one line to run `npm start` once; never a Prisma stack
// trace, never an empty database file left behind. SQLite files here (the lock rules are SQLite's).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import Database from "better-sqlite3";
import { committedMigrations } from "@/lib/db/pending-migrations";
import { onPostgres } from "@/e2e/support/test-database";

const skip = onPostgres ? "SQLite files and their locks" : false;
const folder = mkdtempSync(path.join(tmpdir(), "acredita-cli-schema-"));
const ALL = committedMigrations(path.join("prisma", "migrations"));
const LAST = ALL.at(-1)!;

/** Runs `scripts/<name>.ts` as `npm run <name>` does, on the SQLite file `file`, in production mode. */
function cli(name: string, file: string, args: string[], env: Record<string, string> = {}) {
  const { ACREDITA_MODE: _mode, ...inherited } = process.env;
  const result = spawnSync(process.execPath, ["--import", "tsx", `scripts/${name}.ts`, ...args], {
    env: { ...inherited, DATABASE_URL: `file:${file}`, LOG_LEVEL: "silent", ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const createUser = (file: string, email: string) => cli("create-user", file, ["--email", email, "--name", "Ana", "--role", "admin"], { ACREDITA_NEW_PASSWORD: "saffron-glacier-tunnel-88" });

test("create-user before the first npm start: it applies the migrations as npm start does, then creates the first admin", { skip }, () => {
  const file = path.join(folder, "first-admin.db");
  const first = createUser(file, "ana@shop.test");
  assert.deepEqual(first, { code: 0, stdout: "created ana@shop.test (admin)\n", stderr: `create-user: Migrations applied (SQLite): ${ALL.join(", ")}.\n` });
  // Nothing pending the second time: not a word about migrations.
  assert.deepEqual(createUser(file, "bea@shop.test"), { code: 0, stdout: "created bea@shop.test (admin)\n", stderr: "" });
});

test("dead-letters, outbox and retention on a new database migrate it and answer as on any empty one", { skip }, () => {
  const migrated = `Migrations applied (SQLite): ${ALL.join(", ")}.\n`;
  const deadLetters = cli("dead-letters", path.join(folder, "dead-letters.db"), ["list"]);
  assert.deepEqual(deadLetters, { code: 0, stdout: "0 open dead letters\n", stderr: `dead-letters: ${migrated}` });
  const outbox = cli("outbox", path.join(folder, "outbox.db"), ["list", "--json"]);
  assert.deepEqual([outbox.code, JSON.parse(outbox.stdout), outbox.stderr], [0, { data: [], count: 0 }, `outbox: ${migrated}`]);
  const retention = cli("retention", path.join(folder, "retention.db"), ["--json", "--dry-run"]);
  assert.deepEqual([retention.code, retention.stderr], [0, `retention: ${migrated}`]);
});

test("a migration pending while another process holds the file: one line naming it, exit 3, nothing applied; the worker says to run npm start once", { skip }, () => {
  const file = path.join(folder, "held.db");
  assert.equal(createUser(file, "ana@shop.test").code, 0);
  // As after an upgrade: the last migration is not applied yet.
  const holder = new Database(file);
  holder.prepare("DELETE FROM _prisma_migrations WHERE migration_name = ?").run(LAST);
  try {
    const held = cli("dead-letters", file, ["list"]);
    assert.deepEqual(held, {
      code: 3,
      stdout: "",
      stderr: `dead-letters: migration ${LAST} is pending and other processes hold the SQLite database ${file} (workers, receivers, or a server still running); stop them, run npm start (it migrates), then start them again (docs/operations.md, "Upgrade with a migration"). Nothing was applied.\n`,
    });
    const worker = cli("worker", file, []);
    assert.deepEqual(worker, { code: 1, stdout: "", stderr: `Acredita worker cannot start: migration ${LAST} is pending on ${file}; run npm start once to apply it (docs/operations.md, "Upgrade with a migration")\n` });
    assert.deepEqual(holder.prepare("SELECT count(*) AS n FROM _prisma_migrations WHERE migration_name = ?").get(LAST), { n: 0 });
  } finally {
    holder.close();
  }
});

test("the worker on a database nobody set up: one line, exit 1, and no database file created", { skip }, () => {
  const file = path.join(folder, "never-started.db");
  assert.deepEqual(cli("worker", file, []), { code: 1, stdout: "", stderr: `Acredita worker cannot start: the database is not set up yet (no migrations applied to ${file}); run npm start once to apply them\n` });
  assert.equal(existsSync(file), false);
});

test("a database in a folder that does not exist yet is made there, as npm start makes data/ on a fresh clone", { skip }, () => {
  const file = path.join(folder, "no-folder-yet", "acredita.db");
  const run = createUser(file, "ana@shop.test");
  assert.deepEqual([run.code, run.stdout], [0, "created ana@shop.test (admin)\n"]);
  assert.equal(existsSync(file), true);
});
