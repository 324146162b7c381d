import { TEST_API_TOKEN } from "@/e2e/support/test-env";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { GET as getMetrics } from "@/app/api/metrics/route";
import { GET as getPrometheus } from "@/app/api/metrics/prometheus/route";
import { closeDb, db } from "@/lib/db/client";
import { driverOf, type DriverDb } from "@/lib/db/driver";
import { healthSummary } from "@/lib/health/health-summary";
import { latestBooksCheck } from "@/lib/monitoring/books-checks";
import { BooksCheckScheduler, runBooksCheckIfDue } from "@/lib/verification/books-check-schedule";
import { checkOrders } from "@/lib/verification/rebuild-orders";
import { latestBooksReport, reportSummary, verifyBooks } from "@/lib/verification/verify-books";
import { createOrder, deliverLab, labEvent, readOrder } from "@/e2e/support/http";
import { retryDeadLetter } from "@/lib/triage/retry-dead-letter";
import { charge, checkoutSession, deliverStripe, disputeObject, refundObject, stripeEvent } from "@/e2e/support/providers";
const DEFAULT_ORG = "org_default";

// Rebuild and compare on real books: orders paid, refunded, disputed (some of their events delivered in
// another order than the provider created them), a refund still waiting for its payment, then rows
// corrupted by hand. A check never corrects anything.
process.env.WEBHOOK_PROCESSING_MODE = "inline";
process.env.LAB_PROCESSING_MODE = "inline";
const SECRET = "whsec_verify_books_0001";
process.env.STRIPE_WEBHOOK_SECRET = SECRET;
process.env.STRIPE_ACCOUNT_ID = "acct_verify_books";

function send(id: string, type: string, object: Record<string, unknown>, created: number) {
  return deliverStripe(JSON.stringify(stripeEvent(id, type, object, { created })), { secret: SECRET });
}

const dispute = (status: string) => disputeObject({ id: "dp_vb", paymentIntent: "pi_vb_dispute", amount: 4_000, status, balanceTransactions: [] });

async function ledgerRows() {
  return (await db()).ledgerEntry.findMany({ orderBy: { businessKey: "asc" }, select: { businessKey: true, amount: true, orderId: true } });
}

before(async () => {
  // Lab: paid; paid then refunded in full; a refund waiting for its payment (dead-lettered, listed apart).
  for (const [id, amount] of [["ord_vb_paid", 150_000], ["ord_vb_refunded", 90_000], ["ord_vb_waiting", 30_000]] as const) assert.equal((await createOrder(id, amount)).status, 201);
  assert.equal((await deliverLab(labEvent("evt_vb_paid", "payment.approved", "ord_vb_paid", "pay_vb_paid", 150_000))).json.outcome, "applied");
  assert.equal((await deliverLab(labEvent("evt_vb_ref_a", "payment.approved", "ord_vb_refunded", "pay_vb_ref", 90_000))).json.outcome, "applied");
  assert.equal((await deliverLab(labEvent("evt_vb_ref_r", "payment.refunded", "ord_vb_refunded", "pay_vb_ref", 90_000))).json.outcome, "applied");
  assert.equal((await deliverLab(labEvent("evt_vb_wait_r", "payment.refunded", "ord_vb_waiting", "pay_vb_wait", 30_000))).status, 409);

  // Stripe: a dispute whose closing event arrived first, and a partial refund that failed.
  assert.equal((await createOrder("ord_vb_dispute", 4_000, "USD")).status, 201);
  assert.equal((await send("evt_vb_d_pay", "checkout.session.completed", checkoutSession({ id: "cs_vb_dispute", paymentIntent: "pi_vb_dispute", clientReferenceId: "ord_vb_dispute", amount: 4_000, currency: "usd" }), 1_764_390_000)).json.outcome, "applied");
  assert.equal((await send("evt_vb_d_close", "charge.dispute.closed", dispute("lost"), 1_764_400_300)).json.outcome, "applied");
  assert.equal((await send("evt_vb_d_withdraw", "charge.dispute.funds_withdrawn", dispute("needs_response"), 1_764_400_100)).json.outcome, "applied");
  assert.equal((await send("evt_vb_d_open", "charge.dispute.created", dispute("needs_response"), 1_764_400_000)).json.outcome, "duplicate");

  assert.equal((await createOrder("ord_vb_failed", 3_000, "USD")).status, 201);
  assert.equal((await send("evt_vb_f_pay", "checkout.session.completed", checkoutSession({ id: "cs_vb_failed", paymentIntent: "pi_vb_failed", clientReferenceId: "ord_vb_failed", amount: 3_000, currency: "usd" }), 1_764_390_000)).json.outcome, "applied");
  const refund = (status: string) => refundObject({ id: "re_vb_1", paymentIntent: "pi_vb_failed", amount: 1_000, status, created: 1_764_399_000 });
  assert.equal((await send("evt_vb_f_refunded", "charge.refunded", charge({ id: "ch_vb_failed", paymentIntent: "pi_vb_failed", amount: 3_000, amountRefunded: 1_000, currency: "usd", refunds: [refund("succeeded")] }), 1_764_399_100)).json.outcome, "applied");
  assert.equal((await send("evt_vb_f_failed", "charge.refund.updated", refund("failed"), 1_764_399_500)).json.outcome, "applied");

  // An order never paid: nothing to rebuild, its books agree.
  assert.equal((await createOrder("ord_vb_new", 5_000)).status, 201);
});
after(closeDb);

