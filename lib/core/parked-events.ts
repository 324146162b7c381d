import type { SqlSession, SqlValue } from "@/lib/db/driver";
import type { PaymentScope } from "@/lib/ledger/business-keys";

/**
 * Makes the parked inbox events of one order (or one payment) due now, because a transition just
 * landed on that order: a refund that arrived before its approval is re-checked at once instead of
 * waiting for its backoff timer. Runs inside the transaction that made the transition.
 * Returns how many events were woken.
 */
export async function wakeParkedEvents(session: SqlSession, target: { orderId?: string; paymentKey?: string; scope: PaymentScope }, now: Date): Promise<number> {
  // A payment id means something only in its scope: another provider's event naming the same id must not wake (and spend the retries of) this one.
  const branches: string[] = [];
  const params: SqlValue[] = [];
  if (target.orderId) {
    branches.push(`"orderId" = ?`);
    params.push(target.orderId);
  }
  if (target.paymentKey) {
    branches.push(`("paymentKey" = ? AND "provider" = ? AND "account" = ? AND "livemode" = ?)`);
    params.push(target.paymentKey, target.scope.provider, target.scope.account, target.scope.livemode);
  }
  if (branches.length === 0) return 0;
  return session.run(`UPDATE "WebhookEvent" SET "nextAttemptAt" = ?, "dueAt" = ? WHERE "status" = 'failed' AND "nextAttemptAt" > ? AND (${branches.join(" OR ")})`, [now, now, now, ...params]);
}
