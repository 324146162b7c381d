import type { SqlSession } from "@/lib/db/driver";
import { decideDispute, decidePayment, decideRefund, type EffectDecision, type OrderFacts, type PaymentFacts } from "@/lib/core/decide-effect";
import { currentEffect, type OrderRef, type ProviderName, type StoredEffect } from "@/lib/core/effect";
import { ConcurrentChange } from "@/lib/core/failures";
import { because, type ReasonRef } from "@/lib/reasons/reason-codes";
import { bookCredit, bookEntry, findCredit, findExtraCharge, noteExtraChargeRefunded, paymentEntries, recordExtraCharge } from "@/lib/ledger/bookings";
import { disputesOfOrder, recordDispute } from "@/lib/ledger/disputes";
import { recordRefundObjects, recordRefundSnapshot, refundObjects, refundSnapshots } from "@/lib/ledger/refund-snapshots";
import type { PaymentScope } from "@/lib/core/business-keys";
import { orderByCheckoutSession, orderById, touchOrder, transitionOrder } from "@/lib/orders/transition-order";

/**
 * The stored event an effect comes from. `provider`, `account` and `livemode` are the endpoint's (the
 * event key's scope, never the payload's claim): they scope every business key the effect writes.
 */
export interface EffectSource extends PaymentScope {
  /** The organization owning the endpoint that received the event: only its orders are looked up and booked. */
  organizationId: string;
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

async function findOrder(tx: SqlSession, organizationId: string, ref: OrderRef): Promise<OrderFacts | null> {
  if (ref.orderId) {
    const order = await orderById(tx, organizationId, ref.orderId);
    if (order) return order;
  }
  if (ref.checkoutSessionId) return orderByCheckoutSession(tx, organizationId, ref.checkoutSessionId);
  return null;
}

async function guardedTransition(tx: SqlSession, organizationId: string, order: OrderFacts, to: string, now: Date, data: { refundedAmount?: number; disputedAmount?: number } = {}): Promise<void> {
  if (!(await transitionOrder(tx, organizationId, order, to, now, data))) throw new ConcurrentChange(`order ${order.id}`);
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
      if (decision.snapshot) await recordRefundSnapshot(tx, source, paymentKey, decision.snapshot, source.eventId, now);
      if (decision.refundObjects) await recordRefundObjects(tx, source, paymentKey, decision.refundObjects, source.eventId, now);
      return { outcome: "duplicate", reason: decision.reason, reasonRef: decision.reasonRef, orderId: decision.orderId };
    case "extra_charge":
      booked(await recordExtraCharge(tx, source, { orderId: decision.orderId, paymentKey, amount: decision.amount, currency: decision.currency }, now), `extra charge ${paymentKey}`);
      await touchOrder(tx, source.organizationId, decision.orderId, now);
      return { outcome: "applied", reason: decision.reason, reasonRef: decision.reasonRef, orderId: decision.orderId };
    case "note_extra_refund":
      await noteExtraChargeRefunded(tx, extraChargeId!, source.eventId);
      return { outcome: "applied", reason: decision.reason, reasonRef: decision.reasonRef, orderId: decision.orderId };
    case "credit":
      booked(await bookCredit(tx, source, { orderId: decision.orderId, paymentKey, amount: decision.amount, currency: decision.currency }, now), `credit of ${paymentKey}`);
      await guardedTransition(tx, source.organizationId, order!, decision.to, now);
      return {
        outcome: "applied",
        reason: decision.reason, reasonRef: decision.reasonRef,
        orderId: decision.orderId,
        transition: { from: decision.from, to: decision.to },
        credit: { paymentKey, amount: decision.amount, currency: decision.currency },
      };
    case "book":
      for (const entry of decision.entries) booked(await bookEntry(tx, source, { ...entry, orderId: decision.orderId, paymentKey }, now), entry.businessKey);
      if (decision.dispute) await recordDispute(tx, source, { ...decision.dispute, paymentKey, orderId: decision.orderId }, now);
      if (decision.snapshot) await recordRefundSnapshot(tx, source, paymentKey, decision.snapshot, source.eventId, now);
      if (decision.refundObjects) await recordRefundObjects(tx, source, paymentKey, decision.refundObjects, source.eventId, now);
      await guardedTransition(tx, source.organizationId, order!, decision.to, now, decision.changes);
      return {
        outcome: "applied",
        reason: decision.reason,
        reasonRef: decision.reasonRef,
        orderId: decision.orderId,
        ...(decision.from !== decision.to ? { transition: { from: decision.from, to: decision.to } } : {}),
      };
  }
}

