import type { SqlSession } from "@/lib/db/driver";
import { newRowId } from "@/lib/db/row-id";
import type { DisputeStatus } from "@/lib/core/effect";
import type { PaymentScope } from "@/lib/core/business-keys";

/** A dispute as the books know it: its id, the payment it disputes and its most advanced status. */
export interface DisputeRecord {
  disputeId: string;
  paymentKey: string;
  status: DisputeStatus;
}

/** The disputes of an organization's order, every scope's (an order's status weighs them all). */
export async function disputesOfOrder(session: SqlSession, organizationId: string, orderId: string): Promise<DisputeRecord[]> {
  return session.all<DisputeRecord>(`SELECT "disputeId", "paymentKey", "status" FROM "Dispute" WHERE "organizationId" = ? AND "orderId" = ? ORDER BY "id"`, [organizationId, orderId]);
}

/**
 * Records a dispute's status: inserts it, or advances a stored one. The statement itself refuses to move
 * a closed dispute (won, lost) to another status, so two events applied concurrently cannot reopen it
 * (Stripe: a closed dispute's status is final). Amount in minor units of `currency`.
 */
export async function recordDispute(
  session: SqlSession,
  scope: PaymentScope & { organizationId: string },
  dispute: { disputeId: string; paymentKey: string; orderId: string; status: DisputeStatus; amount: number; currency: string },
  now: Date,
): Promise<void> {
  await session.run(
    `INSERT INTO "Dispute" ("id", "organizationId", "provider", "account", "livemode", "paymentKey", "disputeId", "orderId", "status", "amount", "currency", "createdAt", "updatedAt")
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT ("provider", "account", "livemode", "disputeId") DO UPDATE SET
       "status" = CASE WHEN "Dispute"."status" = 'open' THEN excluded."status" ELSE "Dispute"."status" END,
       "updatedAt" = excluded."updatedAt"`,
    [newRowId(now), scope.organizationId, scope.provider, scope.account, scope.livemode, dispute.paymentKey, dispute.disputeId, dispute.orderId, dispute.status, dispute.amount, dispute.currency, now, now],
  );
}

/**
 * Removes an order's disputes so its stored events can be applied again from nothing: ONLY inside a
 * transaction (or savepoint) that is rolled back, by the books' rebuild (lib/verification).
 */
export async function clearDisputesForRebuild(session: SqlSession, organizationId: string, orderId: string): Promise<void> {
  await session.run(`DELETE FROM "Dispute" WHERE "organizationId" = ? AND "orderId" = ?`, [organizationId, orderId]);
}
