import { recordAudit } from "@/lib/audit/record-audit";
import { DEFAULT_ORGANIZATION } from "@/lib/organizations/organizations";
import { PollLoop } from "@/lib/jobs/poll-loop";
import { settings } from "@/lib/config/settings";
import type { Db } from "@/lib/db/client";
import { purgeExpiredDecisions, type DecisionRetentionReport } from "@/lib/retention/purge-decisions";
import { purgeExpiredPayloads, type RetentionReport } from "@/lib/retention/purge-payloads";
import { purgeExpiredRateLimits, type RateLimitRetentionReport } from "@/lib/retention/purge-rate-limits";
import { because } from "@/lib/reasons/reason-codes";
import { logger } from "@/lib/log/logger";
import { deleteGapChecksBefore } from "@/lib/monitoring/gap-checks";
import { deletePullsBefore } from "@/lib/settlement-pull/pulls";

/** How often retention runs: once a day. */
export const RETENTION_INTERVAL_MS = 86_400_000;
/** How often a worker looks whether the daily run is due (cheap: one indexed read). */
export const RETENTION_CHECK_EVERY_MS = 3_600_000;

/** The audit trail of retention runs: who (the system), what, and the counts in the note. */
const AUDIT = { action: "retention.purge", targetType: "payloads", targetId: "retention", actor: "system" } as const;

/** A daily run's report: the payload purge's counts, the decision and refusal-count purge's under `decisions`, the expired rate-limit rows under `rateLimits`. */
/** Finished runs of the background jobs deleted with the decisions (DECISION_RETENTION_DAYS): gap checks and backfills, settlement pulls. */
export interface JobRunRetentionReport {
  gapChecksDeleted: number;
  settlementPullsDeleted: number;
}

export type DailyRetentionReport = RetentionReport & { decisions: DecisionRetentionReport; rateLimits: RateLimitRetentionReport; jobRuns: JobRunRetentionReport };

/**
 * Runs payload retention (PAYLOAD_RETENTION_DAYS) and decision retention (DECISION_RETENTION_DAYS,
 * REJECTION_COUNT_RETENTION_DAYS; lib/retention/purge-decisions.ts), the finished gap checks, backfills and
 * settlement pulls older than the decisions' cutoff, and deletes the sign-in rate-limit
 * rows whose window is over (lib/retention/purge-rate-limits.ts) when the last run (any process: the runs are recorded as AuditEntry rows,
 * `retention.purge`) is older than `intervalMs` (default a day), and records this one. Two workers
 * that decide at the same moment both run it, which is harmless: a purge is idempotent. Returns the
 * report, or null when not due.
 */
export async function runRetentionIfDue(
  db: Db,
  options: { now?: Date; retentionDays?: number; decisionRetentionDays?: number; rejectionCountRetentionDays?: number; intervalMs?: number } = {},
): Promise<DailyRetentionReport | null> {
  const now = options.now ?? new Date();
  const last = await db.auditEntry.findFirst({ where: { targetType: AUDIT.targetType, targetId: AUDIT.targetId, action: AUDIT.action }, orderBy: { at: "desc" }, select: { at: true } });
  if (last && now.getTime() - last.at.getTime() < (options.intervalMs ?? RETENTION_INTERVAL_MS)) return null;
  const config = settings();
  const report = await purgeExpiredPayloads(db, { retentionDays: options.retentionDays ?? config.PAYLOAD_RETENTION_DAYS, now });
  const decisions = await purgeExpiredDecisions(db, {
    decisionRetentionDays: options.decisionRetentionDays ?? config.DECISION_RETENTION_DAYS,
    rejectionCountRetentionDays: options.rejectionCountRetentionDays ?? config.REJECTION_COUNT_RETENTION_DAYS,
    now,
  });
  const rateLimits = await purgeExpiredRateLimits(db, config, { now });
  const jobCutoff = new Date(decisions.decisionCutoff);
  const jobRuns: JobRunRetentionReport = { gapChecksDeleted: await deleteGapChecksBefore(db, jobCutoff), settlementPullsDeleted: await deletePullsBefore(db, jobCutoff) };
  logger.info({ retention: { jobRuns, cutoff: decisions.decisionCutoff } }, "job run retention");
  const note = because("audit_retention", {
    payloadDays: report.retentionDays,
    payloadCutoff: report.cutoff,
    eventsPurged: report.eventsPurged,
    deadLettersPurged: report.deadLettersPurged,
    eventsKept: report.eventsKeptUnfinished,
    deadLettersKept: report.deadLettersKeptOpen,
    decisionDays: decisions.decisionRetentionDays,
    decisionCutoff: decisions.decisionCutoff,
    decisionsDeleted: decisions.decisionsDeleted,
    countDays: decisions.rejectionCountRetentionDays,
    countCutoff: decisions.rejectionCountCutoff,
    countsDeleted: decisions.rejectionCountsDeleted,
  });
  // Retention runs over every organization's rows; its audit row is the operator's, in the default organization.
  await recordAudit(db, { id: AUDIT.actor, email: AUDIT.actor, organizationId: DEFAULT_ORGANIZATION.id }, { action: AUDIT.action, targetType: AUDIT.targetType, targetId: AUDIT.targetId, note }, now);
  return { ...report, decisions, rateLimits, jobRuns };
}

/**
 * The daily retention run inside a worker (started with the inbox worker and outbox dispatcher):
 * checks every hour whether a day has passed since the last recorded run, and runs it then. A failure
 * (database unavailable) is logged and retried at the next check.
 */
export class RetentionScheduler {
  private readonly loop: PollLoop;

  constructor(database: () => Promise<Db>, options: { checkEveryMs?: number; now?: () => Date; intervalMs?: number } = {}) {
    this.loop = new PollLoop(
      "payload-retention",
      async () => {
        // purgeExpiredPayloads logs what it did. Never "work done": the next check waits the whole interval.
        await runRetentionIfDue(await database(), { now: options.now?.(), intervalMs: options.intervalMs });
        return false;
      },
      options.checkEveryMs ?? RETENTION_CHECK_EVERY_MS,
    );
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
