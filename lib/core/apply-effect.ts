import type { SqlSession } from "@/lib/db/driver";
import { decideDispute, decidePayment, decideRefund, decideRefundFailed, type EffectDecision, type OrderFacts } from "@/lib/core/decide-effect";
import type { Effect, OrderRef, ProviderName } from "@/lib/core/effect";
import { ConcurrentChange } from "@/lib/core/failures";
import { because, type ReasonRef } from "@/lib/reasons/reason-codes";
import { bookCredit, bookEntry, bookRefund, entryAmount, entryExists, findCredit, findExtraCharge, noteExtraChargeRefunded, recordExtraCharge, refundsOf } from "@/lib/ledger/bookings";
import { disputeKey, refundFailedKey, type PaymentScope } from "@/lib/ledger/business-keys";
import { orderByCheckoutSession, orderById, touchOrder, transitionOrder } from "@/lib/orders/transition-order";

/**
 * The stored event an effect comes from. `provider`, `account` and `livemode` are the endpoint's (the
 * event key's scope, never the payload's claim): they scope every business key the effect writes.
 */
export interface EffectSource extends PaymentScope {
  provider: ProviderName;
  eventId: string;
  eventType: string;
}

/** What applying an effect did: `applied` changed money or state, `duplicate` found it done, `ignored` records only. */
export interface EffectOutcome {
  outcome: "applied" | "duplicate" | "ignored";
  reason: string;
  /** The reason's code and parameters (lib/reasons/reason-codes.ts). */
  reasonRef?: ReasonRef;
  orderId?: string;
  /** The order transition this effect made, when it made one (e.g. created -> paid). */
  transition?: { from: string; to: string };
  /** The payment credited by this effect (minor units), when it credited one. */
  credit?: { paymentKey: string; amount: number; currency: string };
}

async function findOrder(tx: SqlSession, ref: OrderRef): Promise<OrderFacts | null> {
  if (ref.orderId) {
    const order = await orderById(tx, ref.orderId);
    if (order) return order;
  }
  if (ref.checkoutSessionId) return orderByCheckoutSession(tx, ref.checkoutSessionId);
  return null;
}

async function guardedTransition(tx: SqlSession, order: OrderFacts, to: string, now: Date, data: { refundedAmount?: number; disputedAmount?: number } = {}): Promise<void> {
  if (!(await transitionOrder(tx, order, to, now, data))) throw new ConcurrentChange(`order ${order.id}`);
}

/** A booking that found its business key taken: a concurrent writer booked it first, so the whole apply restarts. */
function booked(done: boolean, what: string): void {
  if (!done) throw new ConcurrentChange(what);
}

/** Carries out a decision's writes (ledger, order) and says what it did. */
async function carryOut(tx: SqlSession, source: EffectSource, paymentKey: string, order: OrderFacts | null, decision: EffectDecision, now: Date, extraChargeId?: string): Promise<EffectOutcome> {
  switch (decision.kind) {
    case "fail":
      throw decision.failure;
    case "ignore":
      return { outcome: "ignored", reason: decision.reason, reasonRef: decision.reasonRef, orderId: decision.orderId };
    case "duplicate":
      return { outcome: "duplicate", reason: decision.reason, reasonRef: decision.reasonRef, orderId: decision.orderId };
    case "extra_charge":
      booked(await recordExtraCharge(tx, source, { orderId: decision.orderId, paymentKey, amount: decision.amount, currency: decision.currency }, now), `extra charge ${paymentKey}`);
      await touchOrder(tx, decision.orderId, now);
      return { outcome: "applied", reason: decision.reason, reasonRef: decision.reasonRef, orderId: decision.orderId };
    case "note_extra_refund":
      await noteExtraChargeRefunded(tx, extraChargeId!, source.eventId);
      return { outcome: "applied", reason: decision.reason, reasonRef: decision.reasonRef, orderId: decision.orderId };
    case "credit":
      booked(await bookCredit(tx, source, { orderId: decision.orderId, paymentKey, amount: decision.amount, currency: decision.currency }, now), `credit of ${paymentKey}`);
      await guardedTransition(tx, order!, decision.to, now);
      return {
        outcome: "applied",
        reason: decision.reason, reasonRef: decision.reasonRef,
        orderId: decision.orderId,
        transition: { from: decision.from, to: decision.to },
        credit: { paymentKey, amount: decision.amount, currency: decision.currency },
      };
    case "refund":
      booked(
        await bookRefund(tx, source, { orderId: decision.orderId, paymentKey, delta: decision.delta, refundedTotal: decision.refundedTotal, full: decision.full, failedBefore: decision.failedBefore, currency: decision.currency }, now),
        `refund of ${paymentKey}`,
      );
      await guardedTransition(tx, order!, decision.to, now, { refundedAmount: order!.refundedAmount + decision.delta });
      return { outcome: "applied", reason: decision.reason, reasonRef: decision.reasonRef, orderId: decision.orderId, transition: { from: decision.from, to: decision.to } };
    case "book_and_move":
      if (decision.entry) booked(await bookEntry(tx, source, { ...decision.entry, orderId: decision.orderId, paymentKey }, now), decision.entry.businessKey);
      await guardedTransition(tx, order!, decision.to, now, decision.changes);
      return {
        outcome: "applied",
        reason: decision.reason, reasonRef: decision.reasonRef,
        orderId: decision.orderId,
        ...(decision.from !== decision.to ? { transition: { from: decision.from, to: decision.to } } : {}),
      };
  }
}

