import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { reasonText } from "@/lib/reasons/reason-codes";
import { decideDispute, decidePayment, decideRefund, type EffectDecision, type OrderFacts, type PaymentFacts } from "@/lib/core/decide-effect";
import type { BookedEntry } from "@/lib/core/decide-refund";

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
  const scope = { provider: "lab", account: "lab", livemode: false } as const;
  const facts = (over: Partial<PaymentFacts & { extraChargeRecorded: boolean }> = {}) => ({ order: paid, credit, entries: [], disputes: [], snapshots: [], refundObjects: [], extraChargeRecorded: false, ...over });
  const refundEntry = (businessKey: string, amount: number, occurredAt: number | null = null): BookedEntry => ({ businessKey, kind: "refund", amount, occurredAt });

  test("a partial refund keeps the order paid; the rest completes it and moves paid -> refunded", () => {
    const partial = decideRefund(scope, refund(500), facts());
    assert.deepEqual(plain(partial), {
      kind: "book",
      reason: "refunded 500 USD (total 500); order ord_1 paid -> paid",
      orderId: "ord_1",
      entries: [{ businessKey: "refund:lab:lab:test:pay_1:total:500:at:?", kind: "refund", amount: -500, currency: "USD", occurredAt: null }],
      snapshot: { total: 500, at: null },
      from: "paid",
      to: "paid",
      changes: { refundedAmount: 500, disputedAmount: 0 },
    });
    const rest = decideRefund(scope, refund(null), facts({ order: { ...paid, refundedAmount: 500 }, entries: [refundEntry("refund:lab:lab:test:pay_1:total:500:at:?", -500)] }));
    assert.deepEqual(rest.kind === "book" && [rest.entries.map((entry) => [entry.businessKey, entry.amount]), rest.to, rest.changes.refundedAmount], [[["refund:lab:lab:test:pay_1:total:1500:at:?", -1_000]], "refunded", 1_500]);
  });

  test("absolute totals: a replayed or older partial refund is a duplicate", () => {
    assert.deepEqual(plain(decideRefund(scope, refund(500), facts({ order: { ...paid, refundedAmount: 700 }, entries: [refundEntry("refund:lab:lab:test:pay_1:total:700:at:?", -700)] }))), {
      kind: "duplicate",
      reason: "refund total 500 of payment pay_1 already recorded (refunded 700)",
      orderId: "ord_1",
      snapshot: { total: 500, at: null },
    });
  });

  test("a refund before its credit waits, saying for which payment; one of an extra charge is noted; bad totals and currencies are dead letters", () => {
    assert.deepEqual(failure(decideRefund(scope, refund(500), facts({ order: created, credit: null }))), ["transition", "no transition from created on payment.refunded for order ord_1: payment pay_1 was never credited"]);
    assert.deepEqual(failure(decideRefund(scope, { ...refund(500), chargeId: "ch_1" }, facts({ order: null, credit: null }))), ["transition", "refund waiting for payment pay_1 (charge ch_1), which is not credited yet"]);
    assert.deepEqual(failure(decideRefund(scope, refund(500), facts({ order: null, credit: null }))), ["transition", "refund waiting for payment pay_1, which is not credited yet"]);
    assert.equal(decideRefund(scope, refund(500), facts({ credit: null, extraChargeRecorded: true })).kind, "note_extra_refund");
    assert.deepEqual(failure(decideRefund(scope, refund(1_501), facts())), ["amount_mismatch", "refund total 1501 is outside 1..1500 for order ord_1"]);
    assert.deepEqual(failure(decideRefund(scope, refund(0), facts())), ["amount_mismatch", "refund total 0 is outside 1..1500 for order ord_1"]);
    assert.deepEqual(failure(decideRefund(scope, refund(500, "ars"), facts())), ["currency_mismatch", "currency mismatch for refund of order ord_1: refund ARS, payment USD"]);
  });

  test("a full refund of a refunded order is a duplicate", () => {
    const refunded = facts({ order: { ...paid, status: "refunded", refundedAmount: 1_500 }, entries: [refundEntry("refund:lab:lab:test:pay_1", -1_500)] });
    assert.deepEqual(plain(decideRefund(scope, refund(null), refunded)), { kind: "duplicate", reason: "refund total 1500 of payment pay_1 already recorded (refunded 1500)", orderId: "ord_1", snapshot: { total: 1_500, at: null } });
  });
});

