import type { SqlSession } from "@/lib/db/driver";
import { newRowId } from "@/lib/db/row-id";
import { creditKey, refundKey, type LedgerKind, type PaymentScope } from "@/lib/ledger/business-keys";

// The ledger's reads and writes on the hot path, as driver statements (lib/db/driver.ts): each one
// prepared once per connection. Rows are written as the model API would write them (ULID ids, the
// model API's date format, explicit createdAt) so Prisma reads them back unchanged.

/** The event a booking comes from, in the scope of the endpoint that reported it. */
export interface BookingSource extends PaymentScope {
  eventId: string;
}

/** A payment's credit entry (minor units of `currency`). */
export interface CreditEntry {
  orderId: string;
  amount: number;
  currency: string;
  eventId: string;
}

/** The credit entry of a payment in its scope (its business key), or null when it was never credited. */
export async function findCredit(session: SqlSession, scope: PaymentScope, paymentKey: string): Promise<CreditEntry | null> {
  const rows = await session.all<CreditEntry>(`SELECT "orderId", "amount", "currency", "eventId" FROM "LedgerEntry" WHERE "businessKey" = ?`, [creditKey(scope, paymentKey)]);
  return rows[0] ?? null;
}

/**
 * What was refunded so far of a payment in its scope, in minor units (positive): its refund entries
 * (negative) net of the reversals of failed refunds (positive), and how many refunds failed. One
 * indexed read (provider, account, livemode, paymentKey).
 */
export async function refundsOf(session: SqlSession, scope: PaymentScope, paymentKey: string): Promise<{ refunded: number; failedRefunds: number }> {
  const rows = await session.all<{ kind: string; total: number | string | null; entries: number | string }>(
    `SELECT "kind", SUM("amount") AS "total", COUNT(*) AS "entries" FROM "LedgerEntry"
     WHERE "provider" = ? AND "account" = ? AND "livemode" = ? AND "paymentKey" = ? AND "kind" IN ('refund', 'refund_failed')
     GROUP BY "kind"`,
    [scope.provider, scope.account, scope.livemode, paymentKey],
  );
  // PostgreSQL returns SUM and COUNT as bigint text.
  const refunded = -rows.reduce((total, row) => total + Number(row.total ?? 0), 0);
  return { refunded, failedRefunds: Number(rows.find((row) => row.kind === "refund_failed")?.entries ?? 0) };
}

/** Whether a ledger entry with this business key exists. */
export async function entryExists(session: SqlSession, businessKey: string): Promise<boolean> {
  return (await session.all(`SELECT 1 AS "found" FROM "LedgerEntry" WHERE "businessKey" = ?`, [businessKey])).length > 0;
}

/** The signed amount (minor units) of the ledger entry booked under `businessKey`, or null when there is none. */
export async function entryAmount(session: SqlSession, businessKey: string): Promise<number | null> {
  const [row] = await session.all<{ amount: number | bigint }>(`SELECT "amount" FROM "LedgerEntry" WHERE "businessKey" = ?`, [businessKey]);
  return row === undefined ? null : Number(row.amount);
}

/**
 * Books one ledger entry of `kind` under its business key: `INSERT ... ON CONFLICT ("businessKey") DO
 * NOTHING RETURNING`, no read first. Returns false when the key was already booked (a concurrent
 * writer got there first: the caller restarts its transaction and finds it done). `amount` in minor
 * units of `currency`, signed as the kind says ({@link LedgerKind}).
 */
export async function bookEntry(
  session: SqlSession,
  source: BookingSource,
  entry: { businessKey: string; kind: LedgerKind; orderId: string; paymentKey: string; amount: number; currency: string },
  now: Date,
): Promise<boolean> {
  const rows = await session.all(
    `INSERT INTO "LedgerEntry" ("id", "businessKey", "orderId", "paymentKey", "kind", "amount", "currency", "provider", "account", "livemode", "eventId", "createdAt")
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT ("businessKey") DO NOTHING RETURNING "id"`,
    [newRowId(now), entry.businessKey, entry.orderId, entry.paymentKey, entry.kind, entry.amount, entry.currency, source.provider, source.account, source.livemode, source.eventId, now],
  );
  return rows.length === 1;
}

