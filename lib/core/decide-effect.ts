import { ApplyFailure } from "@/lib/core/failures";
import type { Effect, OrderRef, ProviderName } from "@/lib/core/effect";
import { disputeKey, refundFailedKey, type LedgerKind, type PaymentScope } from "@/lib/ledger/business-keys";
import type { OrderRow } from "@/lib/orders/transition-order";
import { nextStatus, type OrderStatus, type OrderTrigger } from "@/lib/orders/transitions";
import { because, type Because, type Money, type ReasonRef } from "@/lib/reasons/reason-codes";

/** The order as a decision needs it: the row the apply reads (amounts in minor units of `currency`). */
export type OrderFacts = OrderRow;

/** The scope and kind of the event being decided: the endpoint's provider and live/test, never the payload's. */
export interface DecisionSource {
  provider: ProviderName;
  livemode: boolean;
}

/**
 * What applying an effect must do, decided without I/O from facts read in the apply transaction:
 * - fail: roll back and dead-letter (or retry, by the failure's category);
 * - ignore / duplicate: record only;
 * - extra_charge: record a second payment of a paid order for review, never credit it;
 * - note_extra_refund: note that an extra charge was refunded, order unchanged;
 * - credit: book the credit (the order's own price) and move the order;
 * - refund: book the refund of `delta` (so the refunded total becomes `refundedTotal`) and move the order;
 * - book_and_move: book `entry` when given (a failed refund's reversal, a dispute's withdrawal or
 *   reinstatement) and move the order to `to` with `changes` to its running totals.
 */
export type EffectDecision =
  | { kind: "fail"; failure: ApplyFailure }
  | ({ kind: "ignore"; orderId?: string } & Because)
  | ({ kind: "duplicate"; orderId: string } & Because)
  | ({ kind: "extra_charge"; orderId: string; amount: number; currency: string } & Because)
  | ({ kind: "note_extra_refund"; orderId: string } & Because)
  | ({ kind: "credit"; orderId: string; amount: number; currency: string; from: string; to: OrderStatus } & Because)
  | ({ kind: "refund"; orderId: string; delta: number; refundedTotal: number; full: boolean; failedBefore: number; currency: string; from: string; to: OrderStatus } & Because)
  | {
      kind: "book_and_move";
      reason: string;
      reasonRef: ReasonRef;
      orderId: string;
      entry?: { businessKey: string; kind: LedgerKind; amount: number; currency: string };
      from: string;
      to: OrderStatus;
      changes: { refundedAmount?: number; disputedAmount?: number };
    };

/** Providers whose every payment carries a signed amount and currency (Stripe sessions and intents). */
const ALWAYS_SIGNS_AMOUNT: ReadonlySet<ProviderName> = new Set(["stripe"]);

/** The reason for an order that is not found: by id, by checkout session, or by neither. */
function unknownOrder(ref: OrderRef): Because {
  if (ref.orderId === undefined && ref.checkoutSessionId) return because("unknown_checkout_session", { sessionId: ref.checkoutSessionId });
  return because("unknown_order", { orderId: ref.orderId ?? "(none)" });
}

const money = (amount: number, currency: string): Money => ({ amount, currency });
const mode = (livemode: boolean) => (livemode ? "live" : "test");

function scopeMismatch(source: DecisionSource, order: OrderFacts): EffectDecision | undefined {
  if (order.livemode === source.livemode) return undefined;
  return { kind: "ignore", ...because("live_test_scope", { eventMode: mode(source.livemode), orderMode: mode(order.livemode), orderId: order.id }), orderId: order.id };
}

function fail(category: ConstructorParameters<typeof ApplyFailure>[0], reason: Because, orderId?: string): EffectDecision {
  return { kind: "fail", failure: new ApplyFailure(category, reason, orderId) };
}

/**
 * Decides a payment. Takes the order it names (null when none was found), the event id that already
 * credited this payment in this scope (null when none) and whether an extra charge of this payment is
 * already recorded (only asked when the order is paid). Rules: one credit per payment of a scope
 * (seed article, control 3), the written transition table (control 4), the signed amount and currency
 * must equal the order's; Stripe always signs them, so a Stripe payment without them is never credited
 * at the order's price.
 */
