// slow-test: restarts npm start and two worker processes under a burst of deliveries
// Restart under load, as an operator's supervisor does it: `npm start` (scripts/start.ts, its own
// process group) and two `npm run worker` processes on one database; a burst of lab deliveries in inbox
// mode with duplicates, and the provider's retries of every delivery that got no 2xx. The server's group
// is SIGKILLed and `npm start` run again with the workers still attached (it must not wait for a lock
// only the migration engine needs), or a worker is SIGKILLed and restarted three times. Ends with
// exact counts: every event stored once, applied once, each payment credited once. SQLite and
// PostgreSQL (TEST_DATABASE=postgres). Upgrades with a pending migration: restart-upgrade.database.test.ts.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { committedMigrations, migrationsDir } from "@/lib/db/pending-migrations";
import { freePort } from "@/lib/net/free-port";
import { labEvent } from "../support/http";
import { trackedProcesses, emptyDatabase, restartEnv, startAcredita, type StartedServer } from "../support/npm-start";
import { seededRandom, sendLikeAProvider, shuffledBurst } from "../support/provider-burst";
import { postLab, postOrder, startReceiver, waitFor, type Env } from "../support/real-server";
import { sqlReader } from "../support/sql-reader";
import { newTestDatabase, onPostgres, TEST_DATABASE } from "../support/test-database";

const ORDERS = 30;
const REFUNDED = 15;
const EVENTS = ORDERS + REFUNDED;
const DELIVERIES = 300;
const CONCURRENCY = 8;
const KIND = onPostgres ? "PostgreSQL" : "SQLite";
const MIGRATIONS = committedMigrations(migrationsDir(onPostgres ? "postgresql://x/y" : "file:x.db"));

const { start, worker, children } = trackedProcesses();


const amounts = Array.from({ length: ORDERS }, (_, i) => 100_000 + i * 1_000);

/** The burst: every event once (30 approvals, 15 refunds of them), the rest random duplicates, shuffled. */
function burst(random: () => number): string[] {
  const events = [
    ...amounts.map((amount, i) => labEvent(`evt_ra${i}`, "payment.approved", `ord_r${i}`, `pay_r${i}`, amount)),
    ...amounts.slice(0, REFUNDED).map((amount, i) => labEvent(`evt_rr${i}`, "payment.refunded", `ord_r${i}`, `pay_r${i}`, amount)),
  ];
  return shuffledBurst(events, DELIVERIES, random);
}

/** The provider's burst against `url` (CONCURRENCY senders, each retrying until a 2xx); `afterEach` as in sendLikeAProvider. */
function provider(url: string, deliveries: string[], afterEach: (sent: number) => Promise<void>) {
  return sendLikeAProvider(url, deliveries, { concurrency: CONCURRENCY, afterEach });
}

/** Waits for the inbox to drain, then asserts the exact books of the burst. */
async function assertBooks(database: { url: string; file?: string }, context: string): Promise<void> {
  const db = sqlReader(database);
  const count = (sql: string) => db.count(sql);
  try {
    await waitFor("every stored event to be applied", () => count("SELECT COUNT(*) AS n FROM WebhookEvent WHERE status = 'processed'") === EVENTS, { timeoutMs: 60_000, intervalMs: 100 }).catch((error: Error) => {
      throw new Error(`${error.message}; ${context}; not processed: ${JSON.stringify(db.all("SELECT eventId, status, attempts, lastError FROM WebhookEvent WHERE status <> 'processed'"))}`);
    });
    assert.equal(count("SELECT COUNT(*) AS n FROM WebhookEvent"), EVENTS, context);
    assert.equal(count("SELECT COUNT(DISTINCT eventId) AS n FROM WebhookEvent"), EVENTS, context);
    assert.equal(count("SELECT COUNT(*) AS n FROM WebhookEvent WHERE leaseOwner IS NOT NULL"), 0, context);
    assert.equal(count("SELECT COUNT(*) AS n FROM Decision WHERE outcome = 'applied'"), EVENTS, context);
    assert.equal(count("SELECT COUNT(DISTINCT eventId) AS n FROM Decision WHERE outcome = 'applied'"), EVENTS, context);
    assert.equal(count("SELECT COUNT(*) AS n FROM LedgerEntry"), EVENTS, context);
    assert.equal(count("SELECT COUNT(DISTINCT businessKey) AS n FROM LedgerEntry"), EVENTS, context);
    assert.equal(count("SELECT COUNT(*) AS n FROM LedgerEntry WHERE kind = 'credit'"), ORDERS, context);
    assert.equal(count("SELECT COUNT(*) AS n FROM LedgerEntry WHERE kind = 'refund'"), REFUNDED, context);
    assert.equal(count("SELECT COUNT(*) AS n FROM \"Order\" WHERE id LIKE 'ord_r%' AND status = 'paid'"), ORDERS - REFUNDED, context);
    assert.equal(count("SELECT COUNT(*) AS n FROM \"Order\" WHERE id LIKE 'ord_r%' AND status = 'refunded'"), REFUNDED, context);
    assert.equal(count("SELECT COALESCE(SUM(amount), 0) AS n FROM LedgerEntry"), amounts.slice(REFUNDED).reduce((sum, amount) => sum + amount, 0), context);
    assert.equal(count("SELECT COUNT(*) AS n FROM DeadLetter"), 0, context);
  } finally {
    db.close();
  }
}

