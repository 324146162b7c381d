import { ApplyFailure } from "@/lib/core/failures";
import type { Effect, OrderRef, ProviderName } from "@/lib/core/effect";
import { disputeKey, refundFailedKey, type LedgerKind, type PaymentScope } from "@/lib/ledger/business-keys";
import { nextStatus, type OrderStatus, type OrderTrigger } from "@/lib/orders/transitions";

/** The order as a decision needs it (amounts in minor units of `currency`). */
export interface OrderFacts {
  id: string;
  status: string;
  amount: number;
  currency: string;
  refundedAmount: number;
  /** Minor units withdrawn by a dispute and not reinstated. */
  disputedAmount: number;
  livemode: boolean;
}

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
  | { kind: "ignore"; reason: string; orderId?: string }
  | { kind: "duplicate"; reason: string; orderId: string }
  | { kind: "extra_charge"; reason: string; orderId: string; amount: number; currency: string }
  | { kind: "note_extra_refund"; reason: string; orderId: string }
  | { kind: "credit"; reason: string; orderId: string; amount: number; currency: string; from: string; to: OrderStatus }
  | { kind: "refund"; reason: string; orderId: string; delta: number; refundedTotal: number; full: boolean; failedBefore: number; currency: string; from: string; to: OrderStatus }
  | {
      kind: "book_and_move";
      reason: string;
      orderId: string;
      entry?: { businessKey: string; kind: LedgerKind; amount: number; currency: string };
      from: string;
      to: OrderStatus;
      changes: { refundedAmount?: number; disputedAmount?: number };
    };

/** Providers whose every payment carries a signed amount and currency (Stripe sessions and intents). */
const ALWAYS_SIGNS_AMOUNT: ReadonlySet<ProviderName> = new Set(["stripe"]);

/** A readable name for how an event points at its order. */
export function describeOrderRef(ref: OrderRef): string {
  return ref.orderId ?? (ref.checkoutSessionId ? `checkout session ${ref.checkoutSessionId}` : "(none)");
}

function scopeMismatch(source: DecisionSource, order: OrderFacts): EffectDecision | undefined {
  if (order.livemode === source.livemode) return undefined;
  return { kind: "ignore", reason: `${source.livemode ? "live" : "test"} event does not touch ${order.livemode ? "live" : "test"} order ${order.id}`, orderId: order.id };
}

