import "@/e2e/support/test-env";
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { closeDb, db, type Db } from "@/lib/db/client";
import { inboxGroupCommit, InboxGroupCommit } from "@/lib/ingest/inbox-group-commit";
import { storeInInbox } from "@/lib/ingest/store-inbox-event";
import { resolveEndpoint } from "@/lib/endpoints/endpoints";
import type { VerifiedDelivery } from "@/lib/ingest/delivery";
import { deliverLab, labEvent } from "@/e2e/support/http";
import { driverOf, type DriverDb } from "@/lib/db/driver";

process.env.LAB_PROCESSING_MODE = "inbox";
process.env.INBOX_WORKER_IN_PROCESS = "false";

after(closeDb);

/** A verified lab delivery as the receiver hands it to the inbox (what verify + parse produce). */
function labDelivery(eventId: string, bodyHash = `hash-${eventId}`): VerifiedDelivery {
  const endpoint = resolveEndpoint("lab");
  assert.ok(endpoint);
  return {
    endpoint,
    bodyHash,
    event: { eventId, type: "payment.approved", livemode: endpoint.livemode, effect: { kind: "payment", paymentKey: `pay_${eventId}`, orderRef: { orderId: `ord_${eventId}` }, amount: 1000, currency: "ARS" } },
  } as VerifiedDelivery;
}

/** `db` with its driver transactions counted, the first `failFirst` of them refused and the first `hangFirst` never ending. */
function countingDb(client: Db, failFirst = 0, hangFirst = 0): { db: Db; transactions: () => number } {
  let transactions = 0;
  // The group commit's transactions run on the driver attached to the client (lib/db/driver.ts).
  const driver = driverOf(client);
  const counting: DriverDb = {
    dialect: driver.dialect,
    all: (sql, params) => driver.all(sql, params),
    transaction: (work) => {
      transactions++;
      if (transactions <= failFirst) return Promise.reject(new Error("simulated: database is locked"));
      if (transactions <= hangFirst) return new Promise(() => {});
      return driver.transaction(work);
    },
  };
  // The client's own driver property is read-only: the proxy stands on an empty target and reads the rest from the client.
  const wrapped = new Proxy({} as Db, {
    get(_target, property) {
      if (property === Symbol.for("acredita.driver")) return counting;
      return Reflect.get(client, property, client);
    },
  });
  return { db: wrapped, transactions: () => transactions };
}

