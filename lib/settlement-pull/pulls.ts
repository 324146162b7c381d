// The SettlementPull table's one writer, and its readers: each pull of an endpoint's settlement report
// for one UTC day from Stripe's Reporting API, with the report run it asked for, the reconciliation run
// it queued, or why its last attempt failed and when the next one is.
import type { Db } from "@/lib/db/client";
import { uniqueViolationFields } from "@/lib/db/errors";
import { newRowId } from "@/lib/db/row-id";

/** Who started it: the background worker's schedule, or `npm run settlement-pull`. */
export type PullTrigger = "scheduled" | "cli";

/** requested (Stripe prepares the report), retrying (failed; again at nextAttemptAt), queued (its run is queued), failed (given up). */
export type PullStatus = "requested" | "retrying" | "queued" | "failed";

/** A pull as stored (times are Date, UTC). */
export interface PullRow {
  id: string;
  endpoint: string;
  day: string;
  trigger: string;
  scheduleKey: string | null;
  status: string;
  reportRunId: string | null;
  runId: string | null;
  attempts: number;
  nextAttemptAt: Date | null;
  error: string | null;
  startedAt: Date;
  requestedAt: Date | null;
  finishedAt: Date | null;
}

/** The schedule's key of an endpoint's day: UNIQUE, so every process's schedule pulls the day once. */
export function scheduleKeyOf(endpoint: string, day: string): string {
  return `${endpoint}/${day}`;
}

/**
 * Records a new pull of `endpoint`'s `day` (status `retrying`, due at `now`: its first attempt is next),
 * under `scheduleKey` for the schedule's pulls. Returns its row, or null when a pull of that key exists
 * (another process's schedule took the day).
 */
export async function insertPull(db: Db, pull: { endpoint: string; day: string; trigger: PullTrigger; scheduleKey: string | null }, now: Date): Promise<PullRow | null> {
  try {
    return await db.settlementPull.create({ data: { id: newRowId(now), endpoint: pull.endpoint, day: pull.day, trigger: pull.trigger, scheduleKey: pull.scheduleKey, status: "retrying", startedAt: now, nextAttemptAt: now } });
  } catch (error) {
    if (uniqueViolationFields(error)) return null;
    throw error;
  }
}

/**
 * Takes pull `pull` (as read) for one step, pushing its next look `leaseMs` ahead so another process
 * leaves it alone meanwhile (and takes it again if this one dies). Conditional on the status and next
 * attempt read: returns the row with its new next look, or null when another process took it first.
 */
export async function claimPull(db: Db, pull: PullRow, now: Date, leaseMs: number): Promise<PullRow | null> {
  const nextAttemptAt = new Date(now.getTime() + leaseMs);
  const claimed = await db.settlementPull.updateMany({ where: { id: pull.id, status: pull.status, nextAttemptAt: pull.nextAttemptAt }, data: { nextAttemptAt } });
  return claimed.count === 1 ? { ...pull, nextAttemptAt } : null;
}

/** Records that attempt `attempt` asked Stripe for report run `reportRunId`, to be polled at `pollAt`. */
export async function recordRequested(db: Db, id: string, reportRunId: string, attempt: number, now: Date, pollAt: Date): Promise<void> {
  await db.settlementPull.update({ where: { id }, data: { status: "requested", reportRunId: reportRunId.slice(0, 255), attempts: attempt, requestedAt: now, nextAttemptAt: pollAt } });
}

/** Records that the report run is still pending: looked at again at `pollAt`. */
export async function recordPending(db: Db, id: string, pollAt: Date): Promise<void> {
  await db.settlementPull.update({ where: { id }, data: { nextAttemptAt: pollAt } });
}

/** Records that the report was downloaded and queued as reconciliation run `runId`: the pull is over. */
export async function recordQueued(db: Db, id: string, runId: string, now: Date): Promise<void> {
  await db.settlementPull.update({ where: { id }, data: { status: "queued", runId, finishedAt: now, nextAttemptAt: null } });
}

/**
 * Records that attempt `attempt` failed with `error` (never a key; at most 500 characters): `retrying`
 * again at `retryAt`, or `failed` for good when `retryAt` is null.
 */
export async function recordFailure(db: Db, id: string, failure: { attempt: number; error: string; retryAt: Date | null }, now: Date): Promise<void> {
  await db.settlementPull.update({
    where: { id },
    data: { status: failure.retryAt ? "retrying" : "failed", attempts: failure.attempt, error: failure.error.slice(0, 500), nextAttemptAt: failure.retryAt, reportRunId: null, finishedAt: failure.retryAt ? null : now },
  });
}

/** A pull by id, or null. */
export function readPull(db: Db, id: string): Promise<PullRow | null> {
  return db.settlementPull.findUnique({ where: { id } });
}

/** The webhook Stripe sends when a report run succeeded (docs.stripe.com/api/events/types). */
export const REPORT_RUN_SUCCEEDED = "reporting.report_run.succeeded";

/**
 * The pulls to take a step on now, oldest first (at most 50): those waiting (`requested`, `retrying`)
 * whose next look is due, and those `requested` whose endpoint received a `reporting.report_run.succeeded`
 * webhook since they asked (the report may be ready before the next poll).
 */
export async function duePulls(db: Db, now: Date): Promise<PullRow[]> {
  const due = await db.settlementPull.findMany({ where: { status: { in: ["requested", "retrying"] }, nextAttemptAt: { lte: now } }, orderBy: [{ nextAttemptAt: "asc" }, { id: "asc" }], take: 50 });
  const waiting = await db.settlementPull.findMany({ where: { status: "requested", nextAttemptAt: { gt: now } }, orderBy: { id: "asc" }, take: 50 });
  for (const pull of waiting) {
    if (!pull.requestedAt) continue;
    const signalled = await db.webhookEvent.findFirst({ where: { endpoint: pull.endpoint, type: REPORT_RUN_SUCCEEDED, receivedAt: { gte: pull.requestedAt } }, select: { id: true } });
    if (signalled) due.push(pull);
  }
  return due;
}

/** The latest pulls of `endpoint`, newest first (at most `take`). */
export function latestPulls(db: Db, endpoint: string, take = 10): Promise<PullRow[]> {
  return db.settlementPull.findMany({ where: { endpoint }, orderBy: [{ startedAt: "desc" }, { id: "desc" }], take });
}

/**
 * Deletes finished pulls (queued: their reconciliation run is listed on its own; failed) that started
 * before `cutoff` (the daily retention, with DECISION_RETENTION_DAYS). The schedule only ever starts the
 * latest day's pull, so a deleted old day is not pulled again. Returns how many went.
 */
export async function deletePullsBefore(db: Db, cutoff: Date): Promise<number> {
  return (await db.settlementPull.deleteMany({ where: { status: { in: ["queued", "failed"] }, startedAt: { lt: cutoff } } })).count;
}
