// slow-test: 400 deliveries to the built server while its worker processes are SIGKILLed twice
// Burst: 400 deliveries of 100 distinct events, in random order with duplicates, to the real
// server in inbox mode, while the worker processes are SIGKILLed and restarted twice. Expected: exactly
// 100 applied events, each ledger entry once, 0 lost. 400, not more: every event arrives at least once
// and most of them again, before and after each kill; more duplicates only measure (npm run bench).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { labEvent } from "../support/http";
import { seededRandom, sendLikeAProvider, shuffledBurst } from "../support/provider-burst";
import { baseEnv, Child, ensureBuilt, newDatabase, postOrder, startServer, startWorker, waitFor } from "../support/real-server";
import { sqlReader } from "../support/sql-reader";

const ORDERS = 60;
const REFUNDED = 40;
const DELIVERIES = 400;
const CONCURRENCY = 16;


const children: Child[] = [];
before(() => ensureBuilt());
after(async () => {
  await Promise.all(children.map((child) => child.kill("SIGKILL")));
});

test("400 deliveries of 100 events while workers are killed twice: 100 applied, each ledger entry once, 0 lost", async () => {
  const seed = Number(process.env.BURST_SEED ?? Date.now() % 1_000_000);
  const random = seededRandom(seed);
  const database = newDatabase();
  const env = baseEnv(database.url, { INBOX_WORKER_IN_PROCESS: "false", INBOX_LEASE_MS: "1000", INBOX_RETRY_BASE_MS: "100", INBOX_RETRY_MAX_DELAY_MS: "2000", INBOX_MAX_ATTEMPTS: "200" });
  const { child: server, url } = await startServer(env);
  children.push(server);

  const amounts = Array.from({ length: ORDERS }, (_, i) => 100_000 + i * 1_000);
  for (let i = 0; i < ORDERS; i++) assert.equal(await postOrder(url, `ord_${i}`, amounts[i]), 201);
  const events = [
    ...amounts.map((amount, i) => labEvent(`evt_a${i}`, "payment.approved", `ord_${i}`, `pay_${i}`, amount)),
    ...amounts.slice(0, REFUNDED).map((amount, i) => labEvent(`evt_r${i}`, "payment.refunded", `ord_${i}`, `pay_${i}`, amount)),
  ];
  assert.equal(events.length, 100);
  // Every event at least once, the other 300 deliveries are duplicates of random events; then shuffled.
  const deliveries = shuffledBurst(events, DELIVERIES, random);

  const workers = [startWorker(env), startWorker(env)];
  children.push(...workers);
  const killAt = new Set([Math.floor(DELIVERIES / 3), Math.floor((2 * DELIVERIES) / 3)]);
  const kills: string[] = [];
  const answers = await sendLikeAProvider(url, deliveries, {
    concurrency: CONCURRENCY,
    afterEach: async (sent) => {
      if (!killAt.has(sent)) return;
      killAt.delete(sent);
      const victim = kills.length % 2;
      const exit = await workers[victim].kill("SIGKILL");
      kills.push(`worker ${victim} at delivery ${sent}: ${exit.signal}`);
      workers[victim] = startWorker(env);
      children.push(workers[victim]);
    },
  });

  const db = sqlReader(database);
  const count = (sql: string) => db.count(sql);
  try {
    await waitFor("every stored event to be applied", () => count("SELECT COUNT(*) AS n FROM WebhookEvent WHERE status = 'processed'") === 100, { timeoutMs: 60_000, intervalMs: 100 }).catch((error: Error) => {
      const stuck = db.all("SELECT eventId, status, attempts, lastError, leaseOwner, leaseExpiresAt, nextAttemptAt FROM WebhookEvent WHERE status <> 'processed'");
      throw new Error(`${error.message}; seed ${seed}; now ${new Date().toISOString()}; not processed: ${JSON.stringify(stuck)}; workers alive: ${workers.map((worker) => worker.alive)}; worker logs: ${workers.map((worker) => worker.log()).join("\n---\n")}`);
    });
    const context = `seed ${seed}; kills: ${kills.join("; ")}`;
    assert.deepEqual(kills.map((kill) => kill.endsWith("SIGKILL")), [true, true], context);
    assert.equal(answers.accepted, 100, context);
    assert.equal(answers.duplicate, DELIVERIES - 100, context);
    assert.equal(count("SELECT COUNT(*) AS n FROM WebhookEvent"), 100, context);
    assert.equal(count("SELECT COUNT(*) AS n FROM Decision WHERE outcome = 'applied'"), 100, context);
    assert.equal(count("SELECT COUNT(DISTINCT eventId) AS n FROM Decision WHERE outcome = 'applied'"), 100, context);
    assert.equal(count("SELECT COUNT(*) AS n FROM LedgerEntry"), 100, context);
    assert.equal(count("SELECT COUNT(DISTINCT businessKey) AS n FROM LedgerEntry"), 100, context);
    assert.equal(count("SELECT COUNT(*) AS n FROM LedgerEntry WHERE kind = 'credit'"), 60, context);
    assert.equal(count("SELECT COUNT(*) AS n FROM LedgerEntry WHERE kind = 'refund'"), 40, context);
    assert.equal(count("SELECT COUNT(*) AS n FROM \"Order\" WHERE status = 'refunded'"), 40, context);
    assert.equal(count("SELECT COUNT(*) AS n FROM \"Order\" WHERE status = 'paid'"), 20, context);
    const credited = count("SELECT COALESCE(SUM(amount), 0) AS n FROM LedgerEntry");
    assert.equal(credited, amounts.slice(REFUNDED).reduce((sum, amount) => sum + amount, 0), context);
    assert.equal(count("SELECT COUNT(*) AS n FROM DeadLetter"), 0, context);
    console.log(`burst: ${context}; provider retries after non-2xx: ${answers.retried}; parked refund attempts: ${count("SELECT COUNT(*) AS n FROM Decision WHERE outcome = 'retry_scheduled'")}; claims abandoned by a killed worker and taken over: ${count("SELECT COALESCE(SUM(attempts), 0) AS n FROM WebhookEvent") - count("SELECT COUNT(*) AS n FROM Decision WHERE outcome IN ('applied', 'retry_scheduled')")}`);
  } finally {
    db.close();
  }
  await Promise.all(workers.map((worker) => worker.kill("SIGTERM")));
  await server.kill("SIGTERM");
});