describe("inbox group commit: concurrent deliveries share one transaction and one commit", () => {
  test("60 concurrent deliveries through the route handler: 40 accepted, 15 duplicates, 5 conflicts; 40 events and 40 accepted decisions", async () => {
    const client = await db();
    const before = inboxGroupCommit(client).stats();
    const sends: Promise<{ status: number; json: { outcome: string; reason: string } }>[] = [];
    for (let i = 0; i < 40; i++) sends.push(deliverLab(labEvent(`evt_gc_${i}`, "payment.approved", `ord_gc_${i}`, `pay_gc_${i}`, 1000)));
    for (let i = 0; i < 15; i++) sends.push(deliverLab(labEvent(`evt_gc_${i}`, "payment.approved", `ord_gc_${i}`, `pay_gc_${i}`, 1000)));
    for (let i = 15; i < 20; i++) sends.push(deliverLab(labEvent(`evt_gc_${i}`, "payment.approved", `ord_gc_${i}`, `pay_gc_${i}`, 9999)));
    const answers = await Promise.all(sends);

    assert.deepEqual(answers.slice(0, 40).map((answer) => [answer.status, answer.json.outcome]), Array.from({ length: 40 }, () => [200, "accepted"]));
    assert.deepEqual(answers.slice(40, 55).map((answer) => [answer.status, answer.json.outcome]), Array.from({ length: 15 }, () => [200, "duplicate"]));
    assert.deepEqual(answers.slice(55).map((answer) => [answer.status, answer.json.outcome]), Array.from({ length: 5 }, () => [409, "dead_lettered"]));
    assert.equal(answers[0].json.reason, "event evt_gc_0 stored in the inbox; a worker applies it");
    assert.equal(answers[40].json.reason, "event evt_gc_0 already stored (status received); nothing changed");

    const ids = { startsWith: "evt_gc_" };
    assert.equal(await client.webhookEvent.count({ where: { eventId: ids, status: "received" } }), 40);
    assert.equal(await client.decision.count({ where: { eventId: ids, outcome: "accepted", httpStatus: 200 } }), 40);
    assert.equal(await client.decision.count({ where: { eventId: ids, outcome: "duplicate" } }), 15);
    assert.equal(await client.decision.count({ where: { eventId: ids, outcome: "dead_lettered", httpStatus: 409 } }), 5);
    assert.equal(await client.deadLetter.count({ where: { eventId: ids, status: "open" } }), 5);
    // Every stored event kept the body it was first stored with (the conflicting copies changed nothing).
    const conflicted = await client.webhookEvent.findFirstOrThrow({ where: { eventId: "evt_gc_15" } });
    assert.equal(JSON.parse(conflicted.payload).effect.amount, 1000);

    const after = inboxGroupCommit(client).stats();
    // The 60 reads finish within a few turns of the event loop: far fewer batches than deliveries.
    assert.ok(after.batches - before.batches <= 10, `batches: ${after.batches - before.batches}`);
    assert.equal(after.stored - before.stored, 40);
    assert.equal(after.existing - before.existing, 20);
    assert.equal(after.failedBatches, before.failedBatches);
  });

  test("deliveries queued in one turn are one batch: 25 deliveries, batches of at most 10 -> 3 transactions; a key repeated in a batch is stored once and answered duplicate", async () => {
    const counted = countingDb(await db());
    const batcher = new InboxGroupCommit(counted.db, 10);
    const deliveries = Array.from({ length: 24 }, (_, i) => labDelivery(`evt_gb_${i}`));
    deliveries.splice(3, 0, labDelivery("evt_gb_0"));
    const outcomes = await Promise.all(deliveries.map((delivery) => batcher.store(delivery, new Date())));
    assert.equal(counted.transactions(), 3);
    assert.deepEqual(outcomes.filter((outcome) => outcome.kind === "stored").length, 24);
    assert.deepEqual(outcomes[3], { kind: "duplicate", status: "received", orderId: "ord_evt_gb_0" });
    assert.deepEqual(batcher.stats(), { batches: 3, failedBatches: 0, stored: 24, existing: 1 });
    assert.equal(await (await db()).webhookEvent.count({ where: { eventId: { startsWith: "evt_gb_" } } }), 24);
    // In the order the timeline shows them: (at, id).
    assert.deepEqual(await (await db()).decision.findMany({ where: { eventId: "evt_gb_0" }, orderBy: [{ at: "asc" }, { id: "asc" }], select: { outcome: true, httpStatus: true, reason: true } }), [
      { outcome: "accepted", httpStatus: 200, reason: "event evt_gb_0 stored in the inbox; a worker applies it" },
      { outcome: "duplicate", httpStatus: 200, reason: "event evt_gb_0 already stored (status received); nothing changed" },
    ]);
  });

  test("a failed batch stores nothing and its deliveries are stored one by one: every one answered accepted exactly once", async () => {
    const counted = countingDb(await db(), 1);
    const deliveries = Array.from({ length: 12 }, (_, i) => labDelivery(`evt_gf_${i}`));
    const answers = await Promise.all(deliveries.map((delivery) => storeInInbox(counted.db, delivery)));
    assert.deepEqual(answers.map((answer) => [answer.httpStatus, answer.outcome]), Array.from({ length: 12 }, () => [200, "accepted"]));
    // 1 failed batch + 12 single transactions.
    assert.equal(counted.transactions(), 13);
    assert.deepEqual(inboxGroupCommit(counted.db).stats(), { batches: 0, failedBatches: 1, stored: 0, existing: 0 });
    const client = await db();
    assert.equal(await client.webhookEvent.count({ where: { eventId: { startsWith: "evt_gf_" } } }), 12);
    assert.equal(await client.decision.count({ where: { eventId: { startsWith: "evt_gf_" }, outcome: "accepted" } }), 12);
  });

  test("a batch that hangs is answered failed after stallMs and the next batch is still committed", async () => {
    const counted = countingDb(await db(), 0, 1);
    const batcher = new InboxGroupCommit(counted.db, 10, 300);
    const started = Date.now();
    const hung = await Promise.all([labDelivery("evt_gh_0"), labDelivery("evt_gh_1")].map((delivery) => batcher.store(delivery, new Date())));
    assert.deepEqual(hung, [{ kind: "failed" }, { kind: "failed" }]);
    assert.ok(Date.now() - started >= 290, "answered before the stall limit");
    assert.deepEqual(await batcher.store(labDelivery("evt_gh_2"), new Date()), { kind: "stored" });
    assert.deepEqual(batcher.stats(), { batches: 1, failedBatches: 1, stored: 1, existing: 0 });
    assert.equal(await (await db()).webhookEvent.count({ where: { eventId: { startsWith: "evt_gh_" } } }), 1);
  });
});
