// slow-test: SIGKILLs the built server and worker processes at crash points and restarts them
// Recovery, proved by killing processes: the built server (`next start`) and `npm run worker`
// run as child processes on their own database; test crash points make a worker SIGKILL itself at an
// exact place, and the tests check what a restart does.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { labEvent } from "../support/http";
import { FakeMerchant } from "../support/merchant";
import { baseEnv, Child, ensureBuilt, newDatabase, postLab, postOrder, startServer, startWorker, waitFor } from "../support/real-server";
import { holdWriteLock, sqlReader } from "../support/sql-reader";
import type { TestDatabase } from "../support/test-database";

const children: Child[] = [];
function track<T extends Child>(child: T): T {
  children.push(child);
  return child;
}

/** A read-only look at a test database from this process (SQLite or PostgreSQL, see sql-reader.ts). */
function reader(database: TestDatabase) {
  const sql = sqlReader(database);
  return {
    count: sql.count,
    event: (eventId: string) => sql.get<{ status: string; attempts: number; leaseOwner: string | null }>("SELECT status, attempts, leaseOwner FROM WebhookEvent WHERE eventId = ?", eventId),
    order: (id: string) => sql.get<{ status: string }>("SELECT status FROM \"Order\" WHERE id = ?", id)!,
    ledger: (orderId: string) => sql.all<{ businessKey: string }>("SELECT businessKey FROM LedgerEntry WHERE orderId = ? ORDER BY businessKey", orderId).map((row) => row.businessKey),
    applied: (eventId: string) => sql.count("SELECT COUNT(*) AS n FROM Decision WHERE eventId = ? AND outcome = 'applied'", eventId),
    outbox: (orderId: string) => sql.all<{ status: string; attempts: number }>("SELECT status, attempts FROM OutboxMessage WHERE orderId = ?", orderId),
    close: sql.close,
  };
}

before(() => ensureBuilt());
const merchants: FakeMerchant[] = [];
function trackedMerchant(): FakeMerchant {
  const merchant = new FakeMerchant();
  merchants.push(merchant);
  return merchant;
}
after(async () => {
  await Promise.all(children.map((child) => child.kill("SIGKILL")));
  // A failed assertion skips a test's own merchant.stop(); a listening server would keep this file's
  // process (and so the whole test run) alive.
  await Promise.all(merchants.map((merchant) => merchant.stop()));
});