describe("rebuild and compare", () => {
  test("on a clean database the books agree for every order, and the refund still waiting is listed apart", async () => {
    const before = await ledgerRows();
    const report = await verifyBooks(await db(), DEFAULT_ORG, { batchSize: 2 });
    assert.deepEqual([report.orders, report.agreeing, report.differing, report.unverifiable, report.waiting], [6, 6, 0, 0, 1]);
    assert.equal(reportSummary(report), "books agree for 6 of 6 orders; 1 with events still pending or dead-lettered (listed apart)");
    assert.deepEqual(report.waitingOrders.map((order) => [order.orderId, order.events.map((event) => [event.eventId, event.status, event.storedEventId])]), [["ord_vb_waiting", [["evt_vb_wait_r", "dead", null]]]]);
    // The disputed order's status and entries came back from events applied in the provider's order, not their arrival.
    const [disputed] = await checkOrders(await db(), DEFAULT_ORG, ["ord_vb_dispute"]);
    assert.equal(disputed.verdict, "agree");
    assert.deepEqual(disputed.events.map((event) => event.eventId), ["evt_vb_d_pay", "evt_vb_d_open", "evt_vb_d_withdraw", "evt_vb_d_close"]);
    assert.deepEqual([disputed.books, disputed.rebuilt], [{ status: "dispute_lost", refunded: 0, disputed: 4_000 }, { status: "dispute_lost", refunded: 0, disputed: 4_000 }]);
    // With no time budget each order gets a transaction of its own (SQLite's connection is never held
    // for a whole batch), with a long one they share one; the answer is the same.
    const driver = driverOf(await db()) as { transaction: DriverDb["transaction"] };
    const original = driver.transaction;
    let transactions = 0;
    driver.transaction = ((inner) => {
      transactions++;
      return original.call(driver, inner);
    }) as DriverDb["transaction"];
    try {
      const ids = ["ord_vb_paid", "ord_vb_refunded", "ord_vb_dispute"];
      const split = await checkOrders(await db(), DEFAULT_ORG, ids, new Date(), 0);
      assert.equal(transactions, 3);
      assert.deepEqual(split.map((check) => [check.orderId, check.verdict]), ids.map((id) => [id, "agree"]));
      transactions = 0;
      await checkOrders(await db(), DEFAULT_ORG, ids, new Date(), 60_000);
      assert.equal(transactions, 1);
    } finally {
      driver.transaction = original;
    }
    // Nothing was kept of the rebuilds.
    assert.deepEqual(await ledgerRows(), before);
    assert.equal((await readOrder("ord_vb_dispute")).status, "dispute_lost");
  });

  test("hand-corrupted rows are reported, each with its events, and left as they are", async () => {
    const client = await db();
    await client.ledgerEntry.updateMany({ where: { businessKey: "credit:lab:lab:live:pay_vb_paid" }, data: { amount: 149_999 } });
    await client.ledgerEntry.deleteMany({ where: { businessKey: { startsWith: "refund:lab:lab:live:pay_vb_ref" } } });
    await client.ledgerEntry.create({ data: { businessKey: "credit:lab:lab:live:pay_vb_forged", orderId: "ord_vb_new", paymentKey: "pay_vb_forged", kind: "credit", amount: 5_000, currency: "ARS", provider: "lab", account: "lab", livemode: true, eventId: "evt_vb_forged" } });
    await client.order.update({ where: { organizationId_id: { organizationId: "org_default", id: "ord_vb_new" } }, data: { status: "paid" } });

    const report = await verifyBooks(client, DEFAULT_ORG);
    assert.deepEqual([report.orders, report.agreeing, report.differing], [6, 3, 3]);
    assert.equal(reportSummary(report), "books agree for 3 of 6 orders; 3 differ; 1 with events still pending or dead-lettered (listed apart)");
    const byOrder = Object.fromEntries(report.differences.map((check) => [check.orderId, check]));
    assert.deepEqual(Object.keys(byOrder).sort(), ["ord_vb_new", "ord_vb_paid", "ord_vb_refunded"]);
    assert.deepEqual(byOrder.ord_vb_paid.entries, [
      { kind: "amount", businessKey: "credit:lab:lab:live:pay_vb_paid", entryKind: "credit", currency: "ARS", books: 149_999, rebuilt: 150_000, eventIds: ["evt_vb_paid"] },
    ]);
    assert.deepEqual(
      byOrder.ord_vb_refunded.entries.map((entry) => [entry.kind, entry.entryKind, entry.books, entry.rebuilt, entry.eventIds]),
      [["missing", "refund", null, -90_000, ["evt_vb_ref_r"]]],
    );
    assert.deepEqual(byOrder.ord_vb_new.entries, [
      { kind: "extra", businessKey: "credit:lab:lab:live:pay_vb_forged", entryKind: "credit", currency: "ARS", books: 5_000, rebuilt: null, eventIds: ["evt_vb_forged"] },
    ]);
    assert.deepEqual([byOrder.ord_vb_new.books?.status, byOrder.ord_vb_new.rebuilt?.status], ["paid", "created"]);
    // Nothing corrected.
    assert.equal((await client.ledgerEntry.findUniqueOrThrow({ where: { businessKey: "credit:lab:lab:live:pay_vb_paid" } })).amount, 149_999);
    assert.equal(await client.ledgerEntry.count({ where: { businessKey: { startsWith: "refund:lab:lab:live:pay_vb_ref" } } }), 0);
    assert.equal((await client.order.findUniqueOrThrow({ where: { organizationId_id: { organizationId: "org_default", id: "ord_vb_new" } } })).status, "paid");

    // One order at a time, as `npm run verify-books -- --order <id>` asks.
    const one = await verifyBooks(client, DEFAULT_ORG, { orderIds: ["ord_vb_paid", "ord_vb_unknown"] });
    assert.deepEqual([one.orders, one.differing], [1, 1]);
  });

  test("an order whose applied event lost its payload to retention cannot be rebuilt, and says which event", async () => {
    const client = await db();
    await client.webhookEvent.updateMany({ where: { eventId: "evt_vb_f_failed" }, data: { payload: "", purgedAt: new Date() } });
    const [check] = await checkOrders(client, DEFAULT_ORG, ["ord_vb_failed"]);
    assert.equal(check.verdict, "unverifiable");
    assert.deepEqual(check.why, { code: "payload_purged", eventIds: ["evt_vb_f_failed"] });
  });

  test("the daily run records its counts once a day; the health strip and /api/metrics show the last one", async () => {
    const client = await db();
    assert.equal(await latestBooksCheck(client, DEFAULT_ORG), null);
    assert.equal((await healthSummary(client, DEFAULT_ORG)).books, null);
    const at = new Date("2026-12-02T03:00:00Z");
    const report = await runBooksCheckIfDue(client, { now: () => at });
    assert.ok(report);
    assert.deepEqual([report.orders, report.agreeing, report.differing, report.unverifiable, report.waiting], [6, 2, 3, 1, 1]);
    assert.equal(await runBooksCheckIfDue(client, { now: () => new Date(at.getTime() + 3_600_000) }), null);

    const last = await latestBooksCheck(client, DEFAULT_ORG);
    assert.deepEqual(last && { ...last, id: "" }, {
      id: "",
      trigger: "daily",
      status: "done",
      startedAt: "2026-12-02T03:00:00.000Z",
      finishedAt: "2026-12-02T03:00:00.000Z",
      ordersChecked: 6,
      ordersAgreeing: 2,
      ordersDiffering: 3,
      ordersWaiting: 1,
      ordersUnverifiable: 1,
      error: null,
    });
    assert.deepEqual((await latestBooksReport(client, DEFAULT_ORG))?.report.differences.map((check) => check.orderId).sort(), ["ord_vb_new", "ord_vb_paid", "ord_vb_refunded"]);
    assert.deepEqual((await healthSummary(client, DEFAULT_ORG)).books, last);

    const response = await getMetrics(new Request("http://127.0.0.1/api/metrics", { headers: { authorization: `Bearer ${TEST_API_TOKEN}` } }));
    const metrics = await response.json();
    assert.deepEqual(metrics.books, { checkedAt: "2026-12-02T03:00:00.000Z", orders: 6, agreeing: 2, differing: 3, unverifiable: 1, waiting: 1 });

    const prometheus = await (await getPrometheus(new Request("http://127.0.0.1/api/metrics/prometheus", { headers: { authorization: `Bearer ${TEST_API_TOKEN}` } }))).text();
    for (const line of ['acredita_books_orders{verdict="agreeing"} 2', 'acredita_books_orders{verdict="differing"} 3', 'acredita_books_orders{verdict="unverifiable"} 1', 'acredita_books_orders{verdict="waiting"} 1', `acredita_books_checked_timestamp_seconds ${at.getTime() / 1000}`]) {
      assert.ok(prometheus.split("\n").includes(line), line);
    }

    // A failed check does not count: the next look tries again.
    await client.booksCheck.create({ data: { id: "bc_failed", startedAt: new Date(at.getTime() + 86_400_000), trigger: "daily", status: "failed", error: "database unavailable" } });
    // A day later it is due again.
    assert.ok(await runBooksCheckIfDue(client, { now: () => new Date(at.getTime() + 86_400_000) }));
    assert.equal(await client.booksCheck.count({ where: { status: "done" } }), 2);
    await client.booksCheck.delete({ where: { id: "bc_failed" } });
  });

  test("the worker's scheduler skips its first look at start, then checks when a day has passed", async () => {
    const client = await db();
    const later = new Date("2026-12-05T03:00:00Z");
    // Started and stopped before its second look: nothing ran, although a check is due.
    const quick = new BooksCheckScheduler(db, { checkEveryMs: 60_000, now: () => later });
    quick.start();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await quick.stop();
    assert.equal(await client.booksCheck.count(), 2);
    const scheduler = new BooksCheckScheduler(db, { checkEveryMs: 30, now: () => later });
    scheduler.start();
    try {
      for (let waited = 0; (await client.booksCheck.count()) === 2; waited += 30) {
        assert.ok(waited < 30_000, "no check recorded after 30 s");
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
    } finally {
      await scheduler.stop();
    }
    const checks = await client.booksCheck.findMany({ orderBy: { startedAt: "asc" }, select: { trigger: true, status: true, startedAt: true } });
    assert.deepEqual(checks.map((check) => [check.trigger, check.status]), [["daily", "done"], ["daily", "done"], ["daily", "done"]]);
    assert.equal(checks[2].startedAt.toISOString(), later.toISOString());
  });
});

describe("a refund the provider's clock puts before its payment", () => {
  test("rebuilt as the inbox applies it, after the payment, the books agree (the lab's refund-before-approval scenario)", async () => {
    assert.equal((await createOrder("ord_vb_clock", 15_000)).status, 201);
    const body = (id: string, type: string, created: number) => JSON.stringify({ id, type, created, data: { payment_id: "pay_vb_clock", order_id: "ord_vb_clock", amount: 15_000, currency: "ARS" } });
    // The refund is created (and delivered) first: it waits for the payment; the approval comes later.
    assert.equal((await deliverLab(body("evt_vb_clock_r", "payment.refunded", 1_760_181_300))).status, 409);
    assert.equal((await deliverLab(body("evt_vb_clock_a", "payment.approved", 1_760_181_330))).json.outcome, "applied");
    const [letter] = await (await db()).deadLetter.findMany({ where: { eventId: "evt_vb_clock_r" }, select: { id: true } });
    assert.equal((await retryDeadLetter(await db(), DEFAULT_ORG, letter.id, "support@verify-books.test")).outcome, "applied");
    assert.equal((await readOrder("ord_vb_clock")).status, "refunded");

    const [check] = await checkOrders(await db(), DEFAULT_ORG, ["ord_vb_clock"]);
    assert.deepEqual(check.events.map((event) => event.eventId), ["evt_vb_clock_r", "evt_vb_clock_a"]);
    assert.deepEqual([check.verdict, check.refused, check.rebuilt], ["agree", [], { status: "refunded", refunded: 15_000, disputed: 0 }]);
  });
});