export function decidePayment(
  source: DecisionSource,
  effect: Extract<Effect, { kind: "payment" }>,
  facts: { order: OrderFacts | null; creditedBy: string | null; extraChargeRecorded: boolean },
): EffectDecision {
  const { order } = facts;
  if (!order) return fail("unknown_order", unknownOrder(effect.orderRef), effect.orderRef.orderId);
  const other = scopeMismatch(source, order);
  if (other) return other;
  if (effect.amount === "missing" || (ALWAYS_SIGNS_AMOUNT.has(source.provider) && (effect.amount === null || effect.currency === null))) {
    return fail("amount_missing", because("amount_missing", { paymentKey: effect.paymentKey, orderId: order.id, provider: source.provider }), order.id);
  }
  if (facts.creditedBy !== null) return { kind: "duplicate", ...because("already_credited", { paymentKey: effect.paymentKey, eventId: facts.creditedBy }), orderId: order.id };
  if (order.status === "paid") {
    if (facts.extraChargeRecorded) return { kind: "duplicate", ...because("extra_charge_duplicate", { paymentKey: effect.paymentKey }), orderId: order.id };
    return {
      kind: "extra_charge",
      ...because("extra_charge", { paymentKey: effect.paymentKey, amount: money(effect.amount ?? order.amount, effect.currency ?? order.currency) }),
      orderId: order.id,
      amount: effect.amount ?? order.amount,
      currency: effect.currency ?? order.currency,
    };
  }
  const to = nextStatus(order.status, "payment.approved");
  if (!to) return fail("transition", because("no_transition", { from: order.status, trigger: "payment.approved", orderId: order.id }), order.id);
  if (effect.currency !== null && effect.currency.toUpperCase() !== order.currency.toUpperCase()) {
    return fail("currency_mismatch", because("currency_mismatch_payment", { orderId: order.id, paid: effect.currency.toUpperCase(), expected: order.currency }), order.id);
  }
  if (effect.amount !== null && effect.amount !== order.amount) {
    return fail("amount_mismatch", because("amount_mismatch_payment", { orderId: order.id, paid: money(effect.amount, order.currency), expected: money(order.amount, order.currency) }), order.id);
  }
  return { kind: "credit", ...because("credited", { amount: money(order.amount, order.currency), orderId: order.id, from: order.status, to }), orderId: order.id, amount: order.amount, currency: order.currency, from: order.status, to };
}

/**
 * Decides a refund. Takes the credit of the refunded payment in this scope (null when never credited),
 * the order (the credit's order, else the one the event names), the total already refunded of that
 * payment (minor units, positive) and whether an extra charge of this payment is recorded (only asked
 * when there is no credit). `refundedTotal` is absolute (Stripe charge.refunded reports absolute
 * totals), so a replay or an older partial refund is a duplicate; a refund of a never-credited payment
 * waits for its credit (transition, retryable).
 */
export function decideRefund(
  source: DecisionSource,
  effect: Extract<Effect, { kind: "refund" }>,
  facts: { order: OrderFacts | null; credit: { amount: number; currency: string } | null; alreadyRefunded: number; failedRefunds?: number; extraChargeRecorded: boolean },
): EffectDecision {
  const { order, credit } = facts;
  if (!order) return fail("unknown_order", unknownOrder(effect.orderRef), effect.orderRef.orderId);
  const other = scopeMismatch(source, order);
  if (other) return other;
  if (!credit) {
    if (facts.extraChargeRecorded) return { kind: "note_extra_refund", ...because("extra_refund_noted", { paymentKey: effect.paymentKey }), orderId: order.id };
    return fail("transition", because("refund_not_credited", { from: order.status, orderId: order.id, paymentKey: effect.paymentKey }), order.id);
  }
  const refundedTotal = effect.refundedTotal ?? credit.amount;
  if (effect.currency !== null && effect.currency.toUpperCase() !== credit.currency.toUpperCase()) {
    return fail("currency_mismatch", because("currency_mismatch_refund", { orderId: order.id, refund: effect.currency.toUpperCase(), payment: credit.currency }), order.id);
  }
  if (refundedTotal > credit.amount || refundedTotal <= 0) {
    return fail("amount_mismatch", because("refund_out_of_range", { total: money(refundedTotal, credit.currency), max: money(credit.amount, credit.currency), orderId: order.id }), order.id);
  }
  if (refundedTotal <= facts.alreadyRefunded) {
    return { kind: "duplicate", ...because("refund_duplicate", { total: money(refundedTotal, credit.currency), paymentKey: effect.paymentKey, refunded: money(facts.alreadyRefunded, credit.currency) }), orderId: order.id };
  }
  const full = refundedTotal === credit.amount;
  const trigger: OrderTrigger = full ? "payment.refunded" : "payment.partially_refunded";
  const to = nextStatus(order.status, trigger);
  if (!to) return fail("transition", because("no_transition", { from: order.status, trigger, orderId: order.id }), order.id);
  const delta = refundedTotal - facts.alreadyRefunded;
  return {
    kind: "refund",
    ...because("refunded", { amount: money(delta, credit.currency), total: money(refundedTotal, credit.currency), orderId: order.id, from: order.status, to }),
    orderId: order.id,
    delta,
    refundedTotal,
    full,
    failedBefore: facts.failedRefunds ?? 0,
    currency: credit.currency,
    from: order.status,
    to,
  };
}

