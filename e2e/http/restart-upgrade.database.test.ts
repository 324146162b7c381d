// slow-test: starts npm start several times on databases a release behind, with workers beside it
// Upgrades through `npm start` (scripts/start.ts) when a migration is pending. SQLite: the migration
// engine needs the file to itself, so with a worker attached `npm start` refuses at once with one line
// (exit 3) and applies nothing; once the worker stops it migrates. PostgreSQL: the engine takes no
// exclusive lock, so it migrates with a worker connected, and its advisory lock lets two servers start
// at once on a fresh database; the migrations are applied once.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import Database from "better-sqlite3";
import pg from "pg";
import { committedMigrations, migrationsDir } from "@/lib/db/pending-migrations";
import { freePort } from "@/lib/net/free-port";
import { labEvent } from "../support/http";
import { trackedProcesses, emptyDatabase, migrateAllButLast, restartEnv, spawnStart, startAcredita } from "../support/npm-start";
import { postLab, postOrder, waitFor, type Env } from "../support/real-server";
import { sqlReader } from "../support/sql-reader";
import { onPostgres, TEST_DATABASE } from "../support/test-database";

const MIGRATIONS = committedMigrations(migrationsDir(onPostgres ? "postgresql://x/y" : "file:x.db"));

const { start, worker, children, groups } = trackedProcesses();