function fail(category: ConstructorParameters<typeof ApplyFailure>[0], reason: string, orderId?: string): EffectDecision {
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
  if (!order) return fail("unknown_order", `unknown order ${describeOrderRef(effect.orderRef)}`, effect.orderRef.orderId);
  const other = scopeMismatch(source, order);
  if (other) return other;
  if (effect.amount === "missing" || (ALWAYS_SIGNS_AMOUNT.has(source.provider) && (effect.amount === null || effect.currency === null))) {
    return fail("amount_missing", `payment ${effect.paymentKey} for order ${order.id} carries no amount, though ${source.provider} always sends one: not credited at the order's price`, order.id);
  }
  if (facts.creditedBy !== null) return { kind: "duplicate", reason: `payment ${effect.paymentKey} already credited by event ${facts.creditedBy}`, orderId: order.id };
  if (order.status === "paid") {
    if (facts.extraChargeRecorded) return { kind: "duplicate", reason: `extra charge ${effect.paymentKey} already recorded`, orderId: order.id };
    return {
      kind: "extra_charge",
      reason: `order already paid: payment ${effect.paymentKey} recorded as an extra charge for review, not credited`,
      orderId: order.id,
      amount: effect.amount ?? order.amount,
      currency: effect.currency ?? order.currency,
    };
  }
  const to = nextStatus(order.status, "payment.approved");
  if (!to) return fail("transition", `no transition from ${order.status} on payment.approved for order ${order.id}`, order.id);
  if (effect.currency !== null && effect.currency.toUpperCase() !== order.currency.toUpperCase()) {
    return fail("currency_mismatch", `currency mismatch for order ${order.id}: payment ${effect.currency.toUpperCase()}, order ${order.currency}`, order.id);
  }
  if (effect.amount !== null && effect.amount !== order.amount) {
    return fail("amount_mismatch", `amount mismatch for order ${order.id}: payment ${effect.amount}, order ${order.amount} (${order.currency} minor units)`, order.id);
  }
  return { kind: "credit", reason: `credited ${order.amount} ${order.currency}; order ${order.id} ${order.status} -> ${to}`, orderId: order.id, amount: order.amount, currency: order.currency, from: order.status, to };
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
  if (!order) return fail("unknown_order", `unknown order ${describeOrderRef(effect.orderRef)}`, effect.orderRef.orderId);
  const other = scopeMismatch(source, order);
  if (other) return other;
  if (!credit) {
    if (facts.extraChargeRecorded) return { kind: "note_extra_refund", reason: `refund of extra charge ${effect.paymentKey} recorded; order unchanged`, orderId: order.id };
    return fail("transition", `no transition from ${order.status} on payment.refunded for order ${order.id}: payment ${effect.paymentKey} was never credited`, order.id);
  }
  const refundedTotal = effect.refundedTotal ?? credit.amount;
  if (effect.currency !== null && effect.currency.toUpperCase() !== credit.currency.toUpperCase()) {
    return fail("currency_mismatch", `currency mismatch for refund of order ${order.id}: refund ${effect.currency.toUpperCase()}, payment ${credit.currency}`, order.id);
  }
  if (refundedTotal > credit.amount || refundedTotal <= 0) {
    return fail("amount_mismatch", `refund total ${refundedTotal} is outside 1..${credit.amount} for order ${order.id}`, order.id);
  }
  if (refundedTotal <= facts.alreadyRefunded) {
    return { kind: "duplicate", reason: `refund total ${refundedTotal} of payment ${effect.paymentKey} already recorded (refunded ${facts.alreadyRefunded})`, orderId: order.id };
  }
  const full = refundedTotal === credit.amount;
  const trigger: OrderTrigger = full ? "payment.refunded" : "payment.partially_refunded";
  const to = nextStatus(order.status, trigger);
  if (!to) return fail("transition", `no transition from ${order.status} on ${trigger} for order ${order.id}`, order.id);
  const delta = refundedTotal - facts.alreadyRefunded;
  return {
    kind: "refund",
    reason: `refunded ${delta} ${credit.currency} (total ${refundedTotal}); order ${order.id} ${order.status} -> ${to}`,
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
function creditedPayment(source: DecisionSource, effect: { paymentKey: string; orderRef: OrderRef; amount: number; currency: string }, facts: CreditedFacts, what: string): EffectDecision | { order: OrderFacts; credit: { amount: number; currency: string } } {
  const { order, credit } = facts;
  if (!order) return fail("unknown_order", `unknown order ${describeOrderRef(effect.orderRef)}`, effect.orderRef.orderId);
  const other = scopeMismatch(source, order);
  if (other) return other;
  if (!credit) return fail("transition", `${what} of payment ${effect.paymentKey} for order ${order.id}, which was never credited: waiting for its credit`, order.id);
  if (effect.currency.toUpperCase() !== credit.currency.toUpperCase()) {
    return fail("currency_mismatch", `currency mismatch for ${what} of order ${order.id}: ${effect.currency.toUpperCase()}, payment ${credit.currency}`, order.id);
  }
  if (effect.amount <= 0 || effect.amount > credit.amount) return fail("amount_mismatch", `${what} amount ${effect.amount} is outside 1..${credit.amount} for order ${order.id}`, order.id);
  return { order, credit };
}

function moveOrFail(order: OrderFacts, trigger: OrderTrigger): OrderStatus | EffectDecision {
  return nextStatus(order.status, trigger) ?? fail("transition", `no transition from ${order.status} on ${trigger} for order ${order.id}`, order.id);
}

/**
 * Decides a failed refund (Stripe refund status `failed`: charge.refund.updated, refund.failed): the
 * refund's amount is booked back once per refund id (`refund_failed:` key) and the order's refunded
 * total lowered; a refunded order is paid again. A failure of a refund not booked yet (its
 * charge.refunded still to come) waits (retryable). Takes whether this refund id was already reversed.
 */
export function decideRefundFailed(source: DecisionSource & PaymentScope, effect: Extract<Effect, { kind: "refund_failed" }>, facts: CreditedFacts & { alreadyRefunded: number; reversed: boolean }): EffectDecision {
  const checked = creditedPayment(source, effect, facts, "failed refund");
  if ("kind" in checked) return checked;
  const { order, credit } = checked;
  if (facts.reversed) return { kind: "duplicate", reason: `failed refund ${effect.refundId} of payment ${effect.paymentKey} already booked back`, orderId: order.id };
  if (effect.amount > facts.alreadyRefunded) {
    return fail("transition", `refund ${effect.refundId} of ${effect.amount} failed, but only ${facts.alreadyRefunded} of payment ${effect.paymentKey} is booked as refunded: waiting for the refund`, order.id);
  }
  const to = moveOrFail(order, "refund.failed");
  if (typeof to !== "string") return to;
  return {
    kind: "book_and_move",
    reason: `refund ${effect.refundId} failed: ${effect.amount} ${credit.currency} booked back (refunded ${facts.alreadyRefunded - effect.amount}); order ${order.id} ${order.status} -> ${to}`,
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
 * `won` moves disputed -> paid and `lost` disputed -> dispute_lost. Takes which of the dispute's
 * movements are already booked.
 */
export function decideDispute(source: DecisionSource & PaymentScope, effect: Extract<Effect, { kind: "dispute" }>, facts: CreditedFacts & { withdrawn: boolean; reinstated: boolean }): EffectDecision {
  const checked = creditedPayment(source, effect, facts, "dispute");
  if ("kind" in checked) return checked;
  const { order, credit } = checked;
  const dispute = `dispute ${effect.disputeId}`;
  const stay = { from: order.status, orderId: order.id } as const;
  switch (effect.phase) {
    case "opened": {
      if (order.status === "disputed" || order.status === "dispute_lost") return { kind: "duplicate", reason: `${dispute} already open on order ${order.id} (${order.status})`, orderId: order.id };
      const to = moveOrFail(order, "dispute.opened");
      if (typeof to !== "string") return to;
      return { kind: "book_and_move", reason: `${dispute} opened for ${effect.amount} ${credit.currency}; order ${order.id} ${order.status} -> ${to}`, ...stay, to, changes: {} };
    }
    case "funds_withdrawn": {
      if (facts.withdrawn) return { kind: "duplicate", reason: `${dispute} withdrawal already booked`, orderId: order.id };
      const to: OrderStatus = order.status === "paid" ? "disputed" : (order.status as OrderStatus);
      return {
        kind: "book_and_move",
        reason: `${dispute}: ${effect.amount} ${credit.currency} withdrawn; order ${order.id} ${order.status} -> ${to}`,
        ...stay,
        entry: { businessKey: disputeKey(source, effect.paymentKey, effect.disputeId, "withdrawn"), kind: "dispute_withdrawal", amount: -effect.amount, currency: credit.currency },
        to,
        changes: { disputedAmount: order.disputedAmount + effect.amount },
      };
    }
    case "funds_reinstated": {
      if (facts.reinstated) return { kind: "duplicate", reason: `${dispute} reinstatement already booked`, orderId: order.id };
      if (!facts.withdrawn) return fail("transition", `${dispute} reinstates funds that were never booked as withdrawn for order ${order.id}: waiting for the withdrawal`, order.id);
      return {
        kind: "book_and_move",
        reason: `${dispute}: ${effect.amount} ${credit.currency} reinstated; order ${order.id} stays ${order.status}`,
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
      return { kind: "book_and_move", reason: `${dispute} ${effect.phase}; order ${order.id} ${order.status} -> ${to}`, ...stay, to, changes: {} };
    }
  }
}
