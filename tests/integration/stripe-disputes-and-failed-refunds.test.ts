import "@/e2e/support/test-env";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { closeDb } from "@/lib/db/client";
import { createOrder, readOrder } from "@/e2e/support/http";
import { charge, checkoutSession, deliverStripe, stripeEvent } from "@/e2e/support/providers";

// Disputes and failed refunds as Stripe reports them (docs.stripe.com/api/disputes/object,
// docs.stripe.com/api/refunds/object), applied inline so each answer shows what was applied.
process.env.WEBHOOK_PROCESSING_MODE = "inline";
const SECRET = "whsec_stripe_disputes_0001";
process.env.STRIPE_WEBHOOK_SECRET = SECRET;
process.env.STRIPE_ACCOUNT_ID = "acct_stripe_disputes";

function send(id: string, type: string, object: Record<string, unknown>) {
  return deliverStripe(JSON.stringify(stripeEvent(id, type, object)), { secret: SECRET });
}

function dispute(fields: { id: string; paymentIntent: string; amount: number; currency?: string; status: string }): Record<string, unknown> {
  return { id: fields.id, object: "dispute", amount: fields.amount, currency: fields.currency ?? "usd", charge: `ch_${fields.paymentIntent}`, payment_intent: fields.paymentIntent, status: fields.status, reason: "fraudulent", livemode: true, balance_transactions: [] };
}

function refund(fields: { id: string; paymentIntent: string; amount: number; status: string }): Record<string, unknown> {
  return { id: fields.id, object: "refund", amount: fields.amount, currency: "usd", charge: `ch_${fields.paymentIntent}`, payment_intent: fields.paymentIntent, status: fields.status, metadata: {} };
}

async function pay(orderId: string, paymentIntent: string, amount: number) {
  assert.equal((await createOrder(orderId, amount, "USD")).status, 201);
  const paid = await send(`evt_pay_${orderId}`, "checkout.session.completed", checkoutSession({ id: `cs_${orderId}`, paymentIntent, clientReferenceId: orderId, amount, currency: "usd" }));
  assert.equal(paid.json.outcome, "applied");
}

async function ledgerOf(orderId: string) {
  const order = await readOrder(orderId);
  return { status: order.status, credited: order.credited, refunded: order.refunded, disputed: order.disputed, entries: order.ledger.map((entry) => [entry.kind, entry.amount, entry.businessKey]) };
}

before(async () => {
  await pay("ord_d_lost", "pi_d_lost", 4_000);
  await pay("ord_d_won", "pi_d_won", 2_500);
  await pay("ord_d_unordered", "pi_d_unordered", 1_000);
  await pay("ord_r_failed", "pi_r_failed", 3_000);
  await pay("ord_r_full", "pi_r_full", 1_200);
  await pay("ord_d_over", "pi_d_over", 5_000);
  await pay("ord_d_under", "pi_d_under", 5_000);
});
after(closeDb);

const key = (rest: string) => `${rest.split(" ")[0]}:stripe:acct_stripe_disputes:live:${rest.split(" ")[1]}`;

