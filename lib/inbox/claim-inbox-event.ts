import type { Db } from "@/lib/db/client";
import { databaseKind } from "@/lib/db/database-kind";

/** An inbox event this worker now holds under lease. `attempts` already counts this attempt. */
export interface ClaimedInboxEvent {
  id: string;
  provider: string;
  endpoint: string;
  account: string;
  livemode: boolean;
  eventId: string;
  type: string;
  bodyHash: string;
  orderId: string | null;
  paymentKey: string | null;
  payload: string;
  secretLabel: string | null;
  attempts: number;
  receivedAt: Date;
  firstFailedAt: Date | null;
  leaseExpiresAt: Date;
}

/** Candidates looked at per claim: when several workers race for the first, the losers try the next. */
const CLAIM_SCAN = 8;

/**
 * Claims the next due inbox event for `owner` under a lease of `leaseMs`: a `received` or parked
 * (`failed`) event whose nextAttemptAt has come, or a `processing` one whose lease expired (its worker
 * died). The claim sets status `processing`, the lease, and attempts + 1, so two workers never hold one
 * event. Returns the claimed event, or null when nothing is due.
 *
 * This is the one place that decides how work is claimed, with one statement per database:
 * - SQLite: {@link claimWithGuardedUpdate}. Each statement runs on its own (autocommit) and SQLite has
 *   one writer at a time, so an UPDATE guarded by the status and attempt count read just before is enough.
 * - PostgreSQL: {@link claimWithSkipLocked}, one `UPDATE ... WHERE id = (SELECT ... FOR UPDATE SKIP
 *   LOCKED)`: concurrent workers each lock a different due row without waiting for one another, where
 *   guarded updates would have them all race for the same first candidates.
 */
export async function claimNextInboxEvent(db: Db, owner: string, now: Date, leaseMs: number): Promise<ClaimedInboxEvent | null> {
  return databaseKind(db) === "postgresql" ? claimWithSkipLocked(db, owner, now, leaseMs) : claimWithGuardedUpdate(db, owner, now, leaseMs);
}

/**
 * PostgreSQL's claim: picks the first due event in (nextAttemptAt, receivedAt) order that no other
 * transaction has locked, and takes it in the same statement (PostgreSQL docs, SELECT "The Locking
 * Clause": SKIP LOCKED for queue-like tables). Under READ COMMITTED a row that another worker claimed
 * between this statement's snapshot and its lock is re-checked against the WHERE clause and skipped.
 */
export async function claimWithSkipLocked(db: Db, owner: string, now: Date, leaseMs: number): Promise<ClaimedInboxEvent | null> {
  const leaseExpiresAt = new Date(now.getTime() + leaseMs);
  const rows = await db.$queryRaw<Omit<ClaimedInboxEvent, "leaseExpiresAt">[]>`
    WITH next AS (
      SELECT "id" FROM "WebhookEvent"
      WHERE ("status" IN ('received', 'failed') AND "nextAttemptAt" <= ${now})
         OR ("status" = 'processing' AND "leaseExpiresAt" <= ${now})
      ORDER BY "nextAttemptAt" ASC NULLS FIRST, "receivedAt" ASC
      LIMIT 1
      FOR UPDATE SKIP LOCKED
    )
    UPDATE "WebhookEvent" AS event
    SET "status" = 'processing', "leaseOwner" = ${owner}, "leaseExpiresAt" = ${leaseExpiresAt}, "attempts" = event."attempts" + 1
    FROM next
    WHERE event."id" = next."id"
    RETURNING event."id", event."provider", event."endpoint", event."account", event."livemode", event."eventId", event."type",
      event."bodyHash", event."orderId", event."paymentKey", event."payload", event."secretLabel", event."attempts",
      event."receivedAt", event."firstFailedAt"`;
  return rows.length === 1 ? { ...rows[0], leaseExpiresAt } : null;
}

/** SQLite's claim: ONE conditional UPDATE per candidate, guarded by the status and attempt count read just before. */
export async function claimWithGuardedUpdate(db: Db, owner: string, now: Date, leaseMs: number): Promise<ClaimedInboxEvent | null> {
  const candidates = await db.webhookEvent.findMany({
    where: {
      OR: [
        { status: { in: ["received", "failed"] }, nextAttemptAt: { lte: now } },
        { status: "processing", leaseExpiresAt: { lte: now } },
      ],
    },
    orderBy: [{ nextAttemptAt: "asc" }, { receivedAt: "asc" }],
    take: CLAIM_SCAN,
    select: { id: true, status: true, attempts: true },
  });
  const leaseExpiresAt = new Date(now.getTime() + leaseMs);
  for (const candidate of candidates) {
    const { count } = await db.webhookEvent.updateMany({
      where: { id: candidate.id, status: candidate.status, attempts: candidate.attempts },
      data: { status: "processing", leaseOwner: owner, leaseExpiresAt, attempts: { increment: 1 } },
    });
    if (count !== 1) continue;
    const row = await db.webhookEvent.findUnique({
      where: { id: candidate.id },
      select: {
        id: true,
        provider: true,
        endpoint: true,
        account: true,
        livemode: true,
        eventId: true,
        type: true,
        bodyHash: true,
        orderId: true,
        paymentKey: true,
        payload: true,
        secretLabel: true,
        attempts: true,
        receivedAt: true,
        firstFailedAt: true,
      },
    });
    if (row) return { ...row, leaseExpiresAt };
  }
  return null;
}

/**
 * Gives a claimed event back without an attempt counted (a worker stopping before it started on it):
 * status `received`, due now, lease cleared. Only the lease holder's release matches. Returns true when
 * released.
 */
export async function releaseInboxLease(db: Db, id: string, owner: string, now: Date): Promise<boolean> {
  const { count } = await db.webhookEvent.updateMany({
    where: { id, status: "processing", leaseOwner: owner },
    data: { status: "received", leaseOwner: null, leaseExpiresAt: null, nextAttemptAt: now, attempts: { decrement: 1 } },
  });
  return count === 1;
}
