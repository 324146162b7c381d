import "@/e2e/support/test-env";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { closeDb } from "@/lib/db/client";
import { createOrder, readOrder } from "@/e2e/support/http";
import { charge, checkoutSession, deliverStripe, disputeObject, refundObject, stripeEvent } from "@/e2e/support/providers";

// Disputes and refunds as Stripe reports them (docs.stripe.com/api/disputes/object,
// docs.stripe.com/api/refunds/object), applied inline so each answer shows what was applied. Each
// event carries its own creation time: Stripe does not deliver in that order, and the books must not
// depend on the order they arrive in.
process.env.WEBHOOK_PROCESSING_MODE = "inline";
const SECRET = "whsec_stripe_disputes_0001";
process.env.STRIPE_WEBHOOK_SECRET = SECRET;
process.env.STRIPE_ACCOUNT_ID = "acct_stripe_disputes";

function send(id: string, type: string, object: Record<string, unknown>, created = 1_764_400_000) {
  return deliverStripe(JSON.stringify(stripeEvent(id, type, object, { created })), { secret: SECRET });
}

/** A dispute without balance transactions in its payload: the dispute's amount stands for the movement its event names. */
function dispute(fields: { id: string; paymentIntent: string; amount: number; currency?: string; status: string }): Record<string, unknown> {
  return disputeObject({ ...fields, balanceTransactions: [] });
}

function refund(fields: { id: string; paymentIntent: string; amount: number; status: string; created?: number }): Record<string, unknown> {
  return refundObject({ ...fields, created: fields.created ?? 1_764_399_000 });
}

async function pay(orderId: string, paymentIntent: string, amount: number) {
  assert.equal((await createOrder(orderId, amount, "USD")).status, 201);
  const paid = await send(`evt_pay_${orderId}`, "checkout.session.completed", checkoutSession({ id: `cs_${orderId}`, paymentIntent, clientReferenceId: orderId, amount, currency: "usd" }), 1_764_390_000);
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
  await pay("ord_stale", "pi_stale", 10_000);
  await pay("ord_lost_refunded", "pi_lost_refunded", 10_000);
  await pay("ord_refund_in_dispute", "pi_refund_in_dispute", 10_000);
  await pay("ord_won_late", "pi_won_late", 2_500);
  await pay("ord_newest_first", "pi_newest_first", 10_000);
  await pay("ord_colon", "pi_colon", 10_000);
  await pay("ord_twice_txn", "pi_twice_txn", 10_000);
});
after(closeDb);

const key = (rest: string) => `${rest.split(" ")[0]}:stripe:acct_stripe_disputes:live:${rest.split(" ")[1]}`;