/** The order a payment's later events touch: the credit's order, else the one the event names. */
async function orderOfPayment(tx: SqlSession, organizationId: string, credit: { orderId: string } | null, ref: OrderRef): Promise<OrderFacts | null> {
  return credit ? orderById(tx, organizationId, credit.orderId) : findOrder(tx, organizationId, ref);
}

/**
 * What a refund's or a dispute's decision reads: the payment's credit, its order (the credit's, else the
 * one the event names), the payment's refund and dispute entries, the order's disputes and, for a
 * refund, every refunded total reported for the payment.
 */
async function paymentFacts(tx: SqlSession, scope: PaymentScope & { organizationId: string }, paymentKey: string, ref: OrderRef, withSnapshots: boolean): Promise<PaymentFacts> {
  const credit = await findCredit(tx, scope, paymentKey);
  const order = await orderOfPayment(tx, scope.organizationId, credit, ref);
  if (!credit || !order) return { order, credit, entries: [], disputes: [], snapshots: [], refundObjects: [] };
  const entries = await paymentEntries(tx, scope, paymentKey);
  const disputes = await disputesOfOrder(tx, scope.organizationId, order.id);
  const snapshots = withSnapshots ? await refundSnapshots(tx, scope, paymentKey) : [];
  const objects = withSnapshots ? await refundObjects(tx, scope, paymentKey) : [];
  return { order, credit, entries, disputes, snapshots, refundObjects: objects };
}

/**
 * Applies one normalised effect inside the caller's driver transaction (lib/db/driver.ts): reads the facts a decision needs (the
 * order, the payment's ledger entries), decides without I/O ({@link decidePayment}, {@link decideRefund})
 * and carries the decision out through the ledger's bookings and the order's guarded transition. An
 * effect stored by an earlier version is read as today's ({@link currentEffect}).
 * Returns what it did. Throws {@link ApplyFailure} when the written rules forbid it (the caller rolls
 * everything back and dead-letters it) and {@link ConcurrentChange} when a concurrent writer changed
 * the order (the caller retries). Rules: seed article controls 3 and 4 (business keys, transition
 * table); Stripe charge.refunded for absolute refunded totals.
 */
export async function applyEffect(tx: SqlSession, source: EffectSource, stored: StoredEffect, now = new Date()): Promise<EffectOutcome> {
  const effect = currentEffect(stored);
  switch (effect.kind) {
    case "payment": {
      const order = await findOrder(tx, source.organizationId, effect.orderRef);
      const credit = order ? await findCredit(tx, source, effect.paymentKey) : null;
      const extra = order?.status === "paid" && !credit ? await findExtraCharge(tx, source, effect.paymentKey) : null;
      const decision = decidePayment(source, effect, { order, creditedBy: credit?.eventId ?? null, extraChargeRecorded: extra !== null });
      return carryOut(tx, source, effect.paymentKey, order, decision, now);
    }
    case "refund": {
      const facts = await paymentFacts(tx, source, effect.paymentKey, effect.orderRef, true);
      const extra = facts.order && !facts.credit ? await findExtraCharge(tx, source, effect.paymentKey) : null;
      const decision = decideRefund(source, effect, { ...facts, extraChargeRecorded: extra !== null });
      return carryOut(tx, source, effect.paymentKey, facts.order, decision, now, extra?.id);
    }
    case "dispute": {
      const facts = await paymentFacts(tx, source, effect.paymentKey, effect.orderRef, false);
      return carryOut(tx, source, effect.paymentKey, facts.order, decideDispute(source, effect, facts), now);
    }
    case "payment_failed": {
      const order = await findOrder(tx, source.organizationId, effect.orderRef);
      return { outcome: "ignored", ...because("payment_failure_recorded", { paymentKey: effect.paymentKey }), orderId: order?.id ?? effect.orderRef.orderId };
    }
    case "record_only":
      return { outcome: "ignored", reason: effect.reason, reasonRef: effect.reasonRef };
  }
}
