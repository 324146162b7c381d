import type { Tx } from "@/lib/db/client";
import { ApplyFailure, ConcurrentChange } from "@/lib/core/failures";
import { creditKey, refundKey, type PaymentScope } from "@/lib/ledger/business-keys";
import { nextStatus } from "@/lib/orders/transitions";
import type { Effect, OrderRef, ProviderName } from "@/lib/providers/types";

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
  orderId?: string;
  /** The order transition this effect made, when it made one (e.g. created -> paid). */
  transition?: { from: string; to: string };
  /** The payment credited by this effect (minor units), when it credited one. */
  credit?: { paymentKey: string; amount: number; currency: string };
}

/** Providers whose every payment carries a signed amount and currency (Stripe sessions and intents). */
const ALWAYS_SIGNS_AMOUNT: ReadonlySet<string> = new Set(["stripe"]);

/** The columns that locate one payment of one scope (LedgerEntry and ExtraCharge). */
function scopedPayment(scope: PaymentScope, paymentKey: string) {
  return { provider: scope.provider, account: scope.account, livemode: scope.livemode, paymentKey };
}

type OrderRow = NonNullable<Awaited<ReturnType<Tx["order"]["findUnique"]>>>;

async function findOrder(tx: Tx, ref: OrderRef): Promise<OrderRow | null> {
  if (ref.orderId) {
    const order = await tx.order.findUnique({ where: { id: ref.orderId } });
    if (order) return order;
  }
  if (ref.checkoutSessionId) return tx.order.findUnique({ where: { checkoutSessionId: ref.checkoutSessionId } });
  return null;
}

function describeRef(ref: OrderRef): string {
  return ref.orderId ?? (ref.checkoutSessionId ? `checkout session ${ref.checkoutSessionId}` : "(none)");
}

/** Moves `order` from its current status to `to` only if nobody changed it meanwhile (optimistic guard). */
async function transition(tx: Tx, order: OrderRow, to: string, data: { refundedAmount?: number } = {}): Promise<void> {
  const { count } = await tx.order.updateMany({
    where: { id: order.id, status: order.status, refundedAmount: order.refundedAmount },
    data: { status: to, lastEventAt: new Date(), ...data },
  });
  if (count !== 1) throw new ConcurrentChange(`order ${order.id}`);
}

async function applyPayment(tx: Tx, source: EffectSource, effect: Extract<Effect, { kind: "payment" }>): Promise<EffectOutcome> {
  const order = await findOrder(tx, effect.orderRef);
  if (!order) throw new ApplyFailure("unknown_order", `unknown order ${describeRef(effect.orderRef)}`, effect.orderRef.orderId);
  if (order.livemode !== source.livemode) {
    return { outcome: "ignored", reason: `${source.livemode ? "live" : "test"} event does not touch ${order.livemode ? "live" : "test"} order ${order.id}`, orderId: order.id };
  }
  // Stripe always signs the amount and currency of a payment: a stored event without them (one parked
  // or dead-lettered before this rule) is treated as missing too, never credited at the order's price.
  if (effect.amount === "missing" || (ALWAYS_SIGNS_AMOUNT.has(source.provider) && (effect.amount === null || effect.currency === null))) {
    throw new ApplyFailure("amount_missing", `payment ${effect.paymentKey} for order ${order.id} carries no amount, though ${source.provider} always sends one: not credited at the order's price`, order.id);
  }
  const existing = await tx.ledgerEntry.findUnique({ where: { businessKey: creditKey(source, effect.paymentKey) } });
  if (existing) {
    return { outcome: "duplicate", reason: `payment ${effect.paymentKey} already credited by event ${existing.eventId}`, orderId: order.id };
  }
  if (order.status === "paid") {
    const extra = await tx.extraCharge.findUnique({ where: { provider_account_livemode_paymentKey: scopedPayment(source, effect.paymentKey) } });
    if (extra) return { outcome: "duplicate", reason: `extra charge ${effect.paymentKey} already recorded`, orderId: order.id };
    await tx.extraCharge.create({
      data: {
        orderId: order.id,
        paymentKey: effect.paymentKey,
        amount: effect.amount ?? order.amount,
        currency: effect.currency ?? order.currency,
        provider: source.provider,
        account: source.account,
        livemode: source.livemode,
        eventId: source.eventId,
      },
    });
    await tx.order.update({ where: { id: order.id }, data: { lastEventAt: new Date() } });
    return { outcome: "applied", reason: `order already paid: payment ${effect.paymentKey} recorded as an extra charge for review, not credited`, orderId: order.id };
  }
  const to = nextStatus(order.status, "payment.approved");
  if (!to) throw new ApplyFailure("transition", `no transition from ${order.status} on payment.approved for order ${order.id}`, order.id);
  if (effect.currency !== null && effect.currency.toUpperCase() !== order.currency.toUpperCase()) {
    throw new ApplyFailure("currency_mismatch", `currency mismatch for order ${order.id}: payment ${effect.currency.toUpperCase()}, order ${order.currency}`, order.id);
  }
  if (effect.amount !== null && effect.amount !== order.amount) {
    throw new ApplyFailure("amount_mismatch", `amount mismatch for order ${order.id}: payment ${effect.amount}, order ${order.amount} (${order.currency} minor units)`, order.id);
  }
  await tx.ledgerEntry.create({
    data: {
      businessKey: creditKey(source, effect.paymentKey),
      orderId: order.id,
      paymentKey: effect.paymentKey,
      kind: "credit",
      amount: order.amount,
      currency: order.currency,
      provider: source.provider,
      account: source.account,
      livemode: source.livemode,
      eventId: source.eventId,
    },
  });
  await transition(tx, order, to);
  await tx.delivery.create({ data: { orderId: order.id, paymentKey: effect.paymentKey, provider: source.provider, eventId: source.eventId } });
  return {
    outcome: "applied",
    reason: `credited ${order.amount} ${order.currency}; order ${order.id} ${order.status} -> ${to}`,
    orderId: order.id,
    transition: { from: order.status, to },
    credit: { paymentKey: effect.paymentKey, amount: order.amount, currency: order.currency },
  };
}