describe("Stripe disputes", () => {
  test("opened, funds withdrawn, closed lost: the order ends dispute_lost and its ledger sums to zero", async () => {
    const opened = await send("evt_dp_lost_1", "charge.dispute.created", dispute({ id: "dp_lost", paymentIntent: "pi_d_lost", amount: 4_000, status: "needs_response" }));
    assert.deepEqual([opened.status, opened.json], [200, { outcome: "applied", reason: "dispute dp_lost opened; order ord_d_lost paid -> disputed (refunded 0, disputed 0)" }]);
    const withdrawn = await send("evt_dp_lost_2", "charge.dispute.funds_withdrawn", dispute({ id: "dp_lost", paymentIntent: "pi_d_lost", amount: 4_000, status: "needs_response" }));
    assert.deepEqual([withdrawn.status, withdrawn.json.reason], [200, "dispute dp_lost: 4000 USD withdrawn; order ord_d_lost disputed -> disputed (refunded 0, disputed 4000)"]);
    const lost = await send("evt_dp_lost_3", "charge.dispute.closed", dispute({ id: "dp_lost", paymentIntent: "pi_d_lost", amount: 4_000, status: "lost" }));
    assert.deepEqual([lost.status, lost.json.reason], [200, "dispute dp_lost lost; order ord_d_lost disputed -> dispute_lost (refunded 0, disputed 4000)"]);
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

  test("won, by balance transaction: the funds come back once and the order is paid again", async () => {
    const withdrawal = { id: "txn_won_w", amount: -2_500 };
    const reinstatement = { id: "txn_won_r", amount: 2_500 };
    const dp = (status: string, balanceTransactions: { id: string; amount: number }[]) => disputeObject({ id: "dp_won", paymentIntent: "pi_d_won", amount: 2_500, status, balanceTransactions });
    assert.equal((await send("evt_dp_won_1", "charge.dispute.created", dp("needs_response", [withdrawal]))).json.outcome, "applied");
    assert.deepEqual((await send("evt_dp_won_2", "charge.dispute.funds_withdrawn", dp("needs_response", [withdrawal]))).json, { outcome: "duplicate", reason: "dispute dp_won (opened) already booked; order ord_d_won unchanged" });
    const reinstated = await send("evt_dp_won_3", "charge.dispute.funds_reinstated", dp("won", [withdrawal, reinstatement]));
    assert.deepEqual(reinstated.json, { outcome: "applied", reason: "dispute dp_won won; dispute dp_won: 2500 USD reinstated; order ord_d_won disputed -> paid (refunded 0, disputed 0)" });
    assert.equal((await send("evt_dp_won_4", "charge.dispute.closed", dp("won", [withdrawal, reinstatement]))).json.outcome, "duplicate");
    const ledger = await ledgerOf("ord_d_won");
    assert.deepEqual([ledger.status, ledger.credited, ledger.disputed, ledger.entries.map(([kind, amount, businessKey]) => [kind, amount, businessKey])], [
      "paid",
      2_500,
      0,
      [
        ["credit", 2_500, key("credit pi_d_won")],
        ["dispute_withdrawal", -2_500, `${key("dispute pi_d_won")}:dp_won:txn:txn_won_w`],
        ["dispute_reinstatement", 2_500, `${key("dispute pi_d_won")}:dp_won:txn:txn_won_r`],
      ],
    ]);
  });

  test("out of order: the closing event applies first, and the withdrawal that follows is booked without reopening anything", async () => {
    const dp = (status: string) => dispute({ id: "dp_unordered", paymentIntent: "pi_d_unordered", amount: 1_000, status });
    const closedFirst = await send("evt_dp_un_close", "charge.dispute.closed", dp("lost"));
    assert.deepEqual([closedFirst.status, closedFirst.json], [200, { outcome: "applied", reason: "dispute dp_unordered lost; order ord_d_unordered paid -> dispute_lost (refunded 0, disputed 0)" }]);
    const withdrawnLater = await send("evt_dp_un_withdraw", "charge.dispute.funds_withdrawn", dp("needs_response"));
    assert.deepEqual(withdrawnLater.json.reason, "dispute dp_unordered: 1000 USD withdrawn; order ord_d_unordered dispute_lost -> dispute_lost (refunded 0, disputed 1000)");
    const opened = await send("evt_dp_un_open", "charge.dispute.created", dp("needs_response"));
    assert.deepEqual(opened.json, { outcome: "duplicate", reason: "dispute dp_unordered (lost) already booked; order ord_d_unordered unchanged" });
    const ledger = await ledgerOf("ord_d_unordered");
    assert.deepEqual([ledger.status, ledger.credited, ledger.disputed], ["dispute_lost", 0, 1_000]);
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
    assert.deepEqual([(await ledgerOf("ord_d_over")).credited, (await ledgerOf("ord_d_over")).disputed, (await ledgerOf("ord_d_over")).status], [5_000, 0, "paid"]);
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
    assert.deepEqual([ledger.status, ledger.credited, ledger.refunded, ledger.disputed, ledger.entries.length], ["disputed", -5_000, 5_000, 5_000, 3]);
  });
});

describe("Stripe failed refunds", () => {
  test("a failed partial refund is booked back once; a later refund to the same total books again", async () => {
    const partial = await send("evt_rf_1", "charge.refunded", charge({ id: "ch_rf", paymentIntent: "pi_r_failed", amount: 3_000, amountRefunded: 1_000, currency: "usd" }), 1_764_400_100);
    assert.equal(partial.json.reason, "refunded 1000 USD (total 1000); order ord_r_failed paid -> paid");
    const failed = await send("evt_rf_2", "charge.refund.updated", refund({ id: "re_rf_1", paymentIntent: "pi_r_failed", amount: 1_000, status: "failed", created: 1_764_400_100 }), 1_764_400_200);
    assert.deepEqual([failed.status, failed.json], [200, { outcome: "applied", reason: "refund re_rf_1 failed: 1000 USD booked back (refunded 0); order ord_r_failed paid -> paid" }]);
    const sameAgain = await send("evt_rf_3", "refund.failed", refund({ id: "re_rf_1", paymentIntent: "pi_r_failed", amount: 1_000, status: "failed", created: 1_764_400_100 }), 1_764_400_200);
    assert.deepEqual(sameAgain.json, { outcome: "duplicate", reason: "refunds of payment pi_r_failed already booked (refunded 0)" });
    // A new refund of 1000 after the failure: the charge's running total is 1000 again.
    const retried = await send("evt_rf_4", "charge.refunded", charge({ id: "ch_rf", paymentIntent: "pi_r_failed", amount: 3_000, amountRefunded: 1_000, currency: "usd" }), 1_764_400_300);
    assert.equal(retried.json.reason, "refunded 1000 USD (total 1000); order ord_r_failed paid -> paid");
    assert.deepEqual(await ledgerOf("ord_r_failed"), {
      status: "paid",
      credited: 2_000,
      refunded: 1_000,
      disputed: 0,
      entries: [
        ["credit", 3_000, key("credit pi_r_failed")],
        ["refund", -1_000, `${key("refund pi_r_failed")}:total:1000:at:1764400100`],
        ["refund_failed", 1_000, `${key("refund_failed pi_r_failed")}:re_rf_1`],
        ["refund", -1_000, `${key("refund pi_r_failed")}:total:1000:at:1764400300`],
      ],
    });
  });

  test("a failed full refund makes the refunded order paid again; a pending update of a booked refund changes nothing", async () => {
    assert.equal((await send("evt_rff_1", "charge.refunded", charge({ id: "ch_rff", paymentIntent: "pi_r_full", amount: 1_200, amountRefunded: 1_200, currency: "usd" }), 1_764_400_100)).json.outcome, "applied");
    assert.equal((await readOrder("ord_r_full")).status, "refunded");
    const pending = await send("evt_rff_2", "charge.refund.updated", refund({ id: "re_rff", paymentIntent: "pi_r_full", amount: 1_200, status: "pending", created: 1_764_400_100 }), 1_764_400_150);
    assert.deepEqual(pending.json, { outcome: "duplicate", reason: "refunds of payment pi_r_full already booked (refunded 1200)" });
    const failed = await send("evt_rff_3", "refund.failed", refund({ id: "re_rff", paymentIntent: "pi_r_full", amount: 1_200, status: "failed", created: 1_764_400_100 }), 1_764_400_200);
    assert.equal(failed.json.reason, "refund re_rff failed: 1200 USD booked back (refunded 0); order ord_r_full refunded -> paid");
    const ledger = await ledgerOf("ord_r_full");
    assert.deepEqual([ledger.status, ledger.credited, ledger.refunded], ["paid", 1_200, 0]);
  });

  test("a refund of a payment never credited waits, naming the payment and its charge", async () => {
    const early = await send("evt_rfe_1", "refund.failed", refund({ id: "re_early", paymentIntent: "pi_never_paid", amount: 500, status: "failed" }));
    assert.deepEqual([early.status, early.json], [409, { outcome: "dead_lettered", reason: "failed refund waiting for payment pi_never_paid (charge ch_pi_never_paid), which is not credited yet" }]);
    const before = await send("evt_rfe_2", "charge.refunded", charge({ id: "ch_before", paymentIntent: "pi_never_paid", amount: 500, amountRefunded: 500, currency: "usd" }));
    assert.deepEqual([before.status, before.json.reason], [409, "refund waiting for payment pi_never_paid (charge ch_before), which is not credited yet"]);
  });
});

describe("the books do not depend on delivery order (Stripe's own lifecycles, delivered late)", () => {
  test("a refund snapshot delivered after another refund failed books only the refund that stands", async () => {
    // Refund A (1500) at 100, refund B (2000) at 200: B's charge.refunded says amount_refunded 3500. A fails at 300.
    const refundA = { id: "re_stale_a", paymentIntent: "pi_stale", amount: 1_500, created: 1_764_400_100 };
    assert.equal((await send("evt_stale_a", "charge.refunded", charge({ id: "ch_stale", paymentIntent: "pi_stale", amount: 10_000, amountRefunded: 1_500, currency: "usd" }), 1_764_400_100)).json.outcome, "applied");
    assert.equal((await send("evt_stale_fail", "charge.refund.updated", refund({ ...refundA, status: "failed" }), 1_764_400_300)).json.outcome, "applied");
    const late = await send("evt_stale_b", "charge.refunded", charge({ id: "ch_stale", paymentIntent: "pi_stale", amount: 10_000, amountRefunded: 3_500, currency: "usd" }), 1_764_400_200);
    assert.equal(late.json.reason, "refunded 2000 USD (total 2000); order ord_stale paid -> paid");
    const ledger = await ledgerOf("ord_stale");
    assert.deepEqual([ledger.status, ledger.credited, ledger.refunded], ["paid", 8_000, 2_000]);
  });

  test("a dispute lost after a partial refund withdraws the payment and reinstates only the refunded part", async () => {
    assert.equal((await send("evt_lr_refund", "charge.refunded", charge({ id: "ch_lr", paymentIntent: "pi_lost_refunded", amount: 10_000, amountRefunded: 3_000, currency: "usd" }), 1_764_400_100)).json.outcome, "applied");
    const transactions = [{ id: "txn_lr_w", amount: -10_000 }, { id: "txn_lr_r", amount: 3_000 }];
    const dp = (status: string, balanceTransactions: { id: string; amount: number }[]) => disputeObject({ id: "dp_lr", paymentIntent: "pi_lost_refunded", amount: 10_000, status, balanceTransactions });
    assert.equal((await send("evt_lr_open", "charge.dispute.created", dp("needs_response", transactions.slice(0, 1)), 1_764_400_200)).json.outcome, "applied");
    assert.equal((await send("evt_lr_reinstated", "charge.dispute.funds_reinstated", dp("lost", transactions), 1_764_400_300)).json.outcome, "applied");
    assert.equal((await send("evt_lr_closed", "charge.dispute.closed", dp("lost", transactions), 1_764_400_300)).json.outcome, "duplicate");
    const ledger = await ledgerOf("ord_lost_refunded");
    assert.deepEqual([ledger.status, ledger.credited, ledger.refunded, ledger.disputed], ["dispute_lost", 0, 3_000, 7_000]);
  });

  test("a refund delivered while a dispute is open is booked, and the order stays disputed", async () => {
    const dp = disputeObject({ id: "dp_rd", paymentIntent: "pi_refund_in_dispute", amount: 5_000, status: "needs_response", balanceTransactions: [{ id: "txn_rd_w", amount: -5_000 }] });
    assert.equal((await send("evt_rd_open", "charge.dispute.created", dp, 1_764_400_200)).json.outcome, "applied");
    const refunded = await send("evt_rd_refund", "charge.refunded", charge({ id: "ch_rd", paymentIntent: "pi_refund_in_dispute", amount: 10_000, amountRefunded: 2_000, currency: "usd" }), 1_764_400_100);
    assert.deepEqual([refunded.status, refunded.json.reason], [200, "refunded 2000 USD (total 2000); order ord_refund_in_dispute disputed -> disputed"]);
    const ledger = await ledgerOf("ord_refund_in_dispute");
    assert.deepEqual([ledger.status, ledger.credited, ledger.refunded, ledger.disputed], ["disputed", 3_000, 2_000, 5_000]);
  });

  test("a won dispute stays won when its withdrawal and its opening arrive after the win", async () => {
    const transactions = [{ id: "txn_wl_w", amount: -2_500 }, { id: "txn_wl_r", amount: 2_500 }];
    const dp = (status: string, balanceTransactions: { id: string; amount: number }[]) => disputeObject({ id: "dp_wl", paymentIntent: "pi_won_late", amount: 2_500, status, balanceTransactions });
    assert.equal((await send("evt_wl_closed", "charge.dispute.closed", dp("won", transactions), 1_764_400_300)).json.outcome, "applied");
    assert.equal((await send("evt_wl_withdrawn", "charge.dispute.funds_withdrawn", dp("needs_response", transactions.slice(0, 1)), 1_764_400_100)).json.outcome, "duplicate");
    assert.equal((await send("evt_wl_created", "charge.dispute.created", dp("needs_response", []), 1_764_400_100)).json.outcome, "duplicate");
    const ledger = await ledgerOf("ord_won_late");
    assert.deepEqual([ledger.status, ledger.credited, ledger.disputed], ["paid", 2_500, 0]);
  });

  test("two partial refunds delivered newest first are booked as the provider's two refunds", async () => {
    const first = refundObject({ id: "re_nf_1", paymentIntent: "pi_newest_first", amount: 2_000, status: "succeeded", created: 1_764_400_100 });
    const second = refundObject({ id: "re_nf_2", paymentIntent: "pi_newest_first", amount: 3_000, status: "succeeded", created: 1_764_400_200 });
    const newest = await send("evt_nf_2", "charge.refunded", charge({ id: "ch_nf", paymentIntent: "pi_newest_first", amount: 10_000, amountRefunded: 5_000, currency: "usd", refunds: [second, first] }), 1_764_400_200);
    assert.equal(newest.json.outcome, "applied");
    const oldest = await send("evt_nf_1", "charge.refunded", charge({ id: "ch_nf", paymentIntent: "pi_newest_first", amount: 10_000, amountRefunded: 2_000, currency: "usd", refunds: [first] }), 1_764_400_100);
    assert.equal(oldest.json.outcome, "duplicate");
    const ledger = await ledgerOf("ord_newest_first");
    assert.deepEqual(ledger.entries.slice(1), [
      ["refund", -2_000, `${key("refund pi_newest_first")}:id:re_nf_1`],
      ["refund", -3_000, `${key("refund pi_newest_first")}:id:re_nf_2`],
    ]);
  });
});

describe("what a Stripe signing secret still cannot do to the books", () => {
  test("a dispute id with a ':' (reaching into another dispute's keys) is refused at the schema, and the books stay at the credit", async () => {
    const withdrawn = await send("evt_colon_1", "charge.dispute.funds_withdrawn", disputeObject({ id: "du_1:x", paymentIntent: "pi_colon", amount: 5_000, status: "needs_response", balanceTransactions: [{ id: "t1", amount: -5_000 }] }));
    assert.equal(withdrawn.status, 422);
    assert.equal(withdrawn.json.reason, "invalid charge.dispute.funds_withdrawn data.object: id: must be a Stripe id (letters, digits and _)");
    const reinstated = await send("evt_colon_2", "charge.dispute.funds_reinstated", disputeObject({ id: "du_1", paymentIntent: "pi_colon", amount: 5_000, status: "won", balanceTransactions: [{ id: "t2", amount: 5_000 }] }));
    assert.deepEqual([reinstated.status, reinstated.json.reason], [409, "dispute du_1 reinstates funds that were never booked as withdrawn for order ord_colon: waiting for the withdrawal"]);
    const ledger = await ledgerOf("ord_colon");
    assert.deepEqual([ledger.status, ledger.credited, ledger.disputed, ledger.entries.length], ["paid", 10_000, 0, 1]);
  });

  test("a balance transaction listed twice in one payload is booked once", async () => {
    const dp = disputeObject({ id: "du_twice", paymentIntent: "pi_twice_txn", amount: 3_000, status: "needs_response", balanceTransactions: [{ id: "txn_twice", amount: -3_000 }, { id: "txn_twice", amount: -3_000 }] });
    const answer = await send("evt_twice_txn", "charge.dispute.funds_withdrawn", dp);
    assert.deepEqual([answer.status, answer.json.outcome], [200, "applied"]);
    const ledger = await ledgerOf("ord_twice_txn");
    assert.deepEqual([ledger.status, ledger.credited, ledger.disputed, ledger.entries.map(([kind, amount]) => [kind, amount])], ["disputed", 7_000, 3_000, [["credit", 10_000], ["dispute_withdrawal", -3_000]]]);
  });

  test("a creation time past any date is refused at the schema (422), never left to fail the apply", async () => {
    const future = await deliverStripe(JSON.stringify(stripeEvent("evt_future", "charge.refunded", charge({ id: "ch_future", paymentIntent: "pi_twice_txn", amount: 10_000, amountRefunded: 1_000, currency: "usd" }), { created: 9_000_000_000_000 })), { secret: SECRET });
    assert.equal(future.status, 422);
    const futureRefund = await send("evt_future_refund", "refund.created", refundObject({ id: "re_future", paymentIntent: "pi_twice_txn", amount: 1_000, status: "succeeded", created: 9_000_000_000_000 }));
    assert.equal(futureRefund.status, 422);
    assert.equal((await ledgerOf("ord_twice_txn")).refunded, 0);
  });
});
