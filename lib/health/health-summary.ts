import type { Db } from "@/lib/db/client";
import { latestBooksCheck, type BooksCheckView } from "@/lib/monitoring/books-checks";
import { FAILED_ATTEMPT_OUTCOMES, PENDING_INBOX_STATUSES } from "@/lib/monitoring/operational-metrics";

/** The health strip's figures. Ages in seconds, relative to `now`. */
export interface HealthSummary {
  pendingEvents: number;
  oldestPendingAgeSeconds: number | null;
  openDeadLetters: number;
  uncertainOutbox: number;
  /** Attempts to apply an event that failed in the last hour (same definition as the monitoring endpoint). */
  failedAttemptsLastHour: number;
  /** The last finished check of the books (rebuild and compare over every order), or null before the first. */
  books: BooksCheckView | null;
}

/**
 * Counts what an operator watches on every page: events stored but not yet processed and the age of
 * the oldest, open dead letters, uncertain outbox rows, the last check of the books, in one organization. Each is one indexed query: the light
 * subset of `collectOperationalMetrics` (lib/monitoring), with the same definition of "pending".
 */
export async function healthSummary(db: Db, organizationId: string, now = new Date()): Promise<HealthSummary> {
  const pendingWhere = { organizationId, status: { in: [...PENDING_INBOX_STATUSES] } };
  const [pendingEvents, oldest, openDeadLetters, uncertainOutbox, failedAttemptsLastHour, books] = await Promise.all([
    db.webhookEvent.count({ where: pendingWhere }),
    db.webhookEvent.findFirst({ where: pendingWhere, orderBy: { receivedAt: "asc" }, select: { receivedAt: true } }),
    db.deadLetter.count({ where: { organizationId, status: "open" } }),
    db.outboxMessage.count({ where: { organizationId, status: "uncertain" } }),
    db.decision.count({ where: { organizationId, outcome: { in: [...FAILED_ATTEMPT_OUTCOMES] }, at: { gte: new Date(now.getTime() - 3_600_000) } } }),
    latestBooksCheck(db, organizationId),
  ]);
  return {
    pendingEvents,
    oldestPendingAgeSeconds: oldest ? Math.max(0, Math.floor((now.getTime() - oldest.receivedAt.getTime()) / 1000)) : null,
    openDeadLetters,
    uncertainOutbox,
    failedAttemptsLastHour,
    books,
  };
}
