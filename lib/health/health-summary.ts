import type { Db } from "@/lib/db/client";

/** Inbox statuses that still wait for the worker (issue 4): counted as pending. */
export const PENDING_EVENT_STATUSES = ["received", "processing", "failed"] as const;

/** The health strip's figures. Ages in seconds, relative to `now`. */
export interface HealthSummary {
  pendingEvents: number;
  oldestPendingAgeSeconds: number | null;
  openDeadLetters: number;
  uncertainOutbox: number;
}

/**
 * Counts what an operator watches on every page: events stored but not yet processed and the age of
 * the oldest, open dead letters, uncertain outbox rows. Each is one indexed count/min query.
 */
export async function healthSummary(db: Db, now = new Date()): Promise<HealthSummary> {
  const pendingWhere = { status: { in: [...PENDING_EVENT_STATUSES] } };
  const [pendingEvents, oldest, openDeadLetters, uncertainOutbox] = await Promise.all([
    db.webhookEvent.count({ where: pendingWhere }),
    db.webhookEvent.findFirst({ where: pendingWhere, orderBy: { receivedAt: "asc" }, select: { receivedAt: true } }),
    db.deadLetter.count({ where: { status: "open" } }),
    db.outboxMessage.count({ where: { status: "uncertain" } }),
  ]);
  return {
    pendingEvents,
    oldestPendingAgeSeconds: oldest ? Math.max(0, Math.floor((now.getTime() - oldest.receivedAt.getTime()) / 1000)) : null,
    openDeadLetters,
    uncertainOutbox,
  };
}
