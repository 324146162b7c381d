// slow-test: two server processes and three worker processes on one PostgreSQL database, one worker SIGKILLed and restarted
// Scale-out on PostgreSQL: 2 server processes on different ports and 3 worker processes on
// one PostgreSQL database. 32 concurrent clients post 500 deliveries of 130 distinct lab events
// (duplicates, two event ids for one payment, refunds before approvals) across both servers while one
// worker is SIGKILLed and restarted. Then: every event stored and applied once, each business key
// once, the reconciliation against the generated settlement shows 0 mismatches, and no delivery got a
// 5xx other than 503s that the client retried.
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { openDb, type Db } from "@/lib/db/client";
import { baseEnv, Child, ensureBuilt, postLab, postOrder, startServer, startWorker, waitFor } from "../support/real-server";
import { scaleOutPlan } from "../support/scale-out-plan";
import { runMain } from "../support/cli";
import { main as reconcileCli } from "@/scripts/reconcile";
import { newTestDatabase, onPostgres } from "../support/test-database";

// The invariants (each event once, 0 mismatches, only retried 503s) at a few hundred deliveries; volume is the bench's.
const CLIENTS = 32;
const KILL_AFTER_DELIVERIES = 150;

const children: Child[] = [];
let reader: Db | undefined;
after(async () => {
  await Promise.all(children.map((child) => child.kill("SIGKILL")));
  await reader?.$disconnect();
});

