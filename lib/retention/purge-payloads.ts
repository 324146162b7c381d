import type { Db } from "@/lib/db/client";
import { purgeDeadLetterPayloads } from "@/lib/dead-letters/dead-letters";
import { FINISHED_EVENT_STATUSES, purgeEventPayloads } from "@/lib/events/webhook-events";
import { logger } from "@/lib/log/logger";


const DAY_MS = 86_400_000;
const BATCH_SIZE = 500;

/** What one retention run did (counts of rows) and what it deliberately kept. */
export interface RetentionReport {
  /** Payloads older than this (UTC) were eligible. */
  cutoff: string;
  retentionDays: number;
  dryRun: boolean;
  /** WebhookEvent payloads emptied (or, on a dry run, that would be). */
  eventsPurged: number;
  /** DeadLetter payloads emptied (or that would be). */
  deadLettersPurged: number;
  /** Older events kept because they are not finished (received, processing, failed, dead): a worker or a retry still needs them. */
  eventsKeptUnfinished: number;
  /** Older dead letters kept because they are still open: retrying one re-runs its payload. */
  deadLettersKeptOpen: number;
}

/**
 * Empties stored payloads older than `retentionDays` (days, counted back from `now`, UTC):
 * - WebhookEvent.payload of FINISHED events (processed, ignored) received before the cutoff;
 * - DeadLetter.payload of RESOLVED dead letters whose last failure (or resolution, if later) is before it.
 * Unfinished events and open dead letters keep theirs whatever their age: applying or retrying them
 * reads it. The rows themselves stay (event keys keep deduplicating; bodyHash keeps telling a duplicate
 * from a conflict), as do ledger entries and orders; decision rows have their own period
 * (lib/retention/purge-decisions.ts). Each emptied row gets `payload = ""`
 * and `purgedAt = now`. Works in batches of 500 rows, each its own short transaction, so the receiver is
 * never blocked for long. Idempotent: a second run finds nothing. Returns the counts.
 */
export async function purgeExpiredPayloads(db: Db, options: { retentionDays: number; now?: Date; dryRun?: boolean }): Promise<RetentionReport> {
  if (!Number.isInteger(options.retentionDays) || options.retentionDays < 1) throw new RangeError(`retentionDays must be a whole number of days >= 1 (got ${options.retentionDays})`);
  const now = options.now ?? new Date();
  const cutoff = new Date(now.getTime() - options.retentionDays * DAY_MS);
  const dryRun = options.dryRun ?? false;

  const eventWhere = { purgedAt: null, status: { in: [...FINISHED_EVENT_STATUSES] }, receivedAt: { lt: cutoff } };
  const letterWhere = {
    purgedAt: null,
    status: "resolved",
    lastFailedAt: { lt: cutoff },
    OR: [{ resolvedAt: null }, { resolvedAt: { lt: cutoff } }],
  };

  let eventsPurged = 0;
  let deadLettersPurged = 0;
  if (dryRun) {
    [eventsPurged, deadLettersPurged] = await Promise.all([db.webhookEvent.count({ where: eventWhere }), db.deadLetter.count({ where: letterWhere })]);
  } else {
    for (;;) {
      const batch = await db.webhookEvent.findMany({ where: eventWhere, select: { id: true }, take: BATCH_SIZE });
      if (batch.length === 0) break;
      // The purge re-checks each row, so one a worker re-queued meanwhile is left alone.
      eventsPurged += await purgeEventPayloads(db, batch.map((row) => row.id), cutoff, now);
      if (batch.length < BATCH_SIZE) break;
    }
    for (;;) {
      const batch = await db.deadLetter.findMany({ where: letterWhere, select: { id: true }, take: BATCH_SIZE });
      if (batch.length === 0) break;
      deadLettersPurged += await purgeDeadLetterPayloads(db, batch.map((row) => row.id), cutoff, now);
      if (batch.length < BATCH_SIZE) break;
    }
  }

  const [eventsKeptUnfinished, deadLettersKeptOpen] = await Promise.all([
    db.webhookEvent.count({ where: { purgedAt: null, status: { notIn: [...FINISHED_EVENT_STATUSES] }, receivedAt: { lt: cutoff } } }),
    db.deadLetter.count({ where: { purgedAt: null, status: { not: "resolved" }, lastFailedAt: { lt: cutoff } } }),
  ]);
  const report: RetentionReport = { cutoff: cutoff.toISOString(), retentionDays: options.retentionDays, dryRun, eventsPurged, deadLettersPurged, eventsKeptUnfinished, deadLettersKeptOpen };
  if (!dryRun) logger.info({ retention: report }, "payload retention");
  return report;
}

/** One line for the CLI and the worker's log: what was purged and what was kept, and why. */
export function formatRetentionReport(report: RetentionReport): string {
  const verb = report.dryRun ? "would purge" : "purged";
  return (
    `Payload retention (${report.retentionDays} days, cutoff ${report.cutoff}): ${verb} ${report.eventsPurged} event payload(s) and ` +
    `${report.deadLettersPurged} dead-letter payload(s); kept ${report.eventsKeptUnfinished} unfinished event(s) and ` +
    `${report.deadLettersKeptOpen} open dead letter(s) older than the cutoff. Ledger and orders are never purged.`
  );
}