describe(`upgrade with a pending migration on ${TEST_DATABASE} (npm start)`, () => {
  test("SQLite: a migration pending while a worker holds the database: npm start exits 3 with one line naming it, applies nothing; once the worker stops it migrates", { skip: onPostgres ? "SQLite only: on PostgreSQL the engine takes no exclusive lock and migrates beside the workers (next test)" : false }, async () => {
    const database = await emptyDatabase("upgrade");
    const pending = migrateAllButLast(database.url);
    assert.equal(pending, MIGRATIONS.at(-1));
    // An idle connection in WAL mode, as every worker and receiver keeps one.
    const holder = new Database(database.file!);
    holder.pragma("journal_mode = WAL");
    const rows = () => holder.prepare("SELECT id, migration_name, finished_at, rolled_back_at FROM _prisma_migrations ORDER BY migration_name").all();
    const before = rows();
    assert.equal(before.length, MIGRATIONS.length - 1);

    const env = restartEnv(database.url);
    const began = Date.now();
    const refused = spawnStart(env, await freePort());
    groups.push(refused);
    const exit = await refused.exited;
    const elapsed = Date.now() - began;
    assert.equal(exit.code, 3, refused.log());
    const errors = refused.log().split("\n").filter((line) => line.startsWith("Acredita cannot start"));
    assert.deepEqual(errors, [
      `Acredita cannot start: migration ${pending} is pending and other processes hold the SQLite database ${database.file} (workers, receivers, or a server still running); stop them, run npm start (it migrates), then start them again (docs/operations.md, "Upgrade with a migration"). Nothing was applied.`,
    ]);
    assert.ok(elapsed < 15_000, `answered in ${elapsed} ms, not after the engine's busy timeouts`);
    assert.deepEqual(rows(), before);
    assert.equal((holder.prepare("SELECT COUNT(*) AS n FROM \"Order\"").get() as { n: number }).n, 0);
    holder.close();

    const port = await freePort();
    const upgraded = await start(env, port);
    assert.match(upgraded.server.log(), new RegExp(`Migrations applied \\(SQLite\\): ${pending}\\.`), upgraded.server.log());
    const reader = sqlReader(database);
    assert.deepEqual(reader.all<{ migration_name: string }>("SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name").map((row) => row.migration_name), MIGRATIONS);
    reader.close();
    // Workers started after the upgrade work on the migrated database.
    const after = worker(env);
    assert.equal(await postOrder(upgraded.url, "ord_up1", 1000), 201);
    assert.equal((await postLab(upgraded.url, labEvent("evt_up1", "payment.approved", "ord_up1", "pay_up1", 1000))).json.outcome, "accepted");
    const check = sqlReader(database);
    await waitFor("the worker to apply evt_up1", () => check.get<{ status: string }>("SELECT status FROM \"Order\" WHERE id = 'ord_up1'")?.status === "paid");
    check.close();
    assert.equal((await after.kill("SIGTERM")).code, 0, after.log());
    await upgraded.server.killGroup("SIGTERM");
  });

  test("PostgreSQL: two npm start at once on a fresh database both come up, and each migration is applied once", { skip: onPostgres ? false : "PostgreSQL only (TEST_DATABASE=postgres)" }, async () => {
    const database = await emptyDatabase("twostarts");
    const env = restartEnv(database.url);
    const [a, b] = await Promise.all([start(env, await freePort()), start(env, await freePort())]);
    const reader = sqlReader(database);
    try {
      assert.deepEqual(reader.all<{ migration_name: string; n: number }>("SELECT migration_name, COUNT(*)::int AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL GROUP BY migration_name ORDER BY migration_name"), MIGRATIONS.map((name) => ({ migration_name: name, n: 1 })));
      assert.equal(reader.count("SELECT COUNT(*) AS n FROM _prisma_migrations"), MIGRATIONS.length);
      // One of them applied them, the other found nothing left to do once the first released the lock.
      const logs = [a.server.log(), b.server.log()];
      assert.equal(logs.filter((log) => log.includes(`Migrations applied (PostgreSQL): ${MIGRATIONS.join(", ")}.`)).length, 1, logs.join("\n---\n"));
      for (const { url } of [a, b]) assert.equal((await fetch(`${url}/api/health`)).status, 200);
      // Both serve the same books.
      assert.equal(await postOrder(a.url, "ord_two1", 1000), 201);
      assert.equal(await postOrder(b.url, "ord_two1", 1000), 200);
    } finally {
      reader.close();
    }
    await Promise.all([a.server.killGroup("SIGTERM"), b.server.killGroup("SIGTERM")]);
  });

  test("PostgreSQL: a migration pending while an old worker is connected: npm start applies it (the engine needs no exclusive lock there); a worker of the new release started after it applies deliveries", { skip: onPostgres ? false : "PostgreSQL only (TEST_DATABASE=postgres)" }, async () => {
    const database = await emptyDatabase("upgrade");
    const pending = migrateAllButLast(database.url);
    assert.equal(pending, MIGRATIONS.at(-1));
    const env = restartEnv(database.url);
    // The old release's worker: an idle session on the database, as a worker's pool keeps one.
    const oldWorker = new pg.Client({ connectionString: database.url });
    await oldWorker.connect();
    await oldWorker.query(`SELECT count(*) FROM "WebhookEvent"`);
    // A worker of the new release refuses a database with a pending migration (docs/operations.md, "Upgrade with a migration").
    const early = worker({ ...env, LOG_LEVEL: "info" });
    assert.equal((await early.exited).code, 1, early.log());
    const { server, url } = await start(env, await freePort());
    assert.match(server.log(), new RegExp(`Migrations applied \\(PostgreSQL\\): ${pending}\\.`), server.log());
    assert.equal((await oldWorker.query(`SELECT count(*)::int AS n FROM "WebhookEvent"`)).rows[0].n, 0);
    await oldWorker.end();
    const attached = worker({ ...env, LOG_LEVEL: "info" });
    await waitFor("the worker to be running", () => attached.output.join("").includes("background workers started"));
    const reader = sqlReader(database);
    try {
      assert.deepEqual(reader.all<{ migration_name: string }>("SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name").map((row) => row.migration_name), MIGRATIONS);
      assert.equal(await postOrder(url, "ord_pg_up1", 1000), 201);
      assert.equal((await postLab(url, labEvent("evt_pg_up1", "payment.approved", "ord_pg_up1", "pay_pg_up1", 1000))).json.outcome, "accepted");
      // A bound for a loaded machine (the worker was just started beside a server and a browser pass); its log names what it did.
      await waitFor("the worker to apply evt_pg_up1", () => reader.get<{ status: string }>("SELECT status FROM \"Order\" WHERE id = 'ord_pg_up1'")?.status === "paid", { timeoutMs: 90_000 }).catch((error: Error) => {
        throw new Error(`${error.message}\n${attached.log()}`);
      });
    } finally {
      reader.close();
    }
    assert.equal((await attached.kill("SIGTERM")).code, 0, attached.log());
    await server.killGroup("SIGTERM");
  });
});
