import type { Tx } from "@/lib/db/client";
import { creditKey, refundKey, type LedgerKind, type PaymentScope } from "@/lib/ledger/business-keys";

/** The event a booking comes from, in the scope of the endpoint that reported it. */
export interface BookingSource extends PaymentScope {
  eventId: string;
}

/** The columns that locate one payment of one scope (LedgerEntry and ExtraCharge). */
function scopedPayment(scope: PaymentScope, paymentKey: string) {
  return { provider: scope.provider, account: scope.account, livemode: scope.livemode, paymentKey };
}

/** The credit entry of a payment in its scope (its business key), or null when it was never credited. */
export async function findCredit(tx: Tx, scope: PaymentScope, paymentKey: string) {
  return tx.ledgerEntry.findUnique({ where: { businessKey: creditKey(scope, paymentKey) } });
}

/**
 * What was refunded so far of a payment in its scope, in minor units (positive): its refund entries
 * (negative) net of the reversals of failed refunds (positive), and how many refunds failed.
 */
export async function refundsOf(tx: Tx, scope: PaymentScope, paymentKey: string): Promise<{ refunded: number; failedRefunds: number }> {
  const rows = await tx.ledgerEntry.groupBy({ by: ["kind"], where: { ...scopedPayment(scope, paymentKey), kind: { in: ["refund", "refund_failed"] } }, _sum: { amount: true }, _count: { _all: true } });
  const refunded = -rows.reduce((total, row) => total + (row._sum.amount ?? 0), 0);
  return { refunded, failedRefunds: rows.find((row) => row.kind === "refund_failed")?._count._all ?? 0 };
}

/** Whether a ledger entry with this business key exists. */
export async function entryExists(tx: Tx, businessKey: string): Promise<boolean> {
  return (await tx.ledgerEntry.findUnique({ where: { businessKey }, select: { id: true } })) !== null;
}

/**
 * Books one ledger entry of `kind` under its business key (UNIQUE: booking it twice fails on the key and
 * rolls back its transaction). `amount` in minor units of `currency`, signed as the kind says
 * (lib/ledger/business-keys.ts {@link LedgerKind}).
 */
export async function bookEntry(tx: Tx, source: BookingSource, entry: { businessKey: string; kind: LedgerKind; orderId: string; paymentKey: string; amount: number; currency: string }): Promise<void> {
  await tx.ledgerEntry.create({
    data: { ...entry, provider: source.provider, account: source.account, livemode: source.livemode, eventId: source.eventId },
  });
}

/**
 * Books the credit of a payment under its business key `credit:<provider>:<account>:<live|test>:<payment>`
 * (UNIQUE: a second credit of the same payment fails on the key and rolls back its transaction), with
 * the delivery row the order's timeline shows. Amount in minor units of `currency`.
 */
export async function bookCredit(tx: Tx, source: BookingSource, credit: { orderId: string; paymentKey: string; amount: number; currency: string }): Promise<void> {
  await tx.ledgerEntry.create({
    data: {
      businessKey: creditKey(source, credit.paymentKey),
      orderId: credit.orderId,
      paymentKey: credit.paymentKey,
      kind: "credit",
      amount: credit.amount,
      currency: credit.currency,
      provider: source.provider,
      account: source.account,
      livemode: source.livemode,
      eventId: source.eventId,
    },
  });
  await tx.delivery.create({ data: { orderId: credit.orderId, paymentKey: credit.paymentKey, provider: source.provider, eventId: source.eventId } });
}

/**
 * Books a refund of `delta` minor units (stored negative) under `refund:<scope>:<payment>` for the
 * refund that completes the payment, or `...:<payment>:<refunded total>` for a partial one, so a
 * replayed partial refund cannot count twice (Stripe charge.refunded reports absolute totals).
 */
export async function bookRefund(tx: Tx, source: BookingSource, refund: { orderId: string; paymentKey: string; delta: number; refundedTotal: number; full: boolean; failedBefore: number; currency: string }): Promise<void> {
  await tx.ledgerEntry.create({
    data: {
      businessKey: refundKey(source, refund.paymentKey, refund.full ? null : refund.refundedTotal, refund.failedBefore),
      orderId: refund.orderId,
      paymentKey: refund.paymentKey,
      kind: "refund",
      amount: -refund.delta,
      currency: refund.currency,
      provider: source.provider,
      account: source.account,
      livemode: source.livemode,
      eventId: source.eventId,
    },
  });
}

/** The extra charge recorded for a payment in its scope (a second payment of a paid order), or null. */
export async function findExtraCharge(tx: Tx, scope: PaymentScope, paymentKey: string) {
  return tx.extraCharge.findUnique({ where: { provider_account_livemode_paymentKey: scopedPayment(scope, paymentKey) } });
}

/** Records a second payment of a paid order for review; it is never credited (UNIQUE per payment of a scope). */
export async function recordExtraCharge(tx: Tx, source: BookingSource, charge: { orderId: string; paymentKey: string; amount: number; currency: string }): Promise<void> {
  await tx.extraCharge.create({
    data: { ...charge, provider: source.provider, account: source.account, livemode: source.livemode, eventId: source.eventId },
  });
}

/** Notes on an extra charge that the provider refunded it. */
export async function noteExtraChargeRefunded(tx: Tx, extraChargeId: string, eventId: string): Promise<void> {
  await tx.extraCharge.update({ where: { id: extraChargeId }, data: { note: `refunded by event ${eventId}` } });
}