describe(`restart under load on ${TEST_DATABASE} (npm start and npm run worker, SIGKILL)`, () => {
  test("the server's process group SIGKILLed mid-burst: npm start comes back with two workers and a receiver attached, and the books are exact", async () => {
    const seed = Number(process.env.RESTART_SEED ?? Date.now() % 1_000_000);
    const database = await emptyDatabase();
    const env = restartEnv(database.url);
    const port = await freePort();
    const first = await start(env, port);
    assert.match(first.server.log(), new RegExp(`Migrations applied \\(${KIND}\\): ${MIGRATIONS.join(", ")}\\.`), first.server.log());
    for (let i = 0; i < ORDERS; i++) assert.equal(await postOrder(first.url, `ord_r${i}`, amounts[i]), 201);
    const workers = [worker(env), worker(env)];
    const pids = workers.map((child) => child.process.pid);
    const receiver = await startReceiver(env);
    children.push(receiver.child);

    let restarted: { server: StartedServer; url: string } | undefined;
    let killed: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let restartMs = 0;
    const answers = await provider(first.url, burst(seededRandom(seed)), async (sent) => {
      if (sent !== DELIVERIES / 3) return;
      killed = await first.server.killGroup("SIGKILL");
      // The supervisor restarts at once: the workers still hold the database (SQLite: the file open).
      assert.deepEqual(workers.map((child) => child.alive), [true, true]);
      const began = Date.now();
      restarted = await start(env, port);
      restartMs = Date.now() - began;
    });
    const context = `seed ${seed}; answers ${JSON.stringify(answers)}; restart took ${restartMs} ms`;
    assert.equal(killed?.signal, "SIGKILL", context);
    assert.ok(restarted, context);
    // Nothing pending, so the migration engine (and its exclusive lock) was not started.
    assert.match(restarted.server.log(), new RegExp(`Migrations: none pending \\(${MIGRATIONS.length} applied, ${KIND}\\)\\.`), restarted.server.log());
    assert.doesNotMatch(restarted.server.log(), /cannot start/);
    assert.ok(answers.retried > 0, `the provider saw the server down and retried: ${context}`);
    assert.equal(answers.accepted + answers.duplicate, DELIVERIES, context);
    // A delivery stored just before the kill may have lost its answer: its retry is then a duplicate.
    assert.ok(answers.accepted >= EVENTS - CONCURRENCY && answers.accepted <= EVENTS, context);
    await assertBooks(database, context);
    console.log(`server restart under load: ${context}`);
    // The receiver, attached all along, still answers: a redelivery through it is a duplicate.
    assert.equal(receiver.child.alive, true, receiver.child.log());
    const redelivered = await postLab(receiver.url, labEvent("evt_ra0", "payment.approved", "ord_r0", "pay_r0", amounts[0]));
    assert.deepEqual([redelivered.status, redelivered.json.outcome], [200, "duplicate"]);
    assert.equal((await receiver.child.kill("SIGTERM")).code, 0, receiver.child.log());
    // The workers ran through it all without a restart.
    assert.deepEqual(workers.map((child) => [child.alive, child.process.pid]), pids.map((pid) => [true, pid]), workers.map((child) => child.log()).join("\n"));
    assert.deepEqual(await Promise.all(workers.map(async (child) => (await child.kill("SIGTERM")).code)), [0, 0]);
    await restarted.server.killGroup("SIGTERM");
  });

  test("a worker SIGKILLed three times mid-burst (each of the two at least once) and restarted: npm start keeps serving, and the books are exact", async () => {
    const seed = Number(process.env.RESTART_SEED ?? Date.now() % 1_000_000);
    // Already migrated: the subject is the worker, and npm start migrating an empty database is the test above's.
    const database = newTestDatabase("restart");
    const env = restartEnv(database.url);
    const { server, url } = await start(env, await freePort());
    for (let i = 0; i < ORDERS; i++) assert.equal(await postOrder(url, `ord_r${i}`, amounts[i]), 201);
    const workerEnv = { ...env, LOG_LEVEL: "info" };
    const workers = [worker(workerEnv), worker(workerEnv)];
    const kills: string[] = [];
    const killAt = new Set([75, 150, 225]);
    const answers = await provider(url, burst(seededRandom(seed)), async (sent) => {
      if (!killAt.delete(sent)) return;
      const victim = kills.length % 2;
      const exit = await workers[victim].kill("SIGKILL");
      kills.push(`worker ${victim} at delivery ${sent}: ${exit.signal}`);
      workers[victim] = worker(workerEnv);
    });
    const context = `seed ${seed}; kills ${kills.join("; ")}; answers ${JSON.stringify(answers)}`;
    assert.deepEqual(kills.map((kill) => kill.endsWith("SIGKILL")), [true, true, true], context);
    // The server never went down: every first delivery of an event was accepted, every other a duplicate.
    assert.equal(answers.accepted, EVENTS, context);
    assert.equal(answers.duplicate, DELIVERIES - EVENTS, context);
    await assertBooks(database, context);
    assert.equal(server.alive, true, server.log());
    assert.equal((await fetch(`${url}/api/health`)).status, 200);
    // The last restarted worker may still be loading when the inbox is drained by the other: a SIGTERM
    // before its handlers are installed would end it by the signal, not the clean exit checked here.
    await waitFor("both workers to be running", () => workers.every((child) => child.output.join("").includes("background workers started")));
    assert.deepEqual(await Promise.all(workers.map(async (child) => (await child.kill("SIGTERM")).code)), [0, 0]);
    await server.killGroup("SIGTERM");
  });
});
