import type { SqlSession } from "@/lib/db/driver";
import { newRowId } from "@/lib/db/row-id";
import { dateOfUnixSeconds, sqlUnixSeconds } from "@/lib/db/sql-values";
import type { PaymentScope } from "@/lib/core/business-keys";
import type { RefundObjectFact, RefundSnapshotFact } from "@/lib/core/books";


/** Every refunded total reported for a payment in its scope. One indexed read (provider, account, livemode, paymentKey). */
export async function refundSnapshots(session: SqlSession, scope: PaymentScope, paymentKey: string): Promise<RefundSnapshotFact[]> {
  const rows = await session.all<{ total: number | bigint; at: Date | string | number | null }>(
    `SELECT "total", "at" FROM "RefundSnapshot" WHERE "provider" = ? AND "account" = ? AND "livemode" = ? AND "paymentKey" = ?`,
    [scope.provider, scope.account, scope.livemode, paymentKey],
  );
  return rows.map((row) => ({ total: Number(row.total), at: sqlUnixSeconds(row.at) }));
}

/**
 * Keeps a refunded total the provider reported (once per total and time): a later refund failure is
 * weighed against every total, booked or not. `eventId` is the event that reported it.
 */
export async function recordRefundSnapshot(session: SqlSession, scope: PaymentScope, paymentKey: string, snapshot: RefundSnapshotFact, eventId: string, now: Date): Promise<void> {
  await session.run(
    `INSERT INTO "RefundSnapshot" ("id", "provider", "account", "livemode", "paymentKey", "total", "at", "eventId", "createdAt")
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    [newRowId(now), scope.provider, scope.account, scope.livemode, paymentKey, snapshot.total, dateOfUnixSeconds(snapshot.at), eventId, now],
  );
}


/** Every refund object named for a payment in its scope, booked by its id or not. One indexed read. */
export async function refundObjects(session: SqlSession, scope: PaymentScope, paymentKey: string): Promise<RefundObjectFact[]> {
  const rows = await session.all<{ refundId: string; amount: number | bigint; createdAt: Date | string | number | null }>(
    `SELECT "refundId", "amount", "createdAt" FROM "RefundObject" WHERE "provider" = ? AND "account" = ? AND "livemode" = ? AND "paymentKey" = ?`,
    [scope.provider, scope.account, scope.livemode, paymentKey],
  );
  return rows.map((row) => ({ refundId: row.refundId, amount: Number(row.amount), createdAt: sqlUnixSeconds(row.createdAt) }));
}

/** Keeps the refund objects an event named (once per refund id; an id already kept keeps its first amount and time). */
export async function recordRefundObjects(session: SqlSession, scope: PaymentScope, paymentKey: string, objects: readonly RefundObjectFact[], eventId: string, now: Date): Promise<void> {
  for (const object of objects) {
    await session.run(
      `INSERT INTO "RefundObject" ("id", "provider", "account", "livemode", "paymentKey", "refundId", "amount", "createdAt", "eventId", "recordedAt")
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      [newRowId(now), scope.provider, scope.account, scope.livemode, paymentKey, object.refundId, object.amount, dateOfUnixSeconds(object.createdAt), eventId, now],
    );
  }
}

/**
 * Removes the refunded totals and refund objects kept for these payments so their stored events can be
 * applied again from nothing: ONLY inside a transaction (or savepoint) that is rolled back, by the
 * books' rebuild (lib/verification).
 */
export async function clearRefundFactsForRebuild(session: SqlSession, payments: readonly (PaymentScope & { paymentKey: string })[]): Promise<void> {
  for (const payment of payments) {
    const key = [payment.provider, payment.account, payment.livemode, payment.paymentKey];
    await session.run(`DELETE FROM "RefundSnapshot" WHERE "provider" = ? AND "account" = ? AND "livemode" = ? AND "paymentKey" = ?`, key);
    await session.run(`DELETE FROM "RefundObject" WHERE "provider" = ? AND "account" = ? AND "livemode" = ? AND "paymentKey" = ?`, key);
  }
}
