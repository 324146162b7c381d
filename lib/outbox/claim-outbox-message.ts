import type { Db } from "@/lib/db/client";
import { databaseKind } from "@/lib/db/database-kind";

/** An outbox message this dispatcher now holds (status `sending`). `attempts` already counts this send. */
export interface ClaimedOutboxMessage {
  id: string;
  idempotencyKey: string;
  orderId: string;
  target: string;
  body: string;
  attempts: number;
}

/** Why a message left in `sending` becomes uncertain: shown to the operator with it. */
export const ABANDONED_SEND_REASON = "the dispatcher stopped while sending (crash or kill): the target may have received it; not re-sent automatically";

/**
 * A message still `sending` after its lease expired belongs to a dispatcher that died between sending
 * and recording the answer: the target may have acted, so it becomes `uncertain` (shown for
 * reconciliation), never re-sent blindly. One conditional UPDATE. Returns how many were marked.
 */
export async function markAbandonedSendsUncertain(db: Db, now: Date): Promise<number> {
  const { count } = await db.outboxMessage.updateMany({
    where: { status: "sending", leaseExpiresAt: { lte: now } },
    data: { status: "uncertain", leaseOwner: null, leaseExpiresAt: null, lastError: ABANDONED_SEND_REASON },
  });
  return count;
}

/**
 * Claims the next due `pending` message for `owner` (status `sending`, lease of `leaseMs`, attempts + 1).
 * Returns it, or null when none is due. The one place that decides how outbox work is claimed, one
 * statement per database like the inbox claim (see claimNextInboxEvent): SQLite one guarded UPDATE per
 * candidate, PostgreSQL `FOR UPDATE SKIP LOCKED`.
 */
export async function claimNextOutboxMessage(db: Db, owner: string, now: Date, leaseMs: number): Promise<ClaimedOutboxMessage | null> {
  return databaseKind(db) === "postgresql" ? claimOutboxWithSkipLocked(db, owner, now, leaseMs) : claimOutboxWithGuardedUpdate(db, owner, now, leaseMs);
}

/** PostgreSQL's outbox claim: the first due pending message no other transaction has locked, taken in one statement. */
export async function claimOutboxWithSkipLocked(db: Db, owner: string, now: Date, leaseMs: number): Promise<ClaimedOutboxMessage | null> {
  const rows = await db.$queryRaw<ClaimedOutboxMessage[]>`
    WITH next AS (
      SELECT "id" FROM "OutboxMessage"
      WHERE "status" = 'pending' AND "nextAttemptAt" <= ${now}
      ORDER BY "nextAttemptAt" ASC, "createdAt" ASC
      LIMIT 1
      FOR UPDATE SKIP LOCKED
    )
    UPDATE "OutboxMessage" AS message
    SET "status" = 'sending', "leaseOwner" = ${owner}, "leaseExpiresAt" = ${new Date(now.getTime() + leaseMs)}, "attempts" = message."attempts" + 1, "updatedAt" = ${now}
    FROM next
    WHERE message."id" = next."id"
    RETURNING message."id", message."idempotencyKey", message."orderId", message."target", message."body", message."attempts"`;
  return rows.length === 1 ? rows[0] : null;
}

/** SQLite's outbox claim: one guarded UPDATE per candidate. */
export async function claimOutboxWithGuardedUpdate(db: Db, owner: string, now: Date, leaseMs: number): Promise<ClaimedOutboxMessage | null> {
  const candidates = await db.outboxMessage.findMany({
    where: { status: "pending", nextAttemptAt: { lte: now } },
    orderBy: [{ nextAttemptAt: "asc" }, { createdAt: "asc" }],
    take: 8,
    select: { id: true, attempts: true },
  });
  for (const candidate of candidates) {
    const { count } = await db.outboxMessage.updateMany({
      where: { id: candidate.id, status: "pending", attempts: candidate.attempts },
      data: { status: "sending", leaseOwner: owner, leaseExpiresAt: new Date(now.getTime() + leaseMs), attempts: { increment: 1 } },
    });
    if (count !== 1) continue;
    const row = await db.outboxMessage.findUnique({
      where: { id: candidate.id },
      select: { id: true, idempotencyKey: true, orderId: true, target: true, body: true, attempts: true },
    });
    if (row) return row;
  }
  return null;
}