describe("refunds by refund object (Stripe)", () => {
  const scope = { provider: "stripe", account: "acct_1", livemode: false } as const;
  const credit = { amount: 10_000, currency: "USD" };
  const order: OrderFacts = { ...paid, amount: 10_000 };
  const base = { kind: "refund", paymentKey: "pi_1", orderRef: {}, currency: "usd" } as const;
  const object = (refundId: string, amount: number, status: string, createdAt: number) => ({ refundId, amount, status, createdAt });
  const prefix = "refund:stripe:acct_1:test:pi_1";

  test("a stale snapshot delivered after a refund failed books only the refund that stands", () => {
    // Refund A (1500, created at 200) booked from charge.refunded's total; A failed at 400 (booked back).
    const entries: BookedEntry[] = [
      { businessKey: `${prefix}:total:1500:at:200`, kind: "refund", amount: -1_500, occurredAt: 200 },
      { businessKey: "refund_failed:stripe:acct_1:test:pi_1:re_A", kind: "refund_failed", amount: 1_500, occurredAt: 400 },
    ];
    // B's charge.refunded, created at 300 while A still stood: amount_refunded 3500.
    const late = decideRefund(scope, { ...base, refundedTotal: 3_500, at: 300 }, { order: { ...order, refundedAmount: 0 }, credit, entries, disputes: [], snapshots: [], refundObjects: [], extraChargeRecorded: false });
    assert.deepEqual(late.kind === "book" && [late.entries.map((entry) => [entry.businessKey, entry.amount]), late.changes.refundedAmount], [[[`${prefix}:total:3500:at:300`, -2_000]], 2_000]);
  });

  test("a snapshot listing its refunds books each by id; an older snapshot after a newer one adds nothing", () => {
    const newest = decideRefund(scope, { ...base, refundedTotal: 5_000, at: 300, refunds: [object("re_1", 2_000, "succeeded", 200), object("re_2", 3_000, "succeeded", 300)] }, { order, credit, entries: [], disputes: [], snapshots: [], refundObjects: [], extraChargeRecorded: false });
    assert.equal(newest.kind, "book");
    if (newest.kind !== "book") return;
    assert.deepEqual(newest.entries.map((entry) => [entry.businessKey, entry.amount, entry.occurredAt]), [[`${prefix}:id:re_1`, -2_000, 200], [`${prefix}:id:re_2`, -3_000, 300]]);
    assert.equal(newest.reason, "refunded 2000 USD (refund re_1); refunded 3000 USD (refund re_2); order ord_1 paid -> paid (refunded 5000, disputed 0)");
    // Both refund objects are kept, whether booked by id or not, for every later decision to weigh.
    assert.deepEqual(newest.refundObjects, [{ refundId: "re_1", amount: 2_000, createdAt: 200 }, { refundId: "re_2", amount: 3_000, createdAt: 300 }]);
    const booked = newest.entries.map((entry) => ({ businessKey: entry.businessKey, kind: entry.kind, amount: entry.amount, occurredAt: entry.occurredAt }));
    const older = decideRefund(scope, { ...base, refundedTotal: 2_000, at: 200, refunds: [object("re_1", 2_000, "succeeded", 200)] }, { order: { ...order, refundedAmount: 5_000 }, credit, entries: booked, disputes: [], snapshots: [], refundObjects: newest.refundObjects ?? [], extraChargeRecorded: false });
    assert.deepEqual(plain(older), { kind: "duplicate", reason: "refund total 2000 of payment pi_1 already recorded (refunded 5000)", orderId: "ord_1", snapshot: { total: 2_000, at: 200 } });
  });

  test("a failed refund not booked yet is booked and booked back at once; a second report of it is a duplicate", () => {
    const failed = decideRefund(scope, { ...base, refunds: [object("re_A", 1_500, "failed", 200)], at: 400 }, { order, credit, entries: [], disputes: [], snapshots: [], refundObjects: [], extraChargeRecorded: false });
    assert.deepEqual(failed.kind === "book" && failed.entries.map((entry) => [entry.businessKey, entry.kind, entry.amount]), [
      [`${prefix}:id:re_A`, "refund", -1_500],
      ["refund_failed:stripe:acct_1:test:pi_1:re_A", "refund_failed", 1_500],
    ]);
    const entries = failed.kind === "book" ? failed.entries.map((entry) => ({ ...entry })) : [];
    assert.equal(decideRefund(scope, { ...base, refunds: [object("re_A", 1_500, "failed", 200)], at: 500 }, { order, credit, entries, disputes: [], snapshots: [], refundObjects: [], extraChargeRecorded: false }).kind, "duplicate");
  });

  test("a refund is booked while a dispute is open, and the order stays disputed", () => {
    const disputed: OrderFacts = { ...order, status: "disputed", disputedAmount: 10_000 };
    const during = decideRefund(scope, { ...base, refundedTotal: 3_000, at: 300 }, { order: disputed, credit, entries: [], disputes: [{ disputeId: "dp_1", status: "open" }], snapshots: [], refundObjects: [], extraChargeRecorded: false });
    assert.deepEqual(during.kind === "book" && [during.to, during.changes], ["disputed", { refundedAmount: 3_000, disputedAmount: 10_000 }]);
  });

  test("refunds past the credit are refused, whatever their objects say", () => {
    const entries: BookedEntry[] = [{ businessKey: `${prefix}:id:re_1`, kind: "refund", amount: -9_000, occurredAt: 100 }];
    assert.deepEqual(failure(decideRefund(scope, { ...base, refunds: [object("re_2", 2_000, "succeeded", 200)], at: 200 }, { order, credit, entries, disputes: [], snapshots: [], refundObjects: [], extraChargeRecorded: false })), ["amount_mismatch", "refund total 11000 is outside 1..10000 for order ord_1"]);
  });
});

