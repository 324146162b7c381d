import { db as defaultDb, type Db } from "@/lib/db/client";
import { logger } from "@/lib/log/logger";

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

/** True when the database answers a trivial query (for GET /api/health); logs, never throws. */
export async function checkDatabase(): Promise<boolean> {
  try {
    const client = await defaultDb();
    await client.order.findFirst({ select: { id: true } });
    return true;
  } catch (error) {
    logger.error({ err: error instanceof Error ? error.message : String(error) }, "health check: database unreachable");
    return false;
  }
}
