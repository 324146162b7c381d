import "@/e2e/support/test-env";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { closeDb, db } from "@/lib/db/client";
import { applyClaimedEvent } from "@/lib/inbox/apply-claimed-events";
import { claimNextInboxEvent } from "@/lib/events/webhook-events";
import { InboxWorker } from "@/lib/inbox/inbox-worker";
import type { RetryPolicy } from "@/lib/jobs/retry-policy";
import { TestClock } from "@/e2e/support/clock";
import { createOrder, deliverLab, labEvent, readOrder } from "@/e2e/support/http";

process.env.LAB_PROCESSING_MODE = "inbox";

const policy: RetryPolicy = { baseDelayMs: 60_000, maxDelayMs: 600_000, maxAttempts: 3, maxAgeSeconds: 86_400 };

before(async () => {
  for (const [id, amount] of [["ord_early", 1500000], ["ord_bad", 2000000], ["ord_lease", 1000000]] as const) {
    assert.equal((await createOrder(id, amount)).status, 201);
  }
});
after(closeDb);

async function eventRow(eventId: string) {
  return (await db()).webhookEvent.findFirstOrThrow({ where: { eventId } });
}

async function outcomesOf(eventId: string): Promise<string[]> {
  const rows = await (await db()).decision.findMany({ where: { eventId, source: "worker" }, orderBy: { at: "asc" }, select: { outcome: true } });
  return rows.map((row) => row.outcome);
}