describe("recovery of the inbox, the worker and the outbox (real processes, SIGKILL)", () => {
  test("by default the server's own worker applies inbox events, and SIGTERM stops the server cleanly", async () => {
    const database = newDatabase();
    const { child: server, url } = await startServer(baseEnv(database.url));
    track(server);
    assert.equal(await postOrder(url, "ord_s1", 2500000), 201);
    const answer = await postLab(url, labEvent("evt_s1", "payment.approved", "ord_s1", "pay_s1", 2500000));
    assert.deepEqual([answer.status, answer.json.outcome], [200, "accepted"]);
    const db = reader(database);
    await waitFor("the in-process worker to apply evt_s1", () => db.event("evt_s1")?.status === "processed");
    assert.equal(db.order("ord_s1").status, "paid");
    assert.deepEqual(db.ledger("ord_s1"), ["credit:lab:lab:live:pay_s1"]);
    const exit = await server.kill("SIGTERM");
    assert.equal(exit.code, 143, server.log());
    assert.equal(db.count("SELECT COUNT(*) AS n FROM WebhookEvent WHERE leaseOwner IS NOT NULL"), 0);
    db.close();
  });

  test("a worker killed before the transition commits: on restart the event is applied once", async () => {
    const database = newDatabase();
    const env = baseEnv(database.url, { INBOX_WORKER_IN_PROCESS: "false", INBOX_LEASE_MS: "1000" });
    const { child: server, url } = await startServer(env);
    track(server);
    assert.equal(await postOrder(url, "ord_k1", 1850000), 201);
    const crashing = track(startWorker({ ...env, ACREDITA_TEST_HOOKS: "1", ACREDITA_TEST_CRASH_POINT: "before-commit" }));
    assert.equal((await postLab(url, labEvent("evt_k1", "payment.approved", "ord_k1", "pay_k1", 1850000))).json.outcome, "accepted");
    assert.equal((await crashing.exited).signal, "SIGKILL", crashing.log());

    const db = reader(database);
    assert.deepEqual(db.event("evt_k1")?.status, "processing");
    assert.equal(db.order("ord_k1").status, "created");
    assert.deepEqual(db.ledger("ord_k1"), []);
    assert.equal(db.applied("evt_k1"), 0);

    const restarted = track(startWorker(env));
    await waitFor("the restarted worker to apply evt_k1 after the lease expired", () => db.event("evt_k1")?.status === "processed");
    assert.equal(db.order("ord_k1").status, "paid");
    assert.deepEqual(db.ledger("ord_k1"), ["credit:lab:lab:live:pay_k1"]);
    assert.equal(db.applied("evt_k1"), 1);
    assert.equal(db.event("evt_k1")?.attempts, 2);
    const stopped = await restarted.kill("SIGTERM");
    assert.equal(stopped.code, 0, restarted.log());
    assert.equal(db.count("SELECT COUNT(*) AS n FROM WebhookEvent WHERE leaseOwner IS NOT NULL"), 0);
    db.close();
    await server.kill("SIGTERM");
  });

  test("a worker killed after the commit, before it finished the event: on restart nothing is applied twice", async () => {
    const merchant = trackedMerchant();
    const target = await merchant.start();
    const database = newDatabase();
    const env = baseEnv(database.url, { INBOX_WORKER_IN_PROCESS: "false", INBOX_LEASE_MS: "1000", FULFILMENT_WEBHOOK_URL: target });
    const { child: server, url } = await startServer(env);
    track(server);
    assert.equal(await postOrder(url, "ord_c1", 4200000), 201);
    assert.equal(await postOrder(url, "ord_c2", 1000), 201);
    // The crashing worker sends nothing: its own dispatcher could claim the fulfilment between the commit
    // and the crash point (seen on PostgreSQL), which is the dispatcher test's case, not this one.
    const crashing = track(startWorker({ ...env, OUTBOX_DISPATCHER_ENABLED: "false", ACREDITA_TEST_HOOKS: "1", ACREDITA_TEST_CRASH_POINT: "after-commit-before-done" }));
    assert.equal((await postLab(url, labEvent("evt_c1", "payment.approved", "ord_c1", "pay_c1", 4200000))).json.outcome, "accepted");
    assert.equal((await crashing.exited).signal, "SIGKILL", crashing.log());

    const db = reader(database);
    assert.equal(db.event("evt_c1")?.status, "processed");
    assert.deepEqual(db.ledger("ord_c1"), ["credit:lab:lab:live:pay_c1"]);
    assert.deepEqual(db.outbox("ord_c1"), [{ status: "pending", attempts: 0 }]);

    const restarted = track(startWorker(env));
    // A later event proves the restarted worker ran past the crashed one's leftovers.
    assert.equal((await postLab(url, labEvent("evt_c2", "payment.approved", "ord_c2", "pay_c2", 1000))).json.outcome, "accepted");
    await waitFor("the restarted worker to apply evt_c2 and send both fulfilments", () => db.event("evt_c2")?.status === "processed" && merchant.requests.length === 2);
    assert.deepEqual(db.ledger("ord_c1"), ["credit:lab:lab:live:pay_c1"]);
    assert.equal(db.applied("evt_c1"), 1);
    assert.equal(db.event("evt_c1")?.attempts, 1);
    assert.deepEqual(db.outbox("ord_c1"), [{ status: "sent", attempts: 1 }]);
    assert.deepEqual(merchant.requests.map((request) => request.idempotencyKey).sort(), ["fulfilment:ord_c1", "fulfilment:ord_c2"]);
    assert.equal((await restarted.kill("SIGTERM")).code, 0, restarted.log());
    db.close();
    await server.kill("SIGTERM");
    await merchant.stop();
  });

  test("a dispatcher killed after sending, before recording the answer: the message becomes uncertain and is not re-sent", async () => {
    const merchant = trackedMerchant();
    const target = await merchant.start();
    const database = newDatabase();
    const env = baseEnv(database.url, { INBOX_WORKER_IN_PROCESS: "false", FULFILMENT_WEBHOOK_URL: target, OUTBOX_TIMEOUT_MS: "500", OUTBOX_LEASE_MS: "1000" });
    const { child: server, url } = await startServer(env);
    track(server);
    assert.equal(await postOrder(url, "ord_u1", 3000000), 201);
    assert.equal(await postOrder(url, "ord_u2", 2000), 201);
    const crashing = track(startWorker({ ...env, ACREDITA_TEST_HOOKS: "1", ACREDITA_TEST_CRASH_POINT: "outbox-after-send-before-record" }));
    assert.equal((await postLab(url, labEvent("evt_u1", "payment.approved", "ord_u1", "pay_u1", 3000000))).json.outcome, "accepted");
    assert.equal((await crashing.exited).signal, "SIGKILL", crashing.log());
    assert.deepEqual(merchant.requests.map((request) => request.idempotencyKey), ["fulfilment:ord_u1"]);

    const db = reader(database);
    assert.deepEqual(db.outbox("ord_u1"), [{ status: "sending", attempts: 1 }]);
    const restarted = track(startWorker(env));
    await waitFor("the abandoned send to be marked uncertain", () => db.outbox("ord_u1")[0]?.status === "uncertain");
    // Another paid order's fulfilment goes out: the dispatcher is running, and still does not resend ord_u1.
    assert.equal((await postLab(url, labEvent("evt_u2", "payment.approved", "ord_u2", "pay_u2", 2000))).json.outcome, "accepted");
    await waitFor("the fulfilment of ord_u2", () => db.outbox("ord_u2")[0]?.status === "sent");
    assert.deepEqual(merchant.requests.map((request) => request.idempotencyKey), ["fulfilment:ord_u1", "fulfilment:ord_u2"]);
    assert.deepEqual(db.outbox("ord_u1"), [{ status: "uncertain", attempts: 1 }]);
    const metrics = await (await fetch(`${url}/api/metrics`, { headers: { authorization: `Bearer ${env.API_TOKEN}` } })).json();
    assert.equal(metrics.outbox.uncertain, 1);
    assert.equal(metrics.confirmedPaymentsWithoutDeliveryResult, 1);
    assert.equal((await restarted.kill("SIGTERM")).code, 0, restarted.log());
    db.close();
    await server.kill("SIGTERM");
    await merchant.stop();
  });

});

