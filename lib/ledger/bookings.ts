import type { Db, Tx } from "@/lib/db/client";
import type { SqlSession } from "@/lib/db/driver";
import { newRowId } from "@/lib/db/row-id";
import { dateOfUnixSeconds, sqliteBoolean, sqlUnixSeconds } from "@/lib/db/sql-values";
import { creditKey, type LedgerKind, type PaymentScope } from "@/lib/core/business-keys";
import type { PaymentEntry } from "@/lib/core/books";

// The ledger's reads and writes on the hot path, as driver statements (lib/db/driver.ts): each one
// prepared once per connection. Rows are written as the model API would write them (ULID ids, the
// model API's date format, explicit createdAt) so Prisma reads them back unchanged.

/** The event a booking comes from, in the scope of the endpoint that reported it. */
export interface BookingSource extends PaymentScope {
  /** The organization whose order and books it is (the receiving endpoint's). */
  organizationId: string;
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
 * Every refund, failed-refund and dispute entry of a payment in its scope, oldest first: what a refund's
 * or a dispute's decision weighs the event against. One indexed read (provider, account, livemode, paymentKey).
 */
export async function paymentEntries(session: SqlSession, scope: PaymentScope, paymentKey: string): Promise<PaymentEntry[]> {
  const rows = await session.all<{ businessKey: string; kind: LedgerKind; amount: number | bigint; occurredAt: Date | string | number | null }>(
    `SELECT "businessKey", "kind", "amount", "occurredAt" FROM "LedgerEntry"
     WHERE "provider" = ? AND "account" = ? AND "livemode" = ? AND "paymentKey" = ? AND "kind" <> 'credit' ORDER BY "id"`,
    [scope.provider, scope.account, scope.livemode, paymentKey],
  );
  return rows.map((row) => ({ businessKey: row.businessKey, kind: row.kind, amount: Number(row.amount), occurredAt: sqlUnixSeconds(row.occurredAt) }));
}

/**
 * Books one ledger entry of `kind` under its business key: `INSERT ... ON CONFLICT ("businessKey") DO
 * NOTHING RETURNING`, no read first. `occurredAt` (unix seconds) is the provider's time of the movement, when known. Returns false when the key was already booked (a concurrent
 * writer got there first: the caller restarts its transaction and finds it done). `amount` in minor
 * units of `currency`, signed as the kind says ({@link LedgerKind}).
 */
export async function bookEntry(
  session: SqlSession,
  source: BookingSource,
  entry: { businessKey: string; kind: LedgerKind; orderId: string; paymentKey: string; amount: number; currency: string; occurredAt?: number | null },
  now: Date,
): Promise<boolean> {
  const occurredAt = dateOfUnixSeconds(entry.occurredAt);
  const rows = await session.all(
    `INSERT INTO "LedgerEntry" ("id", "organizationId", "businessKey", "orderId", "paymentKey", "kind", "amount", "currency", "provider", "account", "livemode", "eventId", "occurredAt", "createdAt")
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT ("businessKey") DO NOTHING RETURNING "id"`,
    [newRowId(now), source.organizationId, entry.businessKey, entry.orderId, entry.paymentKey, entry.kind, entry.amount, entry.currency, source.provider, source.account, source.livemode, source.eventId, occurredAt, now],
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
  await session.run(`INSERT INTO "Delivery" ("id", "organizationId", "orderId", "paymentKey", "provider", "eventId", "createdAt") VALUES (?, ?, ?, ?, ?, ?, ?)`, [
    newRowId(now),
    source.organizationId,
    credit.orderId,
    credit.paymentKey,
    source.provider,
    source.eventId,
    now,
  ]);
  return true;
}

/** A ledger entry of an order as a check of the books compares it (amount signed, minor units of `currency`). */
export interface OrderLedgerEntry {
  businessKey: string;
  kind: string;
  amount: number;
  currency: string;
  /** The provider's event that booked it. */
  eventId: string;
  /** The payment's scope and key, as booked. */
  provider: string;
  account: string;
  livemode: boolean;
  paymentKey: string;
}

/** Every ledger entry of an organization's order, by business key. One indexed read (organizationId, orderId). */
export async function ledgerOfOrder(session: SqlSession, organizationId: string, orderId: string): Promise<OrderLedgerEntry[]> {
  const rows = await session.all<Omit<OrderLedgerEntry, "amount" | "livemode"> & { amount: number | bigint; livemode: boolean | number }>(
    `SELECT "businessKey", "kind", "amount", "currency", "eventId", "provider", "account", "livemode", "paymentKey" FROM "LedgerEntry" WHERE "organizationId" = ? AND "orderId" = ? ORDER BY "businessKey"`,
    [organizationId, orderId],
  );
  return rows.map((row) => ({ ...row, amount: Number(row.amount), livemode: sqliteBoolean(row.livemode) }));
}

/**
 * Empties an order's bookings (its ledger entries, its delivery, its extra charges) so its stored events
 * can be applied again from nothing: ONLY inside a transaction (or savepoint) that is rolled back, by the
 * books' rebuild (lib/verification). Returns how many ledger entries it removed.
 */
export async function clearOrderBookingsForRebuild(session: SqlSession, organizationId: string, orderId: string): Promise<number> {
  const entries = await session.run(`DELETE FROM "LedgerEntry" WHERE "organizationId" = ? AND "orderId" = ?`, [organizationId, orderId]);
  await session.run(`DELETE FROM "Delivery" WHERE "organizationId" = ? AND "orderId" = ?`, [organizationId, orderId]);
  await session.run(`DELETE FROM "ExtraCharge" WHERE "organizationId" = ? AND "orderId" = ?`, [organizationId, orderId]);
  return entries;
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
    `INSERT INTO "ExtraCharge" ("id", "organizationId", "orderId", "paymentKey", "amount", "currency", "provider", "account", "livemode", "eventId", "status", "createdAt")
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', ?) ON CONFLICT ("provider", "account", "livemode", "paymentKey") DO NOTHING RETURNING "id"`,
    [newRowId(now), source.organizationId, charge.orderId, charge.paymentKey, charge.amount, charge.currency, source.provider, source.account, source.livemode, source.eventId, now],
  );
  return rows.length === 1;
}

/** Notes on an extra charge that the provider refunded it. */
export async function noteExtraChargeRefunded(session: SqlSession, extraChargeId: string, eventId: string): Promise<void> {
  await session.run(`UPDATE "ExtraCharge" SET "note" = ? WHERE "id" = ?`, [`refunded by event ${eventId}`, extraChargeId]);
}

/**
 * Resolves an open extra charge by hand with `note` (e.g. "refunded in the provider's console", at most
 * 500 characters kept) and who resolved it, with `client` (a transaction with its audit row). Returns
 * false when it is not open.
 */
export async function resolveExtraCharge(client: Db | Tx, organizationId: string, id: string, note: string, resolvedBy: string, now: Date): Promise<boolean> {
  const { count } = await client.extraCharge.updateMany({ where: { id, organizationId, status: "open" }, data: { status: "resolved", note: note.slice(0, 500), resolvedBy, resolvedAt: now } });
  return count === 1;
}