/** The order a payment's later events touch: the credit's order, else the one the event names. */
async function orderOfPayment(tx: SqlSession, credit: { orderId: string } | null, ref: OrderRef): Promise<OrderFacts | null> {
  return credit ? orderById(tx, credit.orderId) : findOrder(tx, ref);
}

/**
 * Applies one normalised effect inside the caller's driver transaction (lib/db/driver.ts): reads the facts a decision needs (the
 * order, the payment's ledger entries), decides without I/O ({@link decidePayment}, {@link decideRefund})
 * and carries the decision out through the ledger's bookings and the order's guarded transition.
 * Returns what it did. Throws {@link ApplyFailure} when the written rules forbid it (the caller rolls
 * everything back and dead-letters it) and {@link ConcurrentChange} when a concurrent writer changed
 * the order (the caller retries). Rules: seed article controls 3 and 4 (business keys, transition
 * table); Stripe charge.refunded for absolute refunded totals.
 */
export async function applyEffect(tx: SqlSession, source: EffectSource, effect: Effect, now = new Date()): Promise<EffectOutcome> {
  switch (effect.kind) {
    case "payment": {
      const order = await findOrder(tx, effect.orderRef);
      const credit = order ? await findCredit(tx, source, effect.paymentKey) : null;
      const extra = order?.status === "paid" && !credit ? await findExtraCharge(tx, source, effect.paymentKey) : null;
      const decision = decidePayment(source, effect, { order, creditedBy: credit?.eventId ?? null, extraChargeRecorded: extra !== null });
      return carryOut(tx, source, effect.paymentKey, order, decision, now);
    }
    case "refund": {
      const credit = await findCredit(tx, source, effect.paymentKey);
      const order = await orderOfPayment(tx, credit, effect.orderRef);
      const extra = order && !credit ? await findExtraCharge(tx, source, effect.paymentKey) : null;
      const refunds = order && credit ? await refundsOf(tx, source, effect.paymentKey) : { refunded: 0, failedRefunds: 0 };
      const decision = decideRefund(source, effect, { order, credit, alreadyRefunded: refunds.refunded, failedRefunds: refunds.failedRefunds, extraChargeRecorded: extra !== null });
      return carryOut(tx, source, effect.paymentKey, order, decision, now, extra?.id);
    }
    case "refund_failed": {
      const credit = await findCredit(tx, source, effect.paymentKey);
      const order = await orderOfPayment(tx, credit, effect.orderRef);
      const refunds = credit ? await refundsOf(tx, source, effect.paymentKey) : { refunded: 0, failedRefunds: 0 };
      const reversed = credit ? await entryExists(tx, refundFailedKey(source, effect.paymentKey, effect.refundId)) : false;
      const decision = decideRefundFailed(source, effect, { order, credit, alreadyRefunded: refunds.refunded, reversed });
      return carryOut(tx, source, effect.paymentKey, order, decision, now);
    }
    case "dispute": {
      const credit = await findCredit(tx, source, effect.paymentKey);
      const order = await orderOfPayment(tx, credit, effect.orderRef);
      // A withdrawal is booked negative: what the dispute withdrew, as a positive amount.
      const withdrawal = credit ? await entryAmount(tx, disputeKey(source, effect.paymentKey, effect.disputeId, "withdrawn")) : null;
      const withdrawn = withdrawal === null ? null : -withdrawal;
      const reinstated = credit ? await entryExists(tx, disputeKey(source, effect.paymentKey, effect.disputeId, "reinstated")) : false;
      const decision = decideDispute(source, effect, { order, credit, withdrawn, reinstated });
      return carryOut(tx, source, effect.paymentKey, order, decision, now);
    }
    case "payment_failed": {
      const order = await findOrder(tx, effect.orderRef);
      return { outcome: "ignored", ...because("payment_failure_recorded", { paymentKey: effect.paymentKey }), orderId: order?.id ?? effect.orderRef.orderId };
    }
    case "record_only":
      return { outcome: "ignored", reason: effect.reason, reasonRef: effect.reasonRef };
  }
}
