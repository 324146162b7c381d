import type { Tx } from "@/lib/db/client";

/**
 * Makes the parked inbox events of one order (or one payment) due now, because a transition just
 * landed on that order: a refund that arrived before its approval is re-checked at once instead of
 * waiting for its backoff timer (issue 4). Runs inside the transaction that made the transition.
 * Returns how many events were woken.
 */
export async function wakeParkedEvents(tx: Tx, target: { orderId?: string; paymentKey?: string }, now: Date): Promise<number> {
  const or = [
    ...(target.orderId ? [{ orderId: target.orderId }] : []),
    ...(target.paymentKey ? [{ paymentKey: target.paymentKey }] : []),
  ];
  if (or.length === 0) return 0;
  const { count } = await tx.webhookEvent.updateMany({ where: { status: "failed", nextAttemptAt: { gt: now }, OR: or }, data: { nextAttemptAt: now } });
  return count;
}