async function applyRefund(tx: Tx, source: EffectSource, effect: Extract<Effect, { kind: "refund" }>): Promise<EffectOutcome> {
  const credit = await tx.ledgerEntry.findUnique({ where: { businessKey: creditKey(source, effect.paymentKey) } });
  const order = credit ? await tx.order.findUnique({ where: { id: credit.orderId } }) : await findOrder(tx, effect.orderRef);
  if (!order) throw new ApplyFailure("unknown_order", `unknown order ${describeRef(effect.orderRef)}`, effect.orderRef.orderId);
  if (order.livemode !== source.livemode) {
    return { outcome: "ignored", reason: `${source.livemode ? "live" : "test"} event does not touch ${order.livemode ? "live" : "test"} order ${order.id}`, orderId: order.id };
  }
  if (!credit) {
    const extra = await tx.extraCharge.findUnique({ where: { provider_account_livemode_paymentKey: scopedPayment(source, effect.paymentKey) } });
    if (extra) {
      await tx.extraCharge.update({ where: { id: extra.id }, data: { note: `refunded by event ${source.eventId}` } });
      return { outcome: "applied", reason: `refund of extra charge ${effect.paymentKey} recorded; order unchanged`, orderId: order.id };
    }
    throw new ApplyFailure("transition", `no transition from ${order.status} on payment.refunded for order ${order.id}: payment ${effect.paymentKey} was never credited`, order.id);
  }
  const refundedTotal = effect.refundedTotal ?? credit.amount;
  if (effect.currency !== null && effect.currency.toUpperCase() !== credit.currency.toUpperCase()) {
    throw new ApplyFailure("currency_mismatch", `currency mismatch for refund of order ${order.id}: refund ${effect.currency.toUpperCase()}, payment ${credit.currency}`, order.id);
  }
  if (refundedTotal > credit.amount || refundedTotal <= 0) {
    throw new ApplyFailure("amount_mismatch", `refund total ${refundedTotal} is outside 1..${credit.amount} for order ${order.id}`, order.id);
  }
  const refunds = await tx.ledgerEntry.aggregate({ where: { ...scopedPayment(source, effect.paymentKey), kind: "refund" }, _sum: { amount: true } });
  const alreadyRefunded = -(refunds._sum.amount ?? 0);
  if (refundedTotal <= alreadyRefunded) {
    return { outcome: "duplicate", reason: `refund total ${refundedTotal} of payment ${effect.paymentKey} already recorded (refunded ${alreadyRefunded})`, orderId: order.id };
  }
  const full = refundedTotal === credit.amount;
  const to = nextStatus(order.status, full ? "payment.refunded" : "payment.partially_refunded");
  if (!to) throw new ApplyFailure("transition", `no transition from ${order.status} on ${full ? "payment.refunded" : "payment.partially_refunded"} for order ${order.id}`, order.id);
  const delta = refundedTotal - alreadyRefunded;
  await tx.ledgerEntry.create({
    data: {
      businessKey: refundKey(source, effect.paymentKey, full ? null : refundedTotal),
      orderId: order.id,
      paymentKey: effect.paymentKey,
      kind: "refund",
      amount: -delta,
      currency: credit.currency,
      provider: source.provider,
      account: source.account,
      livemode: source.livemode,
      eventId: source.eventId,
    },
  });
  await transition(tx, order, to, { refundedAmount: order.refundedAmount + delta });
  return {
    outcome: "applied",
    reason: `refunded ${delta} ${credit.currency} (total ${refundedTotal}); order ${order.id} ${order.status} -> ${to}`,
    orderId: order.id,
    transition: { from: order.status, to },
  };
}

/**
 * Applies one normalised effect inside the caller's transaction. Returns what it did. Throws
 * {@link ApplyFailure} when the written rules forbid it (the caller rolls everything back and dead-letters
 * it) and {@link ConcurrentChange} when a concurrent writer changed the order (the caller retries).
 * Rules: seed article controls 3 and 4 (business keys, transition table); Stripe charge.refunded for
 * absolute refunded totals.
 */
export async function applyEffect(tx: Tx, source: EffectSource, effect: Effect): Promise<EffectOutcome> {
  switch (effect.kind) {
    case "payment":
      return applyPayment(tx, source, effect);
    case "refund":
      return applyRefund(tx, source, effect);
    case "payment_failed": {
      const order = await findOrder(tx, effect.orderRef);
      return { outcome: "ignored", reason: `payment failure of ${effect.paymentKey} recorded; a later success still applies`, orderId: order?.id ?? effect.orderRef.orderId };
    }
    case "record_only":
      return { outcome: "ignored", reason: effect.reason };
  }
}
