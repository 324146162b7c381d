import type { Tx } from "@/lib/db/client";

/**
 * Moves an order from the status (and refunded total) it was read with to `to`, only if nobody changed
 * it meanwhile: an optimistic guard, one UPDATE. Returns false when a concurrent writer got there first
 * (the caller restarts its transaction). `refundedAmount` in minor units.
 */
export async function transitionOrder(tx: Tx, order: { id: string; status: string; refundedAmount: number }, to: string, now: Date, data: { refundedAmount?: number } = {}): Promise<boolean> {
  const { count } = await tx.order.updateMany({
    where: { id: order.id, status: order.status, refundedAmount: order.refundedAmount },
    data: { status: to, lastEventAt: now, ...data },
  });
  return count === 1;
}

/** Stamps an order with the time of the last event that touched it without changing its status. */
export async function touchOrder(tx: Tx, orderId: string, now: Date): Promise<void> {
  await tx.order.update({ where: { id: orderId }, data: { lastEventAt: now } });
}
