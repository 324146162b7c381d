import type { Tx } from "@/lib/db/client";
import type { PaymentScope } from "@/lib/ledger/business-keys";

/**
 * Makes the parked inbox events of one order (or one payment) due now, because a transition just
 * landed on that order: a refund that arrived before its approval is re-checked at once instead of
 * waiting for its backoff timer. Runs inside the transaction that made the transition.
 * Returns how many events were woken.
 */
export async function wakeParkedEvents(tx: Tx, target: { orderId?: string; paymentKey?: string; scope: PaymentScope }, now: Date): Promise<number> {
  // A payment id means something only in its scope: another provider's event naming the same id must not wake (and spend the retries of) this one.
  const or = [
    ...(target.orderId ? [{ orderId: target.orderId }] : []),
    ...(target.paymentKey ? [{ paymentKey: target.paymentKey, provider: target.scope.provider, account: target.scope.account, livemode: target.scope.livemode }] : []),
  ];
  if (or.length === 0) return 0;
  const { count } = await tx.webhookEvent.updateMany({ where: { status: "failed", nextAttemptAt: { gt: now }, OR: or }, data: { nextAttemptAt: now } });
  return count;
}
