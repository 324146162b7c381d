import type { Db } from "@/lib/db/client";
import { logger } from "@/lib/log/logger";
import { deleteDecisions } from "@/lib/decisions/record-decision";

const DAY_MS = 86_400_000;
const BATCH_SIZE = 500;

/** What one decision retention run deleted (or, on a dry run, would delete). */
export interface DecisionRetentionReport {
  decisionRetentionDays: number;
  /** Decision rows older than this (UTC, their `at`) were deleted. */
  decisionCutoff: string;
  decisionsDeleted: number;
  rejectionCountRetentionDays: number;
  /** Per-minute refusal counts of minutes before this (UTC) were deleted. */
  rejectionCountCutoff: string;
  rejectionCountsDeleted: number;
  dryRun: boolean;
}

/** Deletes the rows `find` returns, BATCH_SIZE at a time, each batch its own short statement; returns how many went. */
async function deleteInBatches(find: () => Promise<{ id: string }[]>, remove: (ids: string[]) => Promise<{ count: number }>): Promise<number> {
  let deleted = 0;
  for (;;) {
    const batch = await find();
    if (batch.length === 0) break;
    deleted += (await remove(batch.map((row) => row.id))).count;
    if (batch.length < BATCH_SIZE) break;
  }
  return deleted;
}

function checkDays(name: string, days: number): void {
  if (!Number.isInteger(days) || days < 1) throw new RangeError(`${name} must be a whole number of days >= 1 (got ${days})`);
}

/**
 * Deletes decision rows (every outcome) whose `at` is more than `decisionRetentionDays` before `now`, and
 * RejectionCount rows whose minute is more than `rejectionCountRetentionDays` before it (days, UTC). In
 * batches of 500 rows so neither database is blocked for long; idempotent. Ledger entries, orders,
 * events and dead letters are never touched here. Throws a RangeError on a day count below 1, else
 * whatever the database throws. Returns the counts.
 */
export async function purgeExpiredDecisions(
  db: Db,
  options: { decisionRetentionDays: number; rejectionCountRetentionDays: number; now?: Date; dryRun?: boolean },
): Promise<DecisionRetentionReport> {
  checkDays("decisionRetentionDays", options.decisionRetentionDays);
  checkDays("rejectionCountRetentionDays", options.rejectionCountRetentionDays);
  const now = options.now ?? new Date();
  const dryRun = options.dryRun ?? false;
  const decisionCutoff = new Date(now.getTime() - options.decisionRetentionDays * DAY_MS);
  const rejectionCountCutoff = new Date(now.getTime() - options.rejectionCountRetentionDays * DAY_MS);
  const decisionWhere = { at: { lt: decisionCutoff } };
  const countWhere = { minute: { lt: rejectionCountCutoff } };

  let decisionsDeleted: number;
  let rejectionCountsDeleted: number;
  if (dryRun) {
    [decisionsDeleted, rejectionCountsDeleted] = await Promise.all([db.decision.count({ where: decisionWhere }), db.rejectionCount.count({ where: countWhere })]);
  } else {
    decisionsDeleted = await deleteInBatches(
      () => db.decision.findMany({ where: decisionWhere, select: { id: true }, take: BATCH_SIZE }),
      (ids) => deleteDecisions(db, ids),
    );
    rejectionCountsDeleted = await deleteInBatches(
      () => db.rejectionCount.findMany({ where: countWhere, select: { id: true }, take: BATCH_SIZE }),
      (ids) => db.rejectionCount.deleteMany({ where: { id: { in: ids } } }),
    );
  }
  const report: DecisionRetentionReport = {
    decisionRetentionDays: options.decisionRetentionDays,
    decisionCutoff: decisionCutoff.toISOString(),
    decisionsDeleted,
    rejectionCountRetentionDays: options.rejectionCountRetentionDays,
    rejectionCountCutoff: rejectionCountCutoff.toISOString(),
    rejectionCountsDeleted,
    dryRun,
  };
  if (!dryRun) logger.info({ retention: report }, "decision retention");
  return report;
}

/** One line for the CLI and the audit note: the periods, cutoffs and counts. */
export function formatDecisionRetentionReport(report: DecisionRetentionReport): string {
  const verb = report.dryRun ? "would delete" : "deleted";
  return (
    `Decision retention (${report.decisionRetentionDays} days, cutoff ${report.decisionCutoff}): ${verb} ${report.decisionsDeleted} decision row(s). ` +
    `Rejection count retention (${report.rejectionCountRetentionDays} days, cutoff ${report.rejectionCountCutoff}): ${verb} ${report.rejectionCountsDeleted} per-minute count(s).`
  );
}