/** The facts every decision about an already credited payment starts from: the order and its credit. */
type CreditedFacts = { order: OrderFacts | null; credit: { amount: number; currency: string } | null };

/**
 * Checks shared by failed refunds and disputes: the order exists and is of the event's live/test, the
 * payment was credited (else the event waits for it: retryable), the currency is the credit's and the
 * amount is 1..credit. Returns a decision to stop at, or the order and credit to go on with.
 */
function creditedPayment(source: DecisionSource, effect: { paymentKey: string; orderRef: OrderRef; amount: number; currency: string }, facts: CreditedFacts, what: "failed_refund" | "dispute"): EffectDecision | { order: OrderFacts; credit: { amount: number; currency: string } } {
  const { order, credit } = facts;
  if (!order) return fail("unknown_order", unknownOrder(effect.orderRef), effect.orderRef.orderId);
  const other = scopeMismatch(source, order);
  if (other) return other;
  if (!credit) return fail("transition", because("waiting_for_credit", { what, paymentKey: effect.paymentKey, orderId: order.id }), order.id);
  if (effect.currency.toUpperCase() !== credit.currency.toUpperCase()) {
    return fail("currency_mismatch", because("currency_mismatch_other", { what, orderId: order.id, got: effect.currency.toUpperCase(), payment: credit.currency }), order.id);
  }
  if (effect.amount <= 0 || effect.amount > credit.amount) return fail("amount_mismatch", because("amount_out_of_range", { what, amount: money(effect.amount, credit.currency), max: money(credit.amount, credit.currency), orderId: order.id }), order.id);
  return { order, credit };
}

function moveOrFail(order: OrderFacts, trigger: OrderTrigger): OrderStatus | EffectDecision {
  return nextStatus(order.status, trigger) ?? fail("transition", because("no_transition", { from: order.status, trigger, orderId: order.id }), order.id);
}

/**
 * Decides a failed refund (Stripe refund status `failed`: charge.refund.updated, refund.failed): the
 * refund's amount is booked back once per refund id (`refund_failed:` key) and the order's refunded
 * total lowered; a refunded order is paid again. A failure of a refund not booked yet (its
 * charge.refunded still to come) waits (retryable). Takes whether this refund id was already reversed.
 */
export function decideRefundFailed(source: DecisionSource & PaymentScope, effect: Extract<Effect, { kind: "refund_failed" }>, facts: CreditedFacts & { alreadyRefunded: number; reversed: boolean }): EffectDecision {
  const checked = creditedPayment(source, effect, facts, "failed_refund");
  if ("kind" in checked) return checked;
  const { order, credit } = checked;
  if (facts.reversed) return { kind: "duplicate", ...because("refund_failed_duplicate", { refundId: effect.refundId, paymentKey: effect.paymentKey }), orderId: order.id };
  if (effect.amount > facts.alreadyRefunded) {
    return fail("transition", because("refund_failed_waiting", { refundId: effect.refundId, amount: money(effect.amount, credit.currency), refunded: money(facts.alreadyRefunded, credit.currency), paymentKey: effect.paymentKey }), order.id);
  }
  const to = moveOrFail(order, "refund.failed");
  if (typeof to !== "string") return to;
  return {
    kind: "book_and_move",
    ...because("refund_failed_booked", { refundId: effect.refundId, amount: money(effect.amount, credit.currency), refunded: money(facts.alreadyRefunded - effect.amount, credit.currency), orderId: order.id, from: order.status, to }),
    orderId: order.id,
    entry: { businessKey: refundFailedKey(source, effect.paymentKey, effect.refundId), kind: "refund_failed", amount: effect.amount, currency: credit.currency },
    from: order.status,
    to,
    changes: { refundedAmount: order.refundedAmount - effect.amount },
  };
}