describe("Stripe disputes", () => {
  test("opened, funds withdrawn, closed lost: the order ends dispute_lost and its ledger sums to zero", async () => {
    const opened = await send("evt_dp_lost_1", "charge.dispute.created", dispute({ id: "dp_lost", paymentIntent: "pi_d_lost", amount: 4_000, status: "needs_response" }));
    assert.deepEqual([opened.status, opened.json], [200, { outcome: "applied", reason: "dispute dp_lost opened for 4000 USD; order ord_d_lost paid -> disputed" }]);
    const withdrawn = await send("evt_dp_lost_2", "charge.dispute.funds_withdrawn", dispute({ id: "dp_lost", paymentIntent: "pi_d_lost", amount: 4_000, status: "needs_response" }));
    assert.deepEqual([withdrawn.status, withdrawn.json.reason], [200, "dispute dp_lost: 4000 USD withdrawn; order ord_d_lost disputed -> disputed"]);
    const lost = await send("evt_dp_lost_3", "charge.dispute.closed", dispute({ id: "dp_lost", paymentIntent: "pi_d_lost", amount: 4_000, status: "lost" }));
    assert.deepEqual([lost.status, lost.json.reason], [200, "dispute dp_lost lost; order ord_d_lost disputed -> dispute_lost"]);
    assert.deepEqual(await ledgerOf("ord_d_lost"), {
      status: "dispute_lost",
      credited: 0,
      refunded: 0,
      disputed: 4_000,
      entries: [
        ["credit", 4_000, key("credit pi_d_lost")],
        ["dispute_withdrawal", -4_000, `${key("dispute pi_d_lost")}:dp_lost:withdrawn`],
      ],
    });
  });

  test("won: the funds come back once and the order is paid again", async () => {
    const dp = (status: string) => dispute({ id: "dp_won", paymentIntent: "pi_d_won", amount: 2_500, status });
    assert.equal((await send("evt_dp_won_1", "charge.dispute.created", dp("needs_response"))).json.outcome, "applied");
    assert.equal((await send("evt_dp_won_2", "charge.dispute.funds_withdrawn", dp("needs_response"))).json.outcome, "applied");
    const reinstated = await send("evt_dp_won_3", "charge.dispute.funds_reinstated", dp("won"));
    assert.deepEqual(reinstated.json, { outcome: "applied", reason: "dispute dp_won: 2500 USD reinstated; order ord_d_won stays disputed" });
    const again = await send("evt_dp_won_3b", "charge.dispute.funds_reinstated", dp("won"));
    assert.deepEqual(again.json, { outcome: "duplicate", reason: "dispute dp_won reinstatement already booked" });
    const won = await send("evt_dp_won_4", "charge.dispute.closed", dp("won"));
    assert.deepEqual(won.json.reason, "dispute dp_won won; order ord_d_won disputed -> paid");
    const ledger = await ledgerOf("ord_d_won");
    assert.deepEqual([ledger.status, ledger.credited, ledger.disputed, ledger.entries.length], ["paid", 2_500, 0, 3]);
  });

  test("out of order: the closing event waits for the opening, and the withdrawal may come first", async () => {
    const dp = (status: string) => dispute({ id: "dp_unordered", paymentIntent: "pi_d_unordered", amount: 1_000, status });
    const closedFirst = await send("evt_dp_un_close", "charge.dispute.closed", dp("lost"));
    assert.deepEqual([closedFirst.status, closedFirst.json], [409, { outcome: "dead_lettered", reason: "no transition from paid on dispute.lost for order ord_d_unordered" }]);
    const withdrawnFirst = await send("evt_dp_un_withdraw", "charge.dispute.funds_withdrawn", dp("needs_response"));
    assert.deepEqual(withdrawnFirst.json.reason, "dispute dp_unordered: 1000 USD withdrawn; order ord_d_unordered paid -> disputed");
    const opened = await send("evt_dp_un_open", "charge.dispute.created", dp("needs_response"));
    assert.deepEqual(opened.json, { outcome: "duplicate", reason: "dispute dp_unordered already open on order ord_d_unordered (disputed)" });
    assert.equal((await readOrder("ord_d_unordered")).status, "disputed");
  });

  test("an inquiry moves no money; a dispute of more than the payment is a dead letter", async () => {
    const inquiry = await send("evt_dp_inq", "charge.dispute.created", dispute({ id: "dp_inq", paymentIntent: "pi_d_won", amount: 2_500, status: "warning_needs_response" }));
    assert.deepEqual(inquiry.json, { outcome: "ignored", reason: "dispute dp_inq has status warning_needs_response: no funds moved, order unchanged" });
    const tooMuch = await send("evt_dp_big", "charge.dispute.funds_withdrawn", dispute({ id: "dp_big", paymentIntent: "pi_d_won", amount: 2_501, status: "needs_response" }));
    assert.deepEqual([tooMuch.status, tooMuch.json], [422, { outcome: "dead_lettered", reason: "dispute amount 2501 is outside 1..2500 for order ord_d_won" }]);
  });
});

describe("a Stripe signing secret cannot move a payment's books past its credit through disputes", () => {
  test("a reinstatement larger than its dispute's withdrawal is a dead letter: the order is never credited above its price", async () => {
    const withdrawn = await send("evt_dp_over_1", "charge.dispute.funds_withdrawn", dispute({ id: "dp_over", paymentIntent: "pi_d_over", amount: 1, status: "needs_response" }));
    assert.equal(withdrawn.json.outcome, "applied");
    const inflated = await send("evt_dp_over_2", "charge.dispute.funds_reinstated", dispute({ id: "dp_over", paymentIntent: "pi_d_over", amount: 5_000, status: "won" }));
    assert.deepEqual([inflated.status, inflated.json], [422, { outcome: "dead_lettered", reason: "dispute dp_over: reinstatement of 5000 USD is more than the 1 USD it withdrew for order ord_d_over" }]);
    const ledger = await ledgerOf("ord_d_over");
    assert.deepEqual([ledger.status, ledger.credited, ledger.disputed, ledger.entries.map(([kind, amount]) => [kind, amount])], ["disputed", 4_999, 1, [["credit", 5_000], ["dispute_withdrawal", -1]]]);
    const exact = await send("evt_dp_over_3", "charge.dispute.funds_reinstated", dispute({ id: "dp_over", paymentIntent: "pi_d_over", amount: 1, status: "won" }));
    assert.equal(exact.json.outcome, "applied");
    assert.deepEqual([(await ledgerOf("ord_d_over")).credited, (await ledgerOf("ord_d_over")).disputed], [5_000, 0]);
  });

  test("withdrawals outstanding never exceed the credit: a second dispute's withdrawal is a dead letter; a refunded payment can still be disputed once", async () => {
    const refunded = await send("evt_dp_under_1", "charge.refunded", charge({ id: "ch_under", paymentIntent: "pi_d_under", amount: 5_000, amountRefunded: 5_000, currency: "usd" }));
    assert.equal(refunded.json.outcome, "applied");
    // Stripe withdraws a dispute's amount even from a refunded charge: that one is booked.
    const first = await send("evt_dp_under_2", "charge.dispute.funds_withdrawn", dispute({ id: "dp_under_1", paymentIntent: "pi_d_under", amount: 5_000, status: "needs_response" }));
    assert.equal(first.json.outcome, "applied");
    const second = await send("evt_dp_under_3", "charge.dispute.funds_withdrawn", dispute({ id: "dp_under_2", paymentIntent: "pi_d_under", amount: 5_000, status: "needs_response" }));
    assert.deepEqual([second.status, second.json], [422, { outcome: "dead_lettered", reason: "dispute dp_under_2: withdrawal of 5000 USD is more than the 0 USD of the payment not already withdrawn for order ord_d_under" }]);
    const ledger = await ledgerOf("ord_d_under");
    assert.deepEqual([ledger.status, ledger.credited, ledger.refunded, ledger.disputed, ledger.entries.length], ["refunded", -5_000, 5_000, 5_000, 3]);
  });
});

