import type { SqlSession } from "@/lib/db/driver";
import { sqliteBoolean } from "@/lib/db/sql-values";
import type { OrderRow } from "@/lib/core/books";


const ORDER_COLUMNS = `"id", "status", "amount", "currency", "refundedAmount", "disputedAmount", "livemode"`;

function orderOf(row: (Omit<OrderRow, "livemode"> & { livemode: boolean | number }) | undefined): OrderRow | null {
  return row ? { ...row, livemode: sqliteBoolean(row.livemode) } : null;
}

/** The order with this merchant id, or null. */
export async function orderById(session: SqlSession, id: string): Promise<OrderRow | null> {
  return orderOf((await session.all<OrderRow>(`SELECT ${ORDER_COLUMNS} FROM "Order" WHERE "id" = ?`, [id]))[0]);
}

/** The order a provider's checkout session was stored with, or null. */
export async function orderByCheckoutSession(session: SqlSession, checkoutSessionId: string): Promise<OrderRow | null> {
  return orderOf((await session.all<OrderRow>(`SELECT ${ORDER_COLUMNS} FROM "Order" WHERE "checkoutSessionId" = ?`, [checkoutSessionId]))[0]);
}

/**
 * Moves an order from the status and running totals it was read with to `to` (and the new totals in
 * `changes`, minor units), only if nobody changed it meanwhile: an optimistic guard, one UPDATE.
 * Returns false when a concurrent writer got there first (the caller restarts its transaction).
 */
export async function transitionOrder(
  session: SqlSession,
  order: Pick<OrderRow, "id" | "status" | "refundedAmount" | "disputedAmount">,
  to: string,
  now: Date,
  changes: { refundedAmount?: number; disputedAmount?: number } = {},
): Promise<boolean> {
  const changed = await session.run(
    `UPDATE "Order" SET "status" = ?, "refundedAmount" = ?, "disputedAmount" = ?, "lastEventAt" = ?, "updatedAt" = ?
     WHERE "id" = ? AND "status" = ? AND "refundedAmount" = ? AND "disputedAmount" = ?`,
    [to, changes.refundedAmount ?? order.refundedAmount, changes.disputedAmount ?? order.disputedAmount, now, now, order.id, order.status, order.refundedAmount, order.disputedAmount],
  );
  return changed === 1;
}

/** Stamps an order with the time of the last event that touched it, its status unchanged. */
export async function touchOrder(session: SqlSession, orderId: string, now: Date): Promise<void> {
  await session.run(`UPDATE "Order" SET "lastEventAt" = ?, "updatedAt" = ? WHERE "id" = ?`, [now, now, orderId]);
}

/**
 * Puts an order back where it was created (status `created`, nothing refunded or disputed) so its stored
 * events can be applied again from nothing: ONLY inside a transaction (or savepoint) that is rolled
 * back, by the books' rebuild (lib/verification). Returns false when there is no such order.
 */
export async function resetOrderForRebuild(session: SqlSession, orderId: string): Promise<boolean> {
  return (await session.run(`UPDATE "Order" SET "status" = 'created', "refundedAmount" = 0, "disputedAmount" = 0 WHERE "id" = ?`, [orderId])) === 1;
}