// One server for both: the same settings, and each case its own order and events.
describe("the database locked under a running server", () => {
  let database: TestDatabase;
  let server: Child | undefined;
  let url = "";
  before(async () => {
    database = newDatabase();
    const started = await startServer(baseEnv(database.url, { DATABASE_BUSY_TIMEOUT_MS: "200", DATABASE_STATEMENT_TIMEOUT_MS: "300" }));
    server = track(started.child);
    url = started.url;
  });
  after(() => server?.kill("SIGTERM"));

  test("the database is unavailable at delivery: 503, nothing stored; the provider's retry later succeeds", async () => {
    assert.equal(await postOrder(url, "ord_d1", 1500000), 201);
    const body = labEvent("evt_d1", "payment.approved", "ord_d1", "pay_d1", 1500000);
    const lock = await holdWriteLock(database);
    let refused;
    try {
      refused = await postLab(url, body);
    } finally {
      await lock.release();
    }
    assert.deepEqual([refused.status, refused.json.outcome], [503, "rejected"]);
    const db = reader(database);
    assert.equal(db.count("SELECT COUNT(*) AS n FROM WebhookEvent"), 0);
    const retried = await postLab(url, body);
    assert.deepEqual([retried.status, retried.json.outcome], [200, "accepted"]);
    await waitFor("evt_d1 to be applied", () => db.event("evt_d1")?.status === "processed");
    assert.deepEqual(db.ledger("ord_d1"), ["credit:lab:lab:live:pay_d1"]);
    assert.equal(db.applied("evt_d1"), 1);
    db.close();
  });

  test("while the database stays locked, every delivery is still answered 503 (the background loops back off instead of crowding it out)", async () => {
    assert.equal(await postOrder(url, "ord_l1", 1500000), 201);
    const lock = await holdWriteLock(database);
    const answers: (number | string)[] = [];
    try {
      for (let i = 0; i < 5; i++) {
        // A provider waits about 30 s for an answer. Before the back-off, the inbox worker, the outbox
        // dispatcher and the other loops retried every 50 ms, each blocking SQLite's busy timeout, and
        // deliveries waited 15 to 70 s or were never answered.
        const body = labEvent(`evt_l${i}`, "payment.approved", "ord_l1", "pay_l1", 1500000);
        answers.push(await postLab(url, body, undefined, AbortSignal.timeout(30_000)).then((answer) => answer.status, (error: Error) => `${error.name}: ${error.message}`));
      }
    } finally {
      await lock.release();
    }
    assert.deepEqual(answers, [503, 503, 503, 503, 503]);
    const retried = await postLab(url, labEvent("evt_l0", "payment.approved", "ord_l1", "pay_l1", 1500000));
    assert.deepEqual([retried.status, retried.json.outcome], [200, "accepted"]);
  });
});