describe("Stripe failed refunds", () => {
  test("a failed partial refund is booked back once; a later refund to the same total books again", async () => {
    const partial = await send("evt_rf_1", "charge.refunded", charge({ id: "ch_rf", paymentIntent: "pi_r_failed", amount: 3_000, amountRefunded: 1_000, currency: "usd" }));
    assert.equal(partial.json.reason, "refunded 1000 USD (total 1000); order ord_r_failed paid -> paid");
    const failed = await send("evt_rf_2", "charge.refund.updated", refund({ id: "re_rf_1", paymentIntent: "pi_r_failed", amount: 1_000, status: "failed" }));
    assert.deepEqual([failed.status, failed.json], [200, { outcome: "applied", reason: "refund re_rf_1 failed: 1000 USD booked back (refunded 0); order ord_r_failed paid -> paid" }]);
    const sameAgain = await send("evt_rf_3", "refund.failed", refund({ id: "re_rf_1", paymentIntent: "pi_r_failed", amount: 1_000, status: "failed" }));
    assert.deepEqual(sameAgain.json, { outcome: "duplicate", reason: "failed refund re_rf_1 of payment pi_r_failed already booked back" });
    const retried = await send("evt_rf_4", "charge.refunded", charge({ id: "ch_rf", paymentIntent: "pi_r_failed", amount: 3_000, amountRefunded: 1_000, currency: "usd" }));
    assert.equal(retried.json.reason, "refunded 1000 USD (total 1000); order ord_r_failed paid -> paid");
    assert.deepEqual(await ledgerOf("ord_r_failed"), {
      status: "paid",
      credited: 2_000,
      refunded: 1_000,
      disputed: 0,
      entries: [
        ["credit", 3_000, key("credit pi_r_failed")],
        ["refund", -1_000, `${key("refund pi_r_failed")}:1000`],
        ["refund_failed", 1_000, `${key("refund_failed pi_r_failed")}:re_rf_1`],
        ["refund", -1_000, `${key("refund pi_r_failed")}:1000:after-1-failed`],
      ],
    });
  });

  test("a failed full refund makes the refunded order paid again; a pending or succeeded update changes nothing", async () => {
    assert.equal((await send("evt_rff_1", "charge.refunded", charge({ id: "ch_rff", paymentIntent: "pi_r_full", amount: 1_200, amountRefunded: 1_200, currency: "usd" }))).json.outcome, "applied");
    assert.equal((await readOrder("ord_r_full")).status, "refunded");
    const pending = await send("evt_rff_2", "charge.refund.updated", refund({ id: "re_rff", paymentIntent: "pi_r_full", amount: 1_200, status: "pending" }));
    assert.deepEqual(pending.json, { outcome: "ignored", reason: "refund re_rff has status pending: charge.refunded books refunds, nothing changed" });
    const failed = await send("evt_rff_3", "refund.failed", refund({ id: "re_rff", paymentIntent: "pi_r_full", amount: 1_200, status: "failed" }));
    assert.equal(failed.json.reason, "refund re_rff failed: 1200 USD booked back (refunded 0); order ord_r_full refunded -> paid");
    const ledger = await ledgerOf("ord_r_full");
    assert.deepEqual([ledger.status, ledger.credited, ledger.refunded], ["paid", 1_200, 0]);
  });

  test("a failure of a refund not booked yet waits for the refund (retryable, 409)", async () => {
    const early = await send("evt_rfe_1", "refund.failed", refund({ id: "re_early", paymentIntent: "pi_d_won", amount: 500, status: "failed" }));
    assert.deepEqual([early.status, early.json], [409, { outcome: "dead_lettered", reason: "refund re_early of 500 failed, but only 0 of payment pi_d_won is booked as refunded: waiting for the refund" }]);
  });
});