describe("inbox worker", () => {
  test("a refund before its approval is parked, then applied as soon as the approval lands (not on its timer)", async () => {
    const clock = new TestClock();
    const worker = new InboxWorker(db, { policy, now: clock.now, random: () => 0.5 });
    assert.equal((await deliverLab(labEvent("evt_r5", "payment.refunded", "ord_early", "pay_e", 1500000))).json.outcome, "accepted");

    const parked = await worker.runOnce();
    assert.equal(parked?.kind, "retry_scheduled");
    const row = await eventRow("evt_r5");
    assert.equal(row.status, "failed");
    assert.equal(row.attempts, 1);
    assert.equal(row.lastError, "no transition from created on payment.refunded for order ord_early: payment pay_e was never credited");
    // First retry after 45 s (base 60 s, equal jitter with random 0.5): far beyond this test's run.
    const parkedFor = row.nextAttemptAt!.getTime() - row.firstFailedAt!.getTime();
    assert.equal(parkedFor, 45_000);
    assert.equal(await worker.runOnce(), null);
    assert.equal(await (await db()).deadLetter.count({ where: { eventId: "evt_r5" } }), 0);

    assert.equal((await deliverLab(labEvent("evt_a4", "payment.approved", "ord_early", "pay_e", 1500000))).json.outcome, "accepted");
    const results = await worker.drain();
    assert.deepEqual(results.map((result) => result.kind), ["applied", "applied"]);
    const order = await readOrder("ord_early");
    assert.equal(order.status, "refunded");
    assert.equal(order.credited, 0);
    assert.deepEqual(order.ledger.map((entry) => [entry.businessKey, entry.amount]), [["credit:lab:lab:live:pay_e", 1500000], ["refund:lab:lab:live:pay_e:total:1500000:at:1760181330", -1500000]]);
    assert.deepEqual(await outcomesOf("evt_r5"), ["retry_scheduled", "applied"]);
    const refund = await eventRow("evt_r5");
    assert.equal(refund.status, "processed");
    assert.equal(refund.attempts, 2);
  });

  test("a non-retryable failure (amount mismatch) becomes a dead letter on its first attempt", async () => {
    const worker = new InboxWorker(db, { policy, random: () => 0.5 });
    await deliverLab(labEvent("evt_bad1", "payment.approved", "ord_bad", "pay_bad1", 1999999));
    const result = await worker.runOnce();
    assert.deepEqual(result, { kind: "dead_lettered", category: "amount_mismatch", reason: "amount mismatch for order ord_bad: payment 1999999, order 2000000 (ARS minor units)" });
    const letter = await (await db()).deadLetter.findFirstOrThrow({ where: { eventId: "evt_bad1" } });
    assert.equal(letter.category, "amount_mismatch");
    assert.equal(letter.attempts, 1);
    assert.equal(letter.retryable, false);
    assert.equal(letter.status, "open");
    assert.equal(letter.nextAction, "review the payment against the order; refund or correct the order");
    assert.equal((await eventRow("evt_bad1")).status, "dead");
    assert.deepEqual(await outcomesOf("evt_bad1"), ["dead_lettered"]);
    assert.equal((await readOrder("ord_bad")).credited, 0);
  });

  test("a retryable failure is retried with backoff and becomes a dead letter after the maximum attempts", async () => {
    const clock = new TestClock();
    const worker = new InboxWorker(db, { policy, now: clock.now, random: () => 0 });
    await deliverLab(labEvent("evt_lost", "payment.approved", "ord_missing", "pay_lost", 100));
    const kinds: string[] = [];
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      const result = await worker.runOnce();
      kinds.push(result?.kind ?? "none");
      if (result?.kind === "retry_scheduled") {
        delays.push(result.delayMs);
        assert.equal(await worker.runOnce(), null, "not due before its next attempt");
        clock.advance(600_000);
      }
    }
    assert.deepEqual(kinds, ["retry_scheduled", "retry_scheduled", "dead_lettered"]);
    // random 0 (equal jitter's lower bound): half of 60 s, then half of 120 s.
    assert.deepEqual(delays, [30_000, 60_000]);
    const letter = await (await db()).deadLetter.findFirstOrThrow({ where: { eventId: "evt_lost" } });
    assert.equal(letter.category, "retries_exhausted");
    assert.equal(letter.attempts, 3);
    assert.equal(letter.reason, "gave up after 3 attempts (max 3); last error: unknown order ord_missing");
    assert.equal(letter.firstFailedAt.getTime(), (await eventRow("evt_lost")).firstFailedAt!.getTime());
    assert.ok(letter.lastFailedAt.getTime() - letter.firstFailedAt.getTime() >= 1_200_000);
    assert.deepEqual(await outcomesOf("evt_lost"), ["retry_scheduled", "retry_scheduled", "dead_lettered"]);
    assert.equal((await eventRow("evt_lost")).status, "dead");
  });

  test("a retryable failure older than the maximum age becomes a dead letter at once", async () => {
    const clock = new TestClock();
    const worker = new InboxWorker(db, { policy: { ...policy, maxAgeSeconds: 60 }, now: clock.now });
    await deliverLab(labEvent("evt_old", "payment.approved", "ord_gone", "pay_old", 100));
    clock.advance(61_000);
    const result = await worker.runOnce();
    assert.equal(result?.kind, "dead_lettered");
    const letter = await (await db()).deadLetter.findFirstOrThrow({ where: { eventId: "evt_old" } });
    assert.equal(letter.category, "retries_exhausted");
    const match = /^gave up after 1 attempts: event is (\d+) s old \(max 60 s\); last error: unknown order ord_gone$/.exec(letter.reason);
    assert.ok(match && Number(match[1]) >= 61, letter.reason);
    assert.equal(letter.attempts, 1);
  });

  test("an expired lease is taken over; the first worker's late apply is refused, so the event applies once", async () => {
    const clock = new TestClock();
    const b = new InboxWorker(db, { owner: "worker-b", policy, leaseMs: 5_000, now: clock.now });
    await deliverLab(labEvent("evt_l1", "payment.approved", "ord_lease", "pay_l1", 1000000));
    const held = await claimNextInboxEvent(await db(), "worker-a", clock.now(), 5_000);
    assert.equal(held?.eventId, "evt_l1");
    assert.equal(await b.runOnce(), null, "a live lease keeps the event away from other workers");
    clock.advance(5_001);
    const takeover = await b.runOnce();
    assert.equal(takeover?.kind, "applied");
    const late = await applyClaimedEvent(await db(), held!, { owner: "worker-a", policy, now: clock.now });
    assert.deepEqual(late, { kind: "lease_lost" });
    const order = await readOrder("ord_lease");
    assert.equal(order.credited, 1000000);
    assert.equal(order.ledger.length, 1);
    assert.equal((await eventRow("evt_l1")).attempts, 2);
    assert.deepEqual(await outcomesOf("evt_l1"), ["applied"]);
  });

  test("four workers draining 60 events at once apply each exactly once", async () => {
    for (let i = 0; i < 30; i++) assert.equal((await createOrder(`ord_w${i}`, 1000 + i)).status, 201);
    const bodies = Array.from({ length: 30 }, (_, i) => [
      labEvent(`evt_wa${i}`, "payment.approved", `ord_w${i}`, `pay_w${i}`, 1000 + i),
      labEvent(`evt_wr${i}`, "payment.refunded", `ord_w${i}`, `pay_w${i}`, 1000 + i),
    ]).flat();
    for (const body of bodies) assert.equal((await deliverLab(body)).json.outcome, "accepted");
    const workers = Array.from({ length: 4 }, (_, i) => new InboxWorker(db, { owner: `parallel-${i}`, policy: { ...policy, baseDelayMs: 1, maxDelayMs: 1 } }));
    // Refunds claimed before their approval are parked for 1 ms: drain until nothing is left.
    for (let round = 0; round < 20; round++) {
      await Promise.all(workers.map((worker) => worker.drain()));
      if ((await (await db()).webhookEvent.count({ where: { eventId: { startsWith: "evt_w" }, status: { not: "processed" } } })) === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const database = await db();
    assert.equal(await database.webhookEvent.count({ where: { eventId: { startsWith: "evt_w" }, status: "processed" } }), 60);
    assert.equal(await database.decision.count({ where: { eventId: { startsWith: "evt_w" }, outcome: "applied" } }), 60);
    assert.equal(await database.ledgerEntry.count({ where: { orderId: { startsWith: "ord_w" } } }), 60);
    assert.equal(await database.order.count({ where: { id: { startsWith: "ord_w" }, status: "refunded" } }), 30);
  });

  test("stop() finishes the event in hand and leaves no lease behind", async () => {
    assert.equal((await createOrder("ord_stop", 700)).status, 201);
    await deliverLab(labEvent("evt_stop", "payment.approved", "ord_stop", "pay_stop", 700));
    const worker = new InboxWorker(db, { policy, pollIntervalMs: 20 });
    worker.start();
    while ((await eventRow("evt_stop")).status !== "processed") await new Promise((resolve) => setTimeout(resolve, 10));
    await worker.stop();
    assert.equal(await (await db()).webhookEvent.count({ where: { leaseOwner: { not: null } } }), 0);
    assert.equal((await readOrder("ord_stop")).credited, 700);
  });
});