describe("decideDispute", () => {
  const scope = { provider: "stripe", account: "acct_1", livemode: false } as const;
  const credit = { amount: 1_500, currency: "USD" };
  const dispute = (status: "open" | "won" | "lost" | null, fallback: "withdrawn" | "reinstated" | null, amount = 1_500, movements: { id: string; amount: number }[] | null = null) =>
    ({ kind: "dispute", paymentKey: "pi_1", orderRef: {}, disputeId: "dp_1", status, amount, currency: "usd", movements, fallback }) as const;
  const key = (rest: string) => `dispute:stripe:acct_1:test:pi_1:dp_1:${rest}`;
  const entry = (rest: string, amount: number): BookedEntry => ({ businessKey: key(rest), kind: amount < 0 ? "dispute_withdrawal" : "dispute_reinstatement", amount, occurredAt: null });
  const facts = (over: Partial<PaymentFacts> = {}): PaymentFacts => ({ order: paid, credit, entries: [], disputes: [], snapshots: [], refundObjects: [], ...over });

  test("a withdrawal is booked once, by balance transaction, and opens the dispute", () => {
    const withdrawal = decideDispute(scope, dispute("open", "withdrawn", 1_500, [{ id: "txn_w", amount: -1_500 }]), facts());
    assert.deepEqual(plain(withdrawal), {
      kind: "book",
      reason: "dispute dp_1 opened; dispute dp_1: 1500 USD withdrawn; order ord_1 paid -> disputed (refunded 0, disputed 1500)",
      orderId: "ord_1",
      entries: [{ businessKey: key("txn:txn_w"), kind: "dispute_withdrawal", amount: -1_500, currency: "USD", occurredAt: null }],
      dispute: { disputeId: "dp_1", status: "open", amount: 1_500, currency: "USD" },
      from: "paid",
      to: "disputed",
      changes: { refundedAmount: 0, disputedAmount: 1_500 },
    });
    const disputed: OrderFacts = { ...paid, status: "disputed", disputedAmount: 1_500 };
    const again = decideDispute(scope, dispute("open", "withdrawn", 1_500, [{ id: "txn_w", amount: -1_500 }]), facts({ order: disputed, entries: [entry("txn:txn_w", -1_500)], disputes: [{ disputeId: "dp_1", status: "open" }] }));
    assert.deepEqual(plain(again), { kind: "duplicate", reason: "dispute dp_1 (opened) already booked; order ord_1 unchanged", orderId: "ord_1" });
  });

  test("lost after a partial refund: the withdrawal and the reinstatement of the refunded part, from the balance transactions", () => {
    const refunded: OrderFacts = { ...paid, amount: 1_500, refundedAmount: 500 };
    const lost = decideDispute(scope, dispute("lost", null, 1_500, [{ id: "txn_w", amount: -1_500 }, { id: "txn_r", amount: 500 }]), facts({ order: refunded }));
    assert.deepEqual(lost.kind === "book" && [lost.entries.map((one) => [one.businessKey, one.amount]), lost.to, lost.changes], [
      [[key("txn:txn_w"), -1_500], [key("txn:txn_r"), 500]],
      "dispute_lost",
      { refundedAmount: 500, disputedAmount: 1_000 },
    ]);
  });

  test("a closed dispute stays closed: a late opening event neither reopens it nor moves the order back", () => {
    const won = decideDispute(scope, dispute("open", null), facts({ disputes: [{ disputeId: "dp_1", status: "won" }], entries: [entry("txn:txn_w", -1_500), entry("txn:txn_r", 1_500)] }));
    assert.deepEqual(plain(won), { kind: "duplicate", reason: "dispute dp_1 (won) already booked; order ord_1 unchanged", orderId: "ord_1" });
    const lateWithdrawal = decideDispute(scope, dispute("open", "withdrawn", 1_500, [{ id: "txn_w", amount: -1_500 }]), facts({ disputes: [{ disputeId: "dp_1", status: "won" }] }));
    assert.deepEqual(lateWithdrawal.kind === "book" && [lateWithdrawal.to, lateWithdrawal.dispute?.status, lateWithdrawal.changes.disputedAmount], ["paid", "won", 1_500]);
  });

  test("without balance transactions the dispute's amount is used, once per movement; a reinstatement before any withdrawal waits", () => {
    assert.deepEqual(failure(decideDispute(scope, dispute("won", "reinstated"), facts())), ["transition", "dispute dp_1 reinstates funds that were never booked as withdrawn for order ord_1: waiting for the withdrawal"]);
    const disputed: OrderFacts = { ...paid, status: "disputed", disputedAmount: 1_500 };
    const back = decideDispute(scope, dispute("won", "reinstated"), facts({ order: disputed, entries: [entry("withdrawn", -1_500)], disputes: [{ disputeId: "dp_1", status: "open" }] }));
    assert.deepEqual(back.kind === "book" && [back.entries.map((one) => [one.businessKey, one.amount]), back.to, back.changes.disputedAmount], [[[key("reinstated"), 1_500]], "paid", 0]);
    // A balance transaction after the dispute's amount was booked is not booked again.
    const covered = decideDispute(scope, dispute("open", null, 1_500, [{ id: "txn_w", amount: -1_500 }]), facts({ order: disputed, entries: [entry("withdrawn", -1_500)], disputes: [{ disputeId: "dp_1", status: "open" }] }));
    assert.equal(covered.kind, "duplicate");
  });

  test("a dispute sees only its own entries: another dispute whose id starts like it (du_1:x beside du_1) lends it no withdrawal", () => {
    const other: BookedEntry = { businessKey: "dispute:stripe:acct_1:test:pi_1:dp_1:x:txn:t1", kind: "dispute_withdrawal", amount: -1_000, occurredAt: null };
    const disputed: OrderFacts = { ...paid, status: "disputed", disputedAmount: 1_000 };
    assert.deepEqual(failure(decideDispute(scope, dispute("won", null, 1_000, [{ id: "t2", amount: 1_000 }]), facts({ order: disputed, entries: [other] }))), [
      "transition",
      "dispute dp_1 reinstates funds that were never booked as withdrawn for order ord_1: waiting for the withdrawal",
    ]);
  });

  test("a dispute's movements stay within the credit; a dispute of a payment never credited waits", () => {
    const disputed: OrderFacts = { ...paid, status: "disputed", disputedAmount: 1 };
    assert.deepEqual(failure(decideDispute(scope, dispute("won", "reinstated", 1_500), facts({ order: disputed, entries: [entry("withdrawn", -1)], disputes: [{ disputeId: "dp_1", status: "open" }] }))), [
      "amount_mismatch",
      "dispute dp_1: reinstatement of 1500 USD is more than the 1 USD it withdrew for order ord_1",
    ]);
    const partly: OrderFacts = { ...paid, status: "disputed", disputedAmount: 1_000 };
    assert.deepEqual(failure(decideDispute(scope, dispute("open", "withdrawn", 501), facts({ order: partly }))), [
      "amount_mismatch",
      "dispute dp_1: withdrawal of 501 USD is more than the 500 USD of the payment not already withdrawn for order ord_1",
    ]);
    assert.deepEqual(failure(decideDispute(scope, { ...dispute("open", null), chargeId: "ch_1" }, facts({ order: null, credit: null }))), ["transition", "dispute waiting for payment pi_1 (charge ch_1), which is not credited yet"]);
    assert.deepEqual(failure(decideDispute(scope, dispute("open", null, 1_501), facts())), ["amount_mismatch", "dispute amount 1501 is outside 1..1500 for order ord_1"]);
    // A refunded payment can still be disputed for its amount (Stripe withdraws it all the same).
    const refundedOrder: OrderFacts = { ...created, status: "refunded", refundedAmount: 1_500 };
    const onRefunded = decideDispute(scope, dispute("open", "withdrawn"), facts({ order: refundedOrder }));
    assert.deepEqual(onRefunded.kind === "book" && onRefunded.to, "disputed");
  });
});
