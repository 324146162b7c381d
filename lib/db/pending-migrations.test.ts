import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import Database from "better-sqlite3";
import type { MigrateDeployResult } from "@/lib/db/migrate-deploy";
import { checkMigrations, committedMigrations, compareMigrations, EXIT_DATABASE_HELD, EXIT_MIGRATION_FAILED, migrateOnStart, migrationsDir, resolveFailedMigration, sqliteHeldByOthers } from "@/lib/db/pending-migrations";

const COMMITTED = committedMigrations(migrationsDir("file:x.db"));
const LAST = COMMITTED.at(-1)!;
const row = (name: string, finished: string | null = "2026-11-30T10:00:00Z", rolledBack: string | null = null) => ({ migration_name: name, finished_at: finished, rolled_back_at: rolledBack });

describe("compareMigrations (what migrate deploy would do, read from _prisma_migrations)", () => {
  test("every committed migration finished: up to date, nothing unknown", () => {
    assert.deepEqual(compareMigrations(["a", "b"], [row("a"), row("b")]), { state: "up-to-date", applied: ["a", "b"], unknown: [] });
  });
  test("a committed migration without a row is pending, in name order", () => {
    assert.deepEqual(compareMigrations(["a", "b", "c"], [row("b")]), { state: "pending", applied: ["b"], pending: ["a", "c"] });
  });
  test("a row started and never finished is a failed migration, whatever else is pending", () => {
    assert.deepEqual(compareMigrations(["a", "b", "c"], [row("a"), row("b", null)]), { state: "failed", failed: ["b"] });
  });
  test("a row marked rolled back counts for nothing: that migration is pending again", () => {
    assert.deepEqual(compareMigrations(["a", "b"], [row("a"), row("b", null, "2026-11-30T11:00:00Z")]), { state: "pending", applied: ["a"], pending: ["b"] });
    assert.deepEqual(compareMigrations(["a", "b"], [row("a"), row("b", null, "2026-11-30T11:00:00Z"), row("b")]), { state: "up-to-date", applied: ["a", "b"], unknown: [] });
  });
  test("an applied migration this release does not have (a newer release's) is reported, not pending", () => {
    assert.deepEqual(compareMigrations(["a"], [row("a"), row("z")]), { state: "up-to-date", applied: ["a", "z"], unknown: ["z"] });
  });
});

