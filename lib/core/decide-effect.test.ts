import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { reasonText } from "@/lib/reasons/reason-codes";
import { decideDispute, decidePayment, decideRefund, decideRefundFailed, type EffectDecision, type OrderFacts } from "@/lib/core/decide-effect";

const created: OrderFacts = { id: "ord_1", status: "created", amount: 1_500, currency: "USD", refundedAmount: 0, disputedAmount: 0, livemode: false };
const paid: OrderFacts = { ...created, status: "paid" };
const lab = { provider: "lab", livemode: false } as const;
const stripe = { provider: "stripe", livemode: false } as const;
const payment = (over: Partial<{ amount: number | null | "missing"; currency: string | null }> = {}) =>
  ({ kind: "payment", paymentKey: "pay_1", orderRef: { orderId: "ord_1" }, amount: 1_500, currency: "USD", ...over }) as const;
const refund = (refundedTotal: number | null, currency: string | null = "USD") => ({ kind: "refund", paymentKey: "pay_1", orderRef: { orderId: "ord_1" }, refundedTotal, currency }) as const;

/** The decision without its reason code, after checking that its sentence is the code's English text. */
function plain(decision: EffectDecision): unknown {
  if (decision.kind === "fail") return decision;
  assert.equal(reasonText(decision.reasonRef), decision.reason);
  const { reasonRef: _code, ...rest } = decision;
  return rest;
}

function failure(decision: EffectDecision): [string, string] {
  assert.equal(decision.kind, "fail");
  return decision.kind === "fail" ? [decision.failure.category, decision.failure.reason] : ["", ""];
}

describe("decidePayment", () => {
  const none = { creditedBy: null, extraChargeRecorded: false };

  test("a payment of the order's price credits it and moves created -> paid", () => {
    assert.deepEqual(plain(decidePayment(lab, payment(), { order: created, ...none })), {
      kind: "credit",
      reason: "credited 1500 USD; order ord_1 created -> paid",
      orderId: "ord_1",
      amount: 1_500,
      currency: "USD",
      from: "created",
      to: "paid",
    });
  });

  test("a credit's reason is a code with the amount and its currency, the statuses and the order", () => {
    const decision = decidePayment(lab, payment(), { order: created, ...none });
    assert.equal(decision.kind, "credit");
    if (decision.kind !== "credit") return;
    assert.deepEqual(decision.reasonRef, { code: "credited", params: { amount: { amount: 1_500, currency: "USD" }, orderId: "ord_1", from: "created", to: "paid" } });
    const failed = decidePayment(lab, payment({ amount: 1_499 }), { order: created, ...none });
    assert.deepEqual(failed.kind === "fail" ? failed.failure.reasonRef : undefined, {
      code: "amount_mismatch_payment",
      params: { orderId: "ord_1", paid: { amount: 1_499, currency: "USD" }, expected: { amount: 1_500, currency: "USD" } },
    });
  });

  test("a payment already credited in its scope is a duplicate naming the crediting event", () => {
    assert.deepEqual(plain(decidePayment(lab, payment(), { order: paid, creditedBy: "evt_9", extraChargeRecorded: false })), { kind: "duplicate", reason: "payment pay_1 already credited by event evt_9", orderId: "ord_1" });
  });

  test("a second payment of a paid order is an extra charge at its own amount, never a credit, once", () => {
    assert.deepEqual(plain(decidePayment(lab, payment({ amount: 900, currency: "usd" }), { order: paid, ...none })), {
      kind: "extra_charge",
      reason: "order already paid: payment pay_1 recorded as an extra charge for review, not credited",
      orderId: "ord_1",
      amount: 900,
      currency: "usd",
    });
    assert.equal(decidePayment(lab, payment(), { order: paid, creditedBy: null, extraChargeRecorded: true }).kind, "duplicate");
  });

  test("an unknown order waits (retryable), wrong amount and currency are dead letters", () => {
    assert.deepEqual(failure(decidePayment(lab, payment(), { order: null, ...none })), ["unknown_order", "unknown order ord_1"]);
    assert.deepEqual(failure(decidePayment(lab, payment({ amount: 1_499 }), { order: created, ...none })), ["amount_mismatch", "amount mismatch for order ord_1: payment 1499, order 1500 (USD minor units)"]);
    assert.deepEqual(failure(decidePayment(lab, payment({ currency: "eur" }), { order: created, ...none })), ["currency_mismatch", "currency mismatch for order ord_1: payment EUR, order USD"]);
    const unknown = decidePayment(lab, payment(), { order: null, ...none });
    assert.equal(unknown.kind === "fail" && unknown.failure.retryable, true);
  });

  test("Stripe always signs the amount: a Stripe payment without one is never credited at the order's price", () => {
    assert.deepEqual(failure(decidePayment(stripe, payment({ amount: null, currency: null }), { order: created, ...none })), [
      "amount_missing",
      "payment pay_1 for order ord_1 carries no amount, though stripe always sends one: not credited at the order's price",
    ]);
    assert.equal(decidePayment(lab, payment({ amount: null, currency: null }), { order: created, ...none }).kind, "credit");
    assert.equal(failure(decidePayment(lab, payment({ amount: "missing" }), { order: created, ...none }))[0], "amount_missing");
  });

  test("a live event never touches a test order", () => {
    assert.deepEqual(plain(decidePayment({ provider: "lab", livemode: true }, payment(), { order: created, ...none })), { kind: "ignore", reason: "live event does not touch test order ord_1", orderId: "ord_1" });
  });

  test("a refunded order has no transition on a new payment (retryable transition failure)", () => {
    assert.deepEqual(failure(decidePayment(lab, payment(), { order: { ...created, status: "refunded" }, ...none })), ["transition", "no transition from refunded on payment.approved for order ord_1"]);
  });
});