/**
 * Books the credit of a payment under `credit:<provider>:<account>:<live|test>:<payment>` (one per
 * payment of a scope, seed article control 3) with the delivery row the order's timeline shows.
 * Returns false when the credit was already booked.
 */
export async function bookCredit(session: SqlSession, source: BookingSource, credit: { orderId: string; paymentKey: string; amount: number; currency: string }, now: Date): Promise<boolean> {
  const booked = await bookEntry(session, source, { businessKey: creditKey(source, credit.paymentKey), kind: "credit", ...credit }, now);
  if (!booked) return false;
  await session.run(`INSERT INTO "Delivery" ("id", "orderId", "paymentKey", "provider", "eventId", "createdAt") VALUES (?, ?, ?, ?, ?, ?)`, [
    newRowId(now),
    credit.orderId,
    credit.paymentKey,
    source.provider,
    source.eventId,
    now,
  ]);
  return true;
}

/**
 * Books a refund of `delta` minor units (stored negative) under `refund:<scope>:<payment>` for the
 * refund that completes the payment, or `...:<payment>:<refunded total>` for a partial one, so a
 * replayed partial refund cannot count twice (Stripe charge.refunded reports absolute totals).
 * Returns false when that key was already booked.
 */
export async function bookRefund(
  session: SqlSession,
  source: BookingSource,
  refund: { orderId: string; paymentKey: string; delta: number; refundedTotal: number; full: boolean; failedBefore: number; currency: string },
  now: Date,
): Promise<boolean> {
  const businessKey = refundKey(source, refund.paymentKey, refund.full ? null : refund.refundedTotal, refund.failedBefore);
  return bookEntry(session, source, { businessKey, kind: "refund", orderId: refund.orderId, paymentKey: refund.paymentKey, amount: -refund.delta, currency: refund.currency }, now);
}

/** The extra charge recorded for a payment in its scope (a second payment of a paid order), or null. */
export async function findExtraCharge(session: SqlSession, scope: PaymentScope, paymentKey: string): Promise<{ id: string } | null> {
  const rows = await session.all<{ id: string }>(`SELECT "id" FROM "ExtraCharge" WHERE "provider" = ? AND "account" = ? AND "livemode" = ? AND "paymentKey" = ?`, [
    scope.provider,
    scope.account,
    scope.livemode,
    paymentKey,
  ]);
  return rows[0] ?? null;
}

/**
 * Records a second payment of a paid order for review; it is never credited (UNIQUE per payment of a
 * scope). Returns false when it was already recorded.
 */
export async function recordExtraCharge(session: SqlSession, source: BookingSource, charge: { orderId: string; paymentKey: string; amount: number; currency: string }, now: Date): Promise<boolean> {
  const rows = await session.all(
    `INSERT INTO "ExtraCharge" ("id", "orderId", "paymentKey", "amount", "currency", "provider", "account", "livemode", "eventId", "status", "createdAt")
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', ?) ON CONFLICT ("provider", "account", "livemode", "paymentKey") DO NOTHING RETURNING "id"`,
    [newRowId(now), charge.orderId, charge.paymentKey, charge.amount, charge.currency, source.provider, source.account, source.livemode, source.eventId, now],
  );
  return rows.length === 1;
}

/** Notes on an extra charge that the provider refunded it. */
export async function noteExtraChargeRefunded(session: SqlSession, extraChargeId: string, eventId: string): Promise<void> {
  await session.run(`UPDATE "ExtraCharge" SET "note" = ? WHERE "id" = ?`, [`refunded by event ${eventId}`, extraChargeId]);
}
