import "@/e2e/support/test-env";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { closeDb, db } from "@/lib/db/client";
import { InboxWorker } from "@/lib/inbox/inbox-worker";
import { createOrder, deliverLab, labEvent, readOrder } from "@/e2e/support/http";
import { holdWriteLock } from "@/e2e/support/sql-reader";
import { TEST_DB } from "@/e2e/support/test-env";

// Inbox mode for the lab endpoint (read per request), and a short busy timeout (SQLite) and statement
// timeout (PostgreSQL) so a locked database answers 503 quickly (settings are read on first use, after
// these lines).
process.env.LAB_PROCESSING_MODE = "inbox";
process.env.DATABASE_BUSY_TIMEOUT_MS = "100";
process.env.DATABASE_STATEMENT_TIMEOUT_MS = "300";

const policy = { baseDelayMs: 60_000, maxDelayMs: 600_000, maxAttempts: 5, maxAgeSeconds: 86_400 };
const worker = () => new InboxWorker(db, { policy, leaseMs: 30_000, random: () => 0.5 });

before(async () => {
  for (const [id, amount] of [["ord_a", 2500000], ["ord_b", 1850000], ["ord_c", 4200000], ["ord_d", 3000000]] as const) {
    assert.equal((await createOrder(id, amount)).status, 201);
  }
});
after(closeDb);

async function decisionsOf(eventId: string) {
  return (await db()).decision.findMany({ where: { eventId }, orderBy: { at: "asc" }, select: { outcome: true, httpStatus: true, source: true } });
}

describe("inbox mode: store first, acknowledge, apply in a worker", () => {
  test("a delivery is stored and answered 200 accepted; nothing is applied until the worker runs, then once", async () => {
    const body = labEvent("evt_a1", "payment.approved", "ord_a", "pay_a1", 2500000);
    const first = await deliverLab(body);
    assert.equal(first.status, 200);
    assert.deepEqual(first.json, { outcome: "accepted", reason: "event evt_a1 stored in the inbox; a worker applies it" });
    const stored = await (await db()).webhookEvent.findFirstOrThrow({ where: { eventId: "evt_a1" } });
    assert.equal(stored.status, "received");
    assert.equal(stored.attempts, 0);
    assert.equal(stored.payload.includes("Lab-Signature"), false);
    assert.deepEqual(JSON.parse(stored.payload).effect, { kind: "payment", paymentKey: "pay_a1", orderRef: { orderId: "ord_a" }, amount: 2500000, currency: "ARS" });
    assert.equal((await readOrder("ord_a")).status, "created");

    const again = await deliverLab(body, { timestamp: Math.floor(Date.now() / 1000) + 3 });
    assert.equal(again.status, 200);
    assert.deepEqual(again.json, { outcome: "duplicate", reason: "event evt_a1 already stored (status received); nothing changed" });

    const results = await worker().drain();
    assert.deepEqual(results.map((result) => result.kind), ["applied"]);
    const order = await readOrder("ord_a");
    assert.equal(order.status, "paid");
    assert.equal(order.credited, 2500000);
    assert.deepEqual(order.ledger.map((entry) => entry.businessKey), ["credit:lab:lab:live:pay_a1"]);
    const processed = await (await db()).webhookEvent.findFirstOrThrow({ where: { eventId: "evt_a1" } });
    assert.equal(processed.status, "processed");
    assert.equal(processed.attempts, 1);
    assert.equal(processed.leaseOwner, null);

    const late = await deliverLab(body, { timestamp: Math.floor(Date.now() / 1000) + 6 });
    assert.deepEqual(late.json, { outcome: "duplicate", reason: "event evt_a1 already stored (status processed); nothing changed" });
    assert.deepEqual(await decisionsOf("evt_a1"), [
      { outcome: "accepted", httpStatus: 200, source: "receiver" },
      { outcome: "duplicate", httpStatus: 200, source: "receiver" },
      { outcome: "applied", httpStatus: null, source: "worker" },
      { outcome: "duplicate", httpStatus: 200, source: "receiver" },
    ]);
    assert.equal((await worker().drain()).length, 0);
  });

  test("20 concurrent deliveries of one event: 1 accepted, 19 duplicates, one credit", async () => {
    const body = labEvent("evt_b1", "payment.approved", "ord_b", "pay_b1", 1850000);
    const answers = await Promise.all(Array.from({ length: 20 }, () => deliverLab(body)));
    assert.equal(answers.filter((answer) => answer.status === 200 && answer.json.outcome === "accepted").length, 1);
    assert.equal(answers.filter((answer) => answer.status === 200 && answer.json.outcome === "duplicate").length, 19);
    assert.deepEqual((await worker().drain()).map((result) => result.kind), ["applied"]);
    const order = await readOrder("ord_b");
    assert.equal(order.credited, 1850000);
    assert.equal(order.ledger.length, 1);
  });

  test("an event id reused with another body is a conflict: 409, dead-lettered, the stored event kept", async () => {
    const original = labEvent("evt_c1", "payment.approved", "ord_c", "pay_c1", 4200000);
    assert.equal((await deliverLab(original)).status, 200);
    const forged = labEvent("evt_c1", "payment.approved", "ord_c", "pay_c1", 1);
    const answer = await deliverLab(forged);
    assert.equal(answer.status, 409);
    assert.deepEqual(answer.json, { outcome: "dead_lettered", reason: "event id evt_c1 reused with a different signed body; the stored event was kept" });
    const letters = await (await db()).deadLetter.findMany({ where: { eventId: "evt_c1" } });
    assert.equal(letters.length, 1);
    assert.equal(letters[0].category, "conflict");
    assert.deepEqual((await worker().drain()).map((result) => result.kind), ["applied"]);
    assert.equal((await readOrder("ord_c")).credited, 4200000);
  });

  test("when the database cannot store the event the answer is 503 and nothing is stored; the provider's retry is accepted", async () => {
    const lock = await holdWriteLock(TEST_DB);
    const body = labEvent("evt_d1", "payment.approved", "ord_d", "pay_d1", 3000000);
    let refused;
    try {
      refused = await deliverLab(body);
    } finally {
      await lock.release();
    }
    assert.equal(refused.status, 503);
    assert.deepEqual(refused.json, { outcome: "rejected", reason: "database unavailable, event not stored; retry later" });
    assert.equal(await (await db()).webhookEvent.count({ where: { eventId: "evt_d1" } }), 0);

    const retried = await deliverLab(body);
    assert.equal(retried.status, 200);
    assert.equal(retried.json.outcome, "accepted");
    assert.deepEqual((await worker().drain()).map((result) => result.kind), ["applied"]);
    assert.equal((await readOrder("ord_d")).credited, 3000000);
  });
});