/**
 * Decides a dispute's phase (Stripe charge.dispute.*). `opened` moves a paid order to disputed;
 * `funds_withdrawn` books the amount out once per dispute (moving a paid order to disputed too, as
 * the events may come in any order); `funds_reinstated` books it back once, after the withdrawal;
 * `won` moves disputed -> paid and `lost` disputed -> dispute_lost. Takes what this dispute already
 * withdrew (minor units, positive; null when not booked) and whether it was reinstated. Bounds, so a
 * signing secret cannot move a payment's books past its credit: the withdrawals outstanding on the
 * order (its `disputedAmount`) never exceed the credit, and a reinstatement never exceeds what its
 * dispute withdrew (Stripe: one dispute per charge, for at most the charge's amount; the funds
 * reinstated are the funds withdrawn). A refunded payment can still be disputed (Stripe withdraws the
 * disputed amount all the same), so refunds do not lower the bound. Past a bound: amount_mismatch.
 */
export function decideDispute(source: DecisionSource & PaymentScope, effect: Extract<Effect, { kind: "dispute" }>, facts: CreditedFacts & { withdrawn: number | null; reinstated: boolean }): EffectDecision {
  const checked = creditedPayment(source, effect, facts, "dispute");
  if ("kind" in checked) return checked;
  const { order, credit } = checked;
  const disputeId = effect.disputeId;
  const stay = { from: order.status, orderId: order.id } as const;
  switch (effect.phase) {
    case "opened": {
      if (order.status === "disputed" || order.status === "dispute_lost") return { kind: "duplicate", ...because("dispute_already_open", { disputeId, orderId: order.id, status: order.status }), orderId: order.id };
      const to = moveOrFail(order, "dispute.opened");
      if (typeof to !== "string") return to;
      return { kind: "book_and_move", ...because("dispute_opened", { disputeId, amount: money(effect.amount, credit.currency), orderId: order.id, from: order.status, to }), ...stay, to, changes: {} };
    }
    case "funds_withdrawn": {
      if (facts.withdrawn !== null) return { kind: "duplicate", ...because("dispute_withdrawal_duplicate", { disputeId }), orderId: order.id };
      const available = credit.amount - order.disputedAmount;
      if (effect.amount > available) {
        return fail("amount_mismatch", because("dispute_withdrawal_too_large", { disputeId, amount: money(effect.amount, credit.currency), available: money(Math.max(0, available), credit.currency), orderId: order.id }), order.id);
      }
      const to: OrderStatus = order.status === "paid" ? "disputed" : (order.status as OrderStatus);
      return {
        kind: "book_and_move",
        ...because("dispute_withdrawn", { disputeId, amount: money(effect.amount, credit.currency), orderId: order.id, from: order.status, to }),
        ...stay,
        entry: { businessKey: disputeKey(source, effect.paymentKey, effect.disputeId, "withdrawn"), kind: "dispute_withdrawal", amount: -effect.amount, currency: credit.currency },
        to,
        changes: { disputedAmount: order.disputedAmount + effect.amount },
      };
    }
    case "funds_reinstated": {
      if (facts.reinstated) return { kind: "duplicate", ...because("dispute_reinstatement_duplicate", { disputeId }), orderId: order.id };
      if (facts.withdrawn === null) return fail("transition", because("dispute_reinstate_waiting", { disputeId, orderId: order.id }), order.id);
      if (effect.amount > facts.withdrawn) {
        return fail("amount_mismatch", because("dispute_reinstatement_too_large", { disputeId, amount: money(effect.amount, credit.currency), withdrawn: money(facts.withdrawn, credit.currency), orderId: order.id }), order.id);
      }
      return {
        kind: "book_and_move",
        ...because("dispute_reinstated", { disputeId, amount: money(effect.amount, credit.currency), orderId: order.id, status: order.status }),
        ...stay,
        entry: { businessKey: disputeKey(source, effect.paymentKey, effect.disputeId, "reinstated"), kind: "dispute_reinstatement", amount: effect.amount, currency: credit.currency },
        to: order.status as OrderStatus,
        changes: { disputedAmount: Math.max(0, order.disputedAmount - effect.amount) },
      };
    }
    case "won":
    case "lost": {
      const to = moveOrFail(order, effect.phase === "won" ? "dispute.won" : "dispute.lost");
      if (typeof to !== "string") return to;
      return { kind: "book_and_move", ...because("dispute_closed", { disputeId, phase: effect.phase, orderId: order.id, from: order.status, to }), ...stay, to, changes: {} };
    }
  }
}