describe("migrateOnStart on SQLite (the engine replaced by a recorder)", () => {
  const folder = mkdtempSync(path.join(tmpdir(), "acredita-pending-"));
  const holders: Database.Database[] = [];
  after(() => holders.forEach((holder) => holder.close()));
  let files = 0;

  /** A SQLite file in WAL mode whose `_prisma_migrations` holds `rows` (Prisma's columns that matter here). */
  function databaseWith(rows: ReturnType<typeof row>[]): string {
    const file = path.join(folder, `db${files++}.db`);
    const database = new Database(file);
    database.pragma("journal_mode = WAL");
    database.exec("CREATE TABLE _prisma_migrations (id TEXT PRIMARY KEY, migration_name TEXT NOT NULL, started_at DATETIME, finished_at DATETIME, rolled_back_at DATETIME)");
    const insert = database.prepare("INSERT INTO _prisma_migrations (id, migration_name, finished_at, rolled_back_at) VALUES (?, ?, ?, ?)");
    rows.forEach((r, i) => insert.run(String(i), r.migration_name, r.finished_at, r.rolled_back_at));
    database.close();
    return file;
  }
  function recorder(result: MigrateDeployResult = { ok: true, output: "All migrations have been successfully applied." }) {
    const calls: string[] = [];
    return { calls, deploy: (url: string) => (calls.push(url), result) };
  }
  /** An idle connection on `file`, as a worker or a receiver keeps one. */
  function hold(file: string): void {
    const holder = new Database(file);
    holder.prepare("SELECT COUNT(*) FROM _prisma_migrations").get();
    holders.push(holder);
  }

  test("nothing pending: the engine does not run, even while another process holds the file", async () => {
    const file = databaseWith(COMMITTED.map((name) => row(name)));
    hold(file);
    const engine = recorder();
    assert.deepEqual(await migrateOnStart(`file:${file}`, engine), { ok: true, message: `Migrations: none pending (${COMMITTED.length} applied, SQLite).` });
    assert.deepEqual(engine.calls, []);
  });

  test("no database file yet: the engine runs (a fresh install)", async () => {
    const engine = recorder();
    const url = `file:${path.join(folder, "missing.db")}`;
    assert.deepEqual(await migrateOnStart(url, engine), { ok: true, message: `Migrations applied (SQLite): ${COMMITTED.join(", ")}.` });
    assert.deepEqual(engine.calls, [url]);
  });

  test("a migration pending and nobody else on the file: the engine runs", async () => {
    const file = databaseWith(COMMITTED.slice(0, -1).map((name) => row(name)));
    const engine = recorder();
    assert.deepEqual(await migrateOnStart(`file:${file}`, engine), { ok: true, message: `Migrations applied (SQLite): ${LAST}.` });
    assert.deepEqual(engine.calls, [`file:${file}`]);
  });

  test("a migration pending while another process holds the file: exit 3 naming it, the engine never started", async () => {
    const file = databaseWith(COMMITTED.slice(0, -1).map((name) => row(name)));
    hold(file);
    assert.equal(sqliteHeldByOthers(file, 100), true);
    const engine = recorder();
    const result = await migrateOnStart(`file:${file}`, { ...engine, probeTimeoutMs: 100 });
    assert.deepEqual(result, {
      ok: false,
      exitCode: EXIT_DATABASE_HELD,
      message: `Acredita cannot start: migration ${LAST} is pending and other processes hold the SQLite database ${file} (workers, receivers, or a server still running); stop them, run npm start (it migrates), then start them again (docs/operations.md, "Upgrade with a migration"). Nothing was applied.`,
    });
    assert.equal(EXIT_DATABASE_HELD, 3);
    assert.deepEqual(engine.calls, []);
  });

  test("the engine itself finding the file busy (a process came between the probe and the engine) is the same exit 3", async () => {
    const file = databaseWith(COMMITTED.slice(0, -1).map((name) => row(name)));
    const engine = recorder({ ok: false, output: "Error: unknown variant `SocketTimeout`" });
    const result = await migrateOnStart(`file:${file}`, engine);
    assert.equal(result.ok, false);
    assert.equal(!result.ok && result.exitCode, 3);
    assert.match(!result.ok ? result.message : "", new RegExp(`^Acredita cannot start: migration ${LAST} is pending and other processes hold`));
    assert.equal(!result.ok && result.output, "Error: unknown variant `SocketTimeout`");
  });

  test("a migration that failed part-way in an earlier run: exit 1 naming it and how to resolve it, the engine never started", async () => {
    const file = databaseWith([...COMMITTED.slice(0, -1).map((name) => row(name)), row(LAST, null)]);
    const engine = recorder();
    assert.deepEqual(await migrateOnStart(`file:${file}`, engine), {
      ok: false,
      exitCode: EXIT_MIGRATION_FAILED,
      message: `Acredita cannot start: migration ${LAST} failed part-way in an earlier run (started in _prisma_migrations, never finished); repair the database, then record the outcome with "npm run db:resolve -- --rolled-back <name>" (or --applied <name>) and run npm start again (docs/operations.md, "A migration that failed").`,
    });
    assert.deepEqual(engine.calls, []);
  });

  test("the engine failing for another reason: exit 1, its output kept", async () => {
    const file = databaseWith(COMMITTED.slice(0, -1).map((name) => row(name)));
    const engine = recorder({ ok: false, output: "P3018 a migration failed to apply" });
    assert.deepEqual(await migrateOnStart(`file:${file}`, engine), { ok: false, exitCode: 1, message: "Acredita cannot start: migrations failed", output: "P3018 a migration failed to apply" });
  });

  test("db:resolve --rolled-back makes a failed migration pending again; --applied makes it applied; a second resolve changes nothing", async () => {
    const rolledBack = databaseWith([...COMMITTED.slice(0, -1).map((name) => row(name)), row(LAST, null)]);
    assert.equal(await resolveFailedMigration(`file:${rolledBack}`, LAST, "rolled-back"), 1);
    assert.deepEqual(await checkMigrations(`file:${rolledBack}`), { state: "pending", applied: COMMITTED.slice(0, -1), pending: [LAST] });
    assert.equal(await resolveFailedMigration(`file:${rolledBack}`, LAST, "rolled-back"), 0);
    const applied = databaseWith([...COMMITTED.slice(0, -1).map((name) => row(name)), row(LAST, null)]);
    assert.equal(await resolveFailedMigration(`file:${applied}`, LAST, "applied"), 1);
    assert.deepEqual(await checkMigrations(`file:${applied}`), { state: "up-to-date", applied: COMMITTED, unknown: [] });
    assert.equal(await resolveFailedMigration(`file:${applied}`, COMMITTED[0], "applied"), 0);
  });
});

describe("migrateOnStart on PostgreSQL (the engine replaced by a recorder)", () => {
  test("a run that timed out on another server's advisory lock is repeated until it succeeds", async () => {
    // Nothing listens on port 1: the check fails and is left to the engine, as for an unreachable database.
    const url = "postgresql://acredita@127.0.0.1:1/acredita";
    const outputs = ["Timed out trying to acquire a postgres advisory lock (SELECT pg_advisory_lock(72707369)). Timeout: 10000ms.", "Timed out trying to acquire a postgres advisory lock (SELECT pg_advisory_lock(72707369)). Timeout: 10000ms.", "No pending migrations to apply."];
    const calls: string[] = [];
    const deploy = (given: string) => {
      calls.push(given);
      const output = outputs[calls.length - 1];
      return { ok: output.startsWith("No pending"), output };
    };
    assert.deepEqual(await migrateOnStart(url, { deploy }), { ok: true, message: "Migrations applied (PostgreSQL): none pending." });
    assert.equal(calls.length, 3);
  });

  test("it gives up after lockAttempts runs: exit 1 with the engine's output", async () => {
    const url = "postgresql://acredita@127.0.0.1:1/acredita";
    let calls = 0;
    const output = "Timed out trying to acquire a postgres advisory lock (SELECT pg_advisory_lock(72707369)). Timeout: 10000ms.";
    const result = await migrateOnStart(url, { deploy: () => (calls++, { ok: false, output }), lockAttempts: 2 });
    assert.deepEqual(result, { ok: false, exitCode: 1, message: "Acredita cannot start: migrations failed", output });
    assert.equal(calls, 2);
  });
});
