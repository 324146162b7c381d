import type { SqlSession } from "@/lib/db/driver";
import { sqliteBoolean } from "@/lib/db/sql-values";
import type { OrderRow } from "@/lib/core/books";


const ORDER_COLUMNS = `"id", "status", "amount", "currency", "refundedAmount", "disputedAmount", "livemode"`;

function orderOf(row: (Omit<OrderRow, "livemode"> & { livemode: boolean | number }) | undefined): OrderRow | null {
  return row ? { ...row, livemode: sqliteBoolean(row.livemode) } : null;
}

/** The organization's order with this merchant id, or null (another organization's order of that id is not it). */
export async function orderById(session: SqlSession, organizationId: string, id: string): Promise<OrderRow | null> {
  return orderOf((await session.all<OrderRow>(`SELECT ${ORDER_COLUMNS} FROM "Order" WHERE "organizationId" = ? AND "id" = ?`, [organizationId, id]))[0]);
}

/** The organization's order a provider's checkout session was stored with, or null. */
export async function orderByCheckoutSession(session: SqlSession, organizationId: string, checkoutSessionId: string): Promise<OrderRow | null> {
  return orderOf((await session.all<OrderRow>(`SELECT ${ORDER_COLUMNS} FROM "Order" WHERE "organizationId" = ? AND "checkoutSessionId" = ?`, [organizationId, checkoutSessionId]))[0]);
}

/**
 * Moves an order from the status and running totals it was read with to `to` (and the new totals in
 * `changes`, minor units), only if nobody changed it meanwhile: an optimistic guard, one UPDATE.
 * Returns false when a concurrent writer got there first (the caller restarts its transaction).
 */
export async function transitionOrder(
  session: SqlSession,
  organizationId: string,
  order: Pick<OrderRow, "id" | "status" | "refundedAmount" | "disputedAmount">,
  to: string,
  now: Date,
  changes: { refundedAmount?: number; disputedAmount?: number } = {},
): Promise<boolean> {
  const changed = await session.run(
    `UPDATE "Order" SET "status" = ?, "refundedAmount" = ?, "disputedAmount" = ?, "lastEventAt" = ?, "updatedAt" = ?
     WHERE "organizationId" = ? AND "id" = ? AND "status" = ? AND "refundedAmount" = ? AND "disputedAmount" = ?`,
    [to, changes.refundedAmount ?? order.refundedAmount, changes.disputedAmount ?? order.disputedAmount, now, now, organizationId, order.id, order.status, order.refundedAmount, order.disputedAmount],
  );
  return changed === 1;
}

/** Stamps an order with the time of the last event that touched it, its status unchanged. */
export async function touchOrder(session: SqlSession, organizationId: string, orderId: string, now: Date): Promise<void> {
  await session.run(`UPDATE "Order" SET "lastEventAt" = ?, "updatedAt" = ? WHERE "organizationId" = ? AND "id" = ?`, [now, now, organizationId, orderId]);
}

/**
 * Puts an order back where it was created (status `created`, nothing refunded or disputed) so its stored
 * events can be applied again from nothing: ONLY inside a transaction (or savepoint) that is rolled
 * back, by the books' rebuild (lib/verification). Returns false when there is no such order.
 */
export async function resetOrderForRebuild(session: SqlSession, organizationId: string, orderId: string): Promise<boolean> {
  return (await session.run(`UPDATE "Order" SET "status" = 'created', "refundedAmount" = 0, "disputedAmount" = 0 WHERE "organizationId" = ? AND "id" = ?`, [organizationId, orderId])) === 1;
}