describe("decideRefund", () => {
  const credit = { amount: 1_500, currency: "USD" };

  test("a partial refund keeps the order paid; the rest completes it and moves paid -> refunded", () => {
    assert.deepEqual(plain(decideRefund(lab, refund(500), { order: paid, credit, alreadyRefunded: 0, extraChargeRecorded: false })), {
      kind: "refund",
      reason: "refunded 500 USD (total 500); order ord_1 paid -> paid",
      orderId: "ord_1",
      delta: 500,
      refundedTotal: 500,
      full: false,
      failedBefore: 0,
      currency: "USD",
      from: "paid",
      to: "paid",
    });
    const rest = decideRefund(lab, refund(null), { order: { ...paid, refundedAmount: 500 }, credit, alreadyRefunded: 500, extraChargeRecorded: false });
    assert.equal(rest.kind, "refund");
    if (rest.kind === "refund") assert.deepEqual([rest.delta, rest.refundedTotal, rest.full, rest.to], [1_000, 1_500, true, "refunded"]);
  });

  test("absolute totals: a replayed or older partial refund is a duplicate", () => {
    assert.deepEqual(plain(decideRefund(lab, refund(500), { order: paid, credit, alreadyRefunded: 700, extraChargeRecorded: false })), {
      kind: "duplicate",
      reason: "refund total 500 of payment pay_1 already recorded (refunded 700)",
      orderId: "ord_1",
    });
  });

  test("a refund before its credit waits; one of an extra charge is noted; bad totals and currencies are dead letters", () => {
    assert.deepEqual(failure(decideRefund(lab, refund(500), { order: created, credit: null, alreadyRefunded: 0, extraChargeRecorded: false })), [
      "transition",
      "no transition from created on payment.refunded for order ord_1: payment pay_1 was never credited",
    ]);
    assert.equal(decideRefund(lab, refund(500), { order: paid, credit: null, alreadyRefunded: 0, extraChargeRecorded: true }).kind, "note_extra_refund");
    assert.deepEqual(failure(decideRefund(lab, refund(1_501), { order: paid, credit, alreadyRefunded: 0, extraChargeRecorded: false })), ["amount_mismatch", "refund total 1501 is outside 1..1500 for order ord_1"]);
    assert.deepEqual(failure(decideRefund(lab, refund(0), { order: paid, credit, alreadyRefunded: 0, extraChargeRecorded: false })), ["amount_mismatch", "refund total 0 is outside 1..1500 for order ord_1"]);
    assert.deepEqual(failure(decideRefund(lab, refund(500, "ars"), { order: paid, credit, alreadyRefunded: 0, extraChargeRecorded: false })), ["currency_mismatch", "currency mismatch for refund of order ord_1: refund ARS, payment USD"]);
  });

  test("a full refund of a refunded order has no transition", () => {
    assert.deepEqual(failure(decideRefund(lab, refund(null), { order: { ...paid, status: "refunded" }, credit, alreadyRefunded: 1_000, extraChargeRecorded: false })), [
      "transition",
      "no transition from refunded on payment.refunded for order ord_1",
    ]);
  });
});

