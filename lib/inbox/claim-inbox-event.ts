import type { Db } from "@/lib/db/client";

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
 * died). The claim is ONE conditional UPDATE per candidate, guarded by the status and attempt count read
 * just before, so of two workers racing for an event exactly one update matches; the claim sets status
 * `processing`, the lease, and attempts + 1. Returns the claimed event, or null when nothing is due.
 *
 * This is the one place that decides how work is claimed. On SQLite each statement runs on its own
 * (autocommit) and SQLite has one writer at a time, so the guarded UPDATE is enough; the PostgreSQL
 * issue replaces the candidate query here with `SELECT ... FOR UPDATE SKIP LOCKED`.
 */
export async function claimNextInboxEvent(db: Db, owner: string, now: Date, leaseMs: number): Promise<ClaimedInboxEvent | null> {
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
