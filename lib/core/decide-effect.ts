import { ApplyFailure } from "@/lib/core/failures";
import type { Effect, OrderRef, ProviderName } from "@/lib/core/effect";
import { nextStatus, type OrderStatus, type OrderTrigger } from "@/lib/orders/transitions";

/** The order as a decision needs it (amounts in minor units of `currency`). */
export interface OrderFacts {
  id: string;
  status: string;
  amount: number;
  currency: string;
  refundedAmount: number;
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
 * - refund: book the refund of `delta` (so the refunded total becomes `refundedTotal`) and move the order.
 */
export type EffectDecision =
  | { kind: "fail"; failure: ApplyFailure }
  | { kind: "ignore"; reason: string; orderId?: string }
  | { kind: "duplicate"; reason: string; orderId: string }
  | { kind: "extra_charge"; reason: string; orderId: string; amount: number; currency: string }
  | { kind: "note_extra_refund"; reason: string; orderId: string }
  | { kind: "credit"; reason: string; orderId: string; amount: number; currency: string; from: string; to: OrderStatus }
  | { kind: "refund"; reason: string; orderId: string; delta: number; refundedTotal: number; full: boolean; currency: string; from: string; to: OrderStatus };

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
  facts: { order: OrderFacts | null; credit: { amount: number; currency: string } | null; alreadyRefunded: number; extraChargeRecorded: boolean },
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
    currency: credit.currency,
    from: order.status,
    to,
  };
}