describe("decideRefundFailed and decideDispute", () => {
  const scope = { provider: "stripe", account: "acct_1", livemode: false } as const;
  const credit = { amount: 1_500, currency: "USD" };
  const refunded: OrderFacts = { ...created, status: "refunded", refundedAmount: 1_500 };
  const failedRefund = (amount: number) => ({ kind: "refund_failed", paymentKey: "pi_1", orderRef: {}, refundId: "re_1", amount, currency: "usd" }) as const;
  const dispute = (phase: "opened" | "funds_withdrawn" | "funds_reinstated" | "won" | "lost", amount = 1_500) =>
    ({ kind: "dispute", paymentKey: "pi_1", orderRef: {}, disputeId: "dp_1", phase, amount, currency: "usd" }) as const;

  test("a failed refund is booked back under its refund id and lowers the refunded total", () => {
    assert.deepEqual(plain(decideRefundFailed(scope, failedRefund(1_500), { order: refunded, credit, alreadyRefunded: 1_500, reversed: false })), {
      kind: "book_and_move",
      reason: "refund re_1 failed: 1500 USD booked back (refunded 0); order ord_1 refunded -> paid",
      orderId: "ord_1",
      entry: { businessKey: "refund_failed:stripe:acct_1:test:pi_1:re_1", kind: "refund_failed", amount: 1_500, currency: "USD" },
      from: "refunded",
      to: "paid",
      changes: { refundedAmount: 0 },
    });
    assert.equal(decideRefundFailed(scope, failedRefund(1_500), { order: refunded, credit, alreadyRefunded: 1_500, reversed: true }).kind, "duplicate");
    assert.deepEqual(failure(decideRefundFailed(scope, failedRefund(600), { order: paid, credit, alreadyRefunded: 500, reversed: false })), [
      "transition",
      "refund re_1 of 600 failed, but only 500 of payment pi_1 is booked as refunded: waiting for the refund",
    ]);
  });

  test("a dispute withdraws once, reinstates only after a withdrawal, and closes only a disputed order", () => {
    const withdrawal = decideDispute(scope, dispute("funds_withdrawn"), { order: paid, credit, withdrawn: null, reinstated: false });
    assert.deepEqual(withdrawal.kind === "book_and_move" && [withdrawal.entry, withdrawal.to, withdrawal.changes], [
      { businessKey: "dispute:stripe:acct_1:test:pi_1:dp_1:withdrawn", kind: "dispute_withdrawal", amount: -1_500, currency: "USD" },
      "disputed",
      { disputedAmount: 1_500 },
    ]);
    assert.equal(decideDispute(scope, dispute("funds_withdrawn"), { order: paid, credit, withdrawn: 1_500, reinstated: false }).kind, "duplicate");
    assert.deepEqual(failure(decideDispute(scope, dispute("funds_reinstated"), { order: paid, credit, withdrawn: null, reinstated: false })), [
      "transition",
      "dispute dp_1 reinstates funds that were never booked as withdrawn for order ord_1: waiting for the withdrawal",
    ]);
    const disputed: OrderFacts = { ...paid, status: "disputed", disputedAmount: 1_500 };
    const reinstated = decideDispute(scope, dispute("funds_reinstated"), { order: disputed, credit, withdrawn: 1_500, reinstated: false });
    assert.deepEqual(reinstated.kind === "book_and_move" && [reinstated.entry?.amount, reinstated.to, reinstated.changes], [1_500, "disputed", { disputedAmount: 0 }]);
    assert.deepEqual(decideDispute(scope, dispute("won"), { order: disputed, credit, withdrawn: 1_500, reinstated: true }).kind === "book_and_move", true);
    assert.deepEqual(failure(decideDispute(scope, dispute("lost"), { order: paid, credit, withdrawn: null, reinstated: false })), ["transition", "no transition from paid on dispute.lost for order ord_1"]);
    assert.deepEqual(failure(decideDispute(scope, dispute("opened"), { order: paid, credit: null, withdrawn: null, reinstated: false })), [
      "transition",
      "dispute of payment pi_1 for order ord_1, which was never credited: waiting for its credit",
    ]);
    assert.deepEqual(failure(decideDispute(scope, dispute("opened", 1_501), { order: paid, credit, withdrawn: null, reinstated: false })), ["amount_mismatch", "dispute amount 1501 is outside 1..1500 for order ord_1"]);
  });

  test("a dispute's movements stay within the credit: a reinstatement at most what it withdrew, withdrawals outstanding at most the credit", () => {
    const disputed: OrderFacts = { ...paid, status: "disputed", disputedAmount: 1 };
    assert.deepEqual(failure(decideDispute(scope, dispute("funds_reinstated", 1_500), { order: disputed, credit, withdrawn: 1, reinstated: false })), [
      "amount_mismatch",
      "dispute dp_1: reinstatement of 1500 USD is more than the 1 USD it withdrew for order ord_1",
    ]);
    const back = decideDispute(scope, dispute("funds_reinstated", 1), { order: disputed, credit, withdrawn: 1, reinstated: false });
    assert.deepEqual(back.kind === "book_and_move" && [back.entry?.amount, back.changes], [1, { disputedAmount: 0 }]);
    const partly: OrderFacts = { ...paid, status: "disputed", disputedAmount: 1_000 };
    assert.deepEqual(failure(decideDispute(scope, dispute("funds_withdrawn", 501), { order: partly, credit, withdrawn: null, reinstated: false })), [
      "amount_mismatch",
      "dispute dp_1: withdrawal of 501 USD is more than the 500 USD of the payment not already withdrawn for order ord_1",
    ]);
    const rest = decideDispute(scope, dispute("funds_withdrawn", 500), { order: partly, credit, withdrawn: null, reinstated: false });
    assert.deepEqual(rest.kind === "book_and_move" && [rest.entry?.amount, rest.changes], [-500, { disputedAmount: 1_500 }]);
    // A refunded payment can still be disputed for its amount (Stripe withdraws it all the same).
    const refundedOrder: OrderFacts = { ...created, status: "refunded", refundedAmount: 1_500 };
    assert.equal(decideDispute(scope, dispute("funds_withdrawn"), { order: refundedOrder, credit, withdrawn: null, reinstated: false }).kind, "book_and_move");
  });
});