describe("scale-out: 2 servers and 3 workers on one PostgreSQL", { skip: onPostgres ? false : "PostgreSQL only (TEST_DATABASE=postgres)" }, () => {
  test("500 deliveries of 130 events from 32 clients across 2 servers, a worker SIGKILLed and restarted: each event applied once, 0 mismatches", async (t) => {
    ensureBuilt();
    const plan = scaleOutPlan({ paidOnly: 25, refunded: 40, secondIds: 25, untouched: 10, totalDeliveries: 500 });
    assert.deepEqual([plan.events.length, plan.deliveries.length, plan.orders.length], [130, 500, 75]);
    assert.ok(plan.expected.refundsDeliveredBeforeApproval > 0);

    const database = newTestDatabase("scaleout");
    const settings = {
      LAB_PROCESSING_MODE: "inbox",
      INBOX_WORKER_IN_PROCESS: "false",
      DATABASE_POOL_SIZE: "8",
      // A short lease keeps the test short: a killed worker's events come back after 2 s. A refund parked
      // before its approval is woken as soon as the approval lands, else retried within 4 s.
      INBOX_LEASE_MS: "2000",
      INBOX_RETRY_BASE_MS: "1000",
      INBOX_RETRY_MAX_DELAY_MS: "4000",
      INBOX_MAX_ATTEMPTS: "1000",
      INBOX_POLL_INTERVAL_MS: "50",
    };
    const env = baseEnv(database.url, settings);
    const servers = await Promise.all([startServer(env), startServer(env)]);
    for (const server of servers) children.push(server.child);
    assert.notEqual(servers[0].url, servers[1].url);
    const workers = [0, 1, 2].map(() => startWorker(env));
    children.push(...workers);

    // The store creates the orders first, 16 at a time (creation is idempotent: a 503 is retried, and a
    // retry of a creation that had committed answers 200).
    const orderQueue = plan.orders.map((order, i) => ({ order, server: i % 2 }));
    const created: number[] = [];
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let next = orderQueue.shift(); next; next = orderQueue.shift()) {
          const status = await postOrder(servers[next.server].url, next.order.id, next.order.amount, next.order.currency);
          if (status === 503) orderQueue.push(next);
          else created.push(status);
        }
      }),
    );
    assert.deepEqual([created.length, created.every((status) => status === 201 || status === 200)], [plan.orders.length, true]);

    // The clients share one queue of deliveries in the plan's shuffled order; delivery n goes to server
    // n % 2. A 503 is retried (as a provider does) by putting the delivery back at the end of the queue.
    const queue = plan.deliveries.map((eventIndex, position) => ({ eventIndex, server: position % 2 }));
    const answers = { accepted: 0, duplicate: 0, retried503: 0, perServer: [0, 0] };
    const unexpected: string[] = [];
    let completed = 0;
    let killed: Promise<void> | undefined;
    let pendingAtKill = -1;
    reader = await openDb(database.url);
    const db = reader;

    const killAndRestartOneWorker = async () => {
      pendingAtKill = await db.webhookEvent.count({ where: { status: { in: ["received", "processing", "failed"] } } });
      const exit = await workers[0].kill("SIGKILL");
      assert.equal(exit.signal, "SIGKILL");
      const restarted = startWorker(env);
      children.push(restarted);
      workers[0] = restarted;
    };

    const started = Date.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) {
          const event = plan.events[next.eventIndex];
          const { status, json } = await postLab(servers[next.server].url, event.body);
          answers.perServer[next.server]++;
          if (status === 503) {
            answers.retried503++;
            queue.push(next);
            continue;
          }
          if (status === 200 && (json.outcome === "accepted" || json.outcome === "duplicate")) answers[json.outcome]++;
          else unexpected.push(`${event.id} -> ${status} ${json.outcome}: ${json.reason}`);
          completed++;
          if (completed === KILL_AFTER_DELIVERIES) killed = killAndRestartOneWorker();
        }
      }),
    );
    await killed;
    const postedSeconds = (Date.now() - started) / 1000;

    assert.deepEqual(unexpected, [], "every delivery answered 200 (503s were retried)");
    assert.deepEqual([answers.accepted, answers.duplicate], [130, 370], "each distinct event accepted once, every other delivery a duplicate");
    assert.ok(answers.perServer[0] >= 250 && answers.perServer[1] >= 250, `both servers took deliveries: ${answers.perServer}`);
    assert.ok(pendingAtKill > 0, "the worker was killed while events were waiting to be applied");

    await waitFor("the inbox to drain", async () => (await db.webhookEvent.count({ where: { status: { notIn: ["processed", "ignored"] } } })) === 0, { timeoutMs: 180_000, intervalMs: 250 });
    const drainedSeconds = (Date.now() - started) / 1000;

    const events = await db.webhookEvent.groupBy({ by: ["status"], _count: { _all: true } });
    // On a failure, the rows that are not one of the plan's events say where an extra one came from.
    const planned = new Set(plan.events.map((event) => event.id));
    const strays = events.length === 1 && events[0]._count._all === 130 ? [] : (await db.webhookEvent.findMany({ select: { provider: true, endpoint: true, account: true, eventId: true, status: true, receivedAt: true } })).filter((row) => !planned.has(row.eventId));
    assert.deepEqual(events.map((group) => [group.status, group._count._all]), [["processed", 130]], `rows not of the plan: ${JSON.stringify(strays)}`);
    const ledger = await db.ledgerEntry.groupBy({ by: ["kind"], _count: { _all: true }, orderBy: { kind: "asc" } });
    assert.deepEqual(ledger.map((group) => [group.kind, group._count._all]), [["credit", plan.expected.credits], ["refund", plan.expected.refunds]]);
    const orders = await db.order.groupBy({ by: ["status"], _count: { _all: true }, orderBy: { status: "asc" } });
    assert.deepEqual(orders.map((group) => [group.status, group._count._all]), [["created", plan.expected.created], ["paid", plan.expected.paid], ["refunded", plan.expected.refunded]]);
    assert.equal(await db.delivery.count(), plan.expected.credits);
    assert.equal(await db.extraCharge.count(), 0);
    assert.equal(await db.deadLetter.count({ where: { status: "open" } }), 0);
    // Each event applied once: one `applied` decision per money effect, never two for one event; the
    // second event id of a payment finds it credited (`duplicate`).
    const applied = await db.decision.findMany({ where: { source: "worker", outcome: "applied" }, select: { eventId: true } });
    assert.equal(applied.length, plan.expected.credits + plan.expected.refunds);
    assert.equal(new Set(applied.map((row) => row.eventId)).size, applied.length);
    assert.equal(await db.decision.count({ where: { source: "worker", outcome: "duplicate" } }), plan.expected.secondEventIds);

    const folder = mkdtempSync(path.join(tmpdir(), "acredita-scaleout-"));
    const settlement = path.join(folder, "settlement.csv");
    writeFileSync(settlement, plan.settlementCsv);
    // `npm run reconcile` on the scale-out's database: its main, in this process.
    const reconcile = await runMain(reconcileCli, [settlement, "--json"], { ...process.env, ...env });
    assert.equal(reconcile.code, 0, reconcile.stdout + reconcile.stderr);
    assert.deepEqual(JSON.parse(reconcile.stdout).mismatches, []);

    const reclaimed = await db.decision.count({ where: { source: "worker", outcome: "retry_scheduled" } });
    t.diagnostic(`all 500 deliveries answered after ${postedSeconds.toFixed(1)} s, inbox drained after ${drainedSeconds.toFixed(1)} s; 503s retried by the clients: ${answers.retried503}; deliveries per server: ${answers.perServer.join(" / ")}; events pending when the worker was killed: ${pendingAtKill}; parked retries: ${reclaimed}; refunds delivered before their approval: ${plan.expected.refundsDeliveredBeforeApproval}`);
    for (const worker of workers) assert.equal((await worker.kill("SIGTERM")).code, 0, worker.log());
    for (const server of servers) await server.child.kill("SIGTERM");
  });
});
