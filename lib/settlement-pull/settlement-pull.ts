// Scheduled settlement pulls: once a day per Stripe endpoint with an API key, the previous UTC day's
// itemized balance change report is requested from Stripe's Reporting API, polled until it succeeds,
// downloaded with the key and reconciled exactly as an upload is (submitReport: the spooled file, the
// run row, the background reconciliation worker), the run's origin `scheduled`. A failed attempt is kept
// with its reason and retried later.
import type { Db } from "@/lib/db/client";
import { apiEndpoints, withConnectedAccounts, type ApiEndpoint } from "@/lib/endpoints/api-endpoints";
import { PollLoop } from "@/lib/jobs/poll-loop";
import { errorMessage } from "@/lib/log/error-message";
import { logger } from "@/lib/log/logger";
import { createStripeReportRun, openStripeFile, ProviderApiError, retrieveStripeReportRun, type StripeApiAccess, type StripeReportRun } from "@/lib/provider-api/stripe-api";
import { STRIPE_READ_COLUMNS } from "@/lib/reconciliation/settlement-entries";
import { submitReport } from "@/lib/reconciliation/submit-report";
import { claimPull, duePulls, insertPull, readPull, recordFailure, recordPending, recordQueued, recordRequested, scheduleKeyOf, type PullRow, type PullTrigger } from "@/lib/settlement-pull/pulls";

/** The report pulled: Stripe's itemized balance change from activity, version 3 (docs.stripe.com/reports/report-types). */
export const SETTLEMENT_REPORT_TYPE = "balance_change_from_activity.itemized.3";

/** How long after a poll that found the report pending it is polled again (Stripe takes seconds to minutes). */
export const PULL_POLL_MS = 60_000;
/** A report run pending for longer is given up and the attempt counted as failed (then retried). */
export const PULL_PENDING_LIMIT_MS = 6 * 3_600_000;
/** The wait after a failed attempt: 15 minutes, doubled per further failure, at most 4 hours. */
export const PULL_RETRY_FIRST_MS = 15 * 60_000;
export const PULL_RETRY_MAX_MS = 4 * 3_600_000;
/** Attempts (report runs asked for) after which a pull is failed for good: 15 min + 30 + 1 h + 2 h + 4 h of waits. */
export const PULL_MAX_ATTEMPTS = 6;
/** How long a process holds a pull while it takes a step (another process leaves it alone). */
const PULL_LEASE_MS = 2 * 60_000;

/** A failure of one attempt, in words an operator acts on (never a key). */
class PullFailure extends Error {}

const DAY_MS = 86_400_000;
const DAY_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `YYYY-MM-DD` as that day's 00:00 UTC, or undefined when it is not a calendar date. */
export function utcDayStart(day: string): Date | undefined {
  const match = DAY_PATTERN.exec(day);
  if (!match) return undefined;
  const at = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return at.toISOString().slice(0, 10) === day ? at : undefined;
}

/** The UTC day a pull on `date` reports: the day before (a pull on 2026-12-02 reports 2026-12-01). Takes and returns `YYYY-MM-DD`. */
export function reportedDay(date: Date): string {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()) - DAY_MS).toISOString().slice(0, 10);
}

/** A day's report interval as Stripe takes it: `[00:00, next 00:00)` UTC in unix seconds (interval_start inclusive, interval_end exclusive). */
export function dayInterval(day: string): { start: number; end: number } {
  const start = utcDayStart(day);
  if (!start) throw new RangeError(`not a UTC day: ${day}`);
  return { start: start.getTime() / 1000, end: (start.getTime() + DAY_MS) / 1000 };
}

/** SETTLEMENT_PULL_TIME as minutes after 00:00 UTC, or null for `off`. */
export function pullTimeMinutes(setting: string): number | null {
  const match = /^(\d{2}):(\d{2})$/.exec(setting.trim());
  return match ? Number(match[1]) * 60 + Number(match[2]) : null;
}

/** The latest scheduled moment at or before `now`: today's SETTLEMENT_PULL_TIME (UTC) once passed, else yesterday's. */
export function latestPullMoment(now: Date, minutes: number): Date {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) + minutes * 60_000;
  return new Date(today <= now.getTime() ? today : today - DAY_MS);
}

/** What a step needs: where Stripe's API is, the clock, and (tests) a fetch for the file. */
export interface PullOptions {
  apiBase: string;
  now?: () => Date;
  sleep?: (ms: number) => Promise<void>;
  fetch?: typeof fetch;
}

function accessOf(target: ApiEndpoint, options: PullOptions): StripeApiAccess {
  return { apiKey: target.apiKey, keyLabel: target.keyLabel, livemode: target.endpoint.livemode, apiBase: options.apiBase, sleep: options.sleep, stripeAccount: target.stripeAccount };
}

/**
 * What a pull's `endpoint` column names: the endpoint (`stripe`, `ep_…`), or for a Connect endpoint's
 * connected account `<endpoint>/<acct_…>` (each account's day is pulled and reconciled on its own).
 */
export function pullTargetKey(target: ApiEndpoint): string {
  return target.stripeAccount ? `${target.endpoint.name}/${target.stripeAccount}` : target.endpoint.name;
}

/** Errors a later attempt cannot fix by itself (the key is refused or lacks a permission, or is of the other mode). */
function permanent(error: unknown): boolean {
  return error instanceof ProviderApiError && (error.code === "bad_key" || error.code === "forbidden" || error.code === "wrong_mode");
}

/** The wait before attempt `attempt + 1` after attempt `attempt` failed (ms). */
export function retryDelayMs(attempt: number): number {
  return Math.min(PULL_RETRY_FIRST_MS * 2 ** Math.max(0, attempt - 1), PULL_RETRY_MAX_MS);
}

/**
 * Records a pull of `target`'s report for UTC `day` and returns it (status `retrying`, due now: its first
 * attempt is the next step). `scheduleKey` for the schedule's pull of the day; null (the command's) when
 * a pull may repeat. Returns null when the schedule's pull of that day exists already.
 */
export function startPull(db: Db, target: ApiEndpoint, day: string, trigger: PullTrigger, now: Date): Promise<PullRow | null> {
  const key = pullTargetKey(target);
  return insertPull(db, { endpoint: key, day, trigger, scheduleKey: trigger === "scheduled" ? scheduleKeyOf(key, day) : null }, now);
}

/**
 * One step of a claimed pull (Stripe Reporting API: report_runs, then the file at result.url): a new
 * attempt asks for a report run of its day (`POST /v1/reporting/report_runs`, interval and
 * {@link STRIPE_READ_COLUMNS}); a requested one is polled (`GET /v1/reporting/report_runs/:id`). Once it
 * succeeded, its file is downloaded with the key and submitted as an upload is (lib/reconciliation,
 * `submitReport`, via `scheduled`): the pull is `queued` with its run. A failure (the run failed, the
 * download or the key refused, the report refused) is recorded with its reason: retried after
 * {@link retryDelayMs}, or failed for good after {@link PULL_MAX_ATTEMPTS} attempts or when the key is
 * refused. Returns the pull as it stands after the step. Database errors are thrown.
 */
export async function advancePull(db: Db, pull: PullRow, target: ApiEndpoint, options: PullOptions): Promise<PullRow> {
  const now = options.now ?? (() => new Date());
  const access = accessOf(target, options);
  const creating = pull.status === "retrying" || !pull.reportRunId;
  const attempt = creating ? pull.attempts + 1 : pull.attempts;
  const line = { endpoint: pull.endpoint, day: pull.day, pullId: pull.id, attempt };
  try {
    let run: StripeReportRun;
    if (creating) {
      const interval = dayInterval(pull.day);
      run = await createStripeReportRun(access, { reportType: SETTLEMENT_REPORT_TYPE, intervalStart: interval.start, intervalEnd: interval.end, columns: STRIPE_READ_COLUMNS });
      await recordRequested(db, pull.id, run.id, attempt, now(), new Date(now().getTime() + PULL_POLL_MS));
      logger.info({ ...line, reportRun: run.id }, "settlement pull: report run requested");
      pull = { ...pull, status: "requested", reportRunId: run.id, attempts: attempt, requestedAt: now() };
    } else {
      run = await retrieveStripeReportRun(access, pull.reportRunId!);
    }
    if (run.status === "failed") throw new PullFailure(`Stripe's report run ${run.id} failed: ${(run.error ?? "no reason given").slice(0, 300)}`);
    if (run.status !== "succeeded") {
      if (pull.requestedAt && now().getTime() - pull.requestedAt.getTime() > PULL_PENDING_LIMIT_MS) throw new PullFailure(`Stripe's report run ${run.id} was still pending after ${PULL_PENDING_LIMIT_MS / 3_600_000} hours`);
      await recordPending(db, pull.id, new Date(now().getTime() + PULL_POLL_MS));
      return (await readPull(db, pull.id))!;
    }
    if (!run.result?.url) throw new PullFailure(`Stripe's report run ${run.id} succeeded without a file URL`);
    const file = await openStripeFile(access, run.result.url, { fetch: options.fetch });
    const interval = dayInterval(pull.day);
    const actor = `scheduled:${pullTargetKey(target)}`;
    const submitted = await submitReport(db, {
      body: file.body,
      contentLength: file.contentLength,
      params: {
        format: "stripe-balance-change",
        provider: "stripe",
        account: target.endpoint.account,
        mode: target.endpoint.livemode ? "live" : "test",
        from: new Date(interval.start * 1000).toISOString(),
        to: new Date(interval.end * 1000).toISOString(),
        source: `${pullTargetKey(target)} ${pull.day} (${run.id})`,
      },
      // The run is the endpoint's organization's: its books, its runs list.
      actor: { id: actor, email: actor, organizationId: target.endpoint.organizationId },
      via: { kind: "scheduled", endpoint: target.endpoint.name },
    });
    if (submitted.kind !== "queued") throw new PullFailure(`the downloaded report was not queued: ${submitted.message}`);
    await recordQueued(db, pull.id, submitted.runId, now());
    logger.info({ ...line, reportRun: run.id, runId: submitted.runId, bytes: submitted.bytes }, "settlement pull: report downloaded and queued for reconciliation");
    return (await readPull(db, pull.id))!;
  } catch (error) {
    if (!(error instanceof PullFailure || error instanceof ProviderApiError)) throw error;
    const reason = errorMessage(error);
    const retryAt = permanent(error) || attempt >= PULL_MAX_ATTEMPTS ? null : new Date(now().getTime() + retryDelayMs(attempt));
    await recordFailure(db, pull.id, { attempt, error: retryAt || permanent(error) ? reason : `gave up after ${attempt} attempts: ${reason}`, retryAt }, now());
    if (retryAt) logger.warn({ ...line, err: reason, retryAt: retryAt.toISOString() }, "settlement pull attempt failed; it is retried");
    else logger.error({ ...line, err: reason }, "settlement pull failed; not retried");
    return (await readPull(db, pull.id))!;
  }
}

/**
 * Runs what is due now (the background schedule's step): for each Stripe endpoint with an API key
 * ({@link apiEndpoints}) whose latest scheduled moment (SETTLEMENT_PULL_TIME, UTC) has no pull of its
 * day yet, records one (UNIQUE per endpoint and day: once across processes; after downtime only the
 * latest missed day, once); then takes one step on every due pull ({@link duePulls}), the command's
 * retries included. A pull whose endpoint lost its key is failed. Returns the pulls stepped.
 */
export async function runDuePulls(db: Db, options: PullOptions & { pullMinutes: number; env?: Record<string, string | undefined> }): Promise<PullRow[]> {
  const now = options.now ?? (() => new Date());
  const targets = new Map(withConnectedAccounts(await apiEndpoints(db, { env: options.env, now: now() })).map((target) => [pullTargetKey(target), target]));
  const day = reportedDay(latestPullMoment(now(), options.pullMinutes));
  for (const target of targets.values()) {
    const created = await startPull(db, target, day, "scheduled", now());
    if (created) logger.info({ endpoint: target.endpoint.name, day }, "settlement pull: the day's pull starts");
  }
  const stepped: PullRow[] = [];
  for (const due of await duePulls(db, now())) {
    const claimed = await claimPull(db, due, now(), PULL_LEASE_MS);
    if (!claimed) continue;
    const target = targets.get(claimed.endpoint);
    if (!target) {
      await recordFailure(db, claimed.id, { attempt: claimed.attempts, error: `endpoint ${claimed.endpoint} is not served here with an API key any more`, retryAt: null }, now());
      continue;
    }
    try {
      stepped.push(await advancePull(db, claimed, target, options));
    } catch (error) {
      // The database failed mid-step: the lease ends and a later step takes the pull again.
      logger.error({ endpoint: claimed.endpoint, day: claimed.day, pullId: claimed.id, err: errorMessage(error) }, "settlement pull step failed");
    }
  }
  return stepped;
}

/**
 * The schedule inside a worker (started with the inbox worker when SETTLEMENT_PULL_TIME is not `off`):
 * looks every minute ({@link runDuePulls}) whether a day's pull is due, a report run to poll or a
 * failed attempt to retry. `now` is injectable: tests move a clock and call {@link runDue}.
 */
export class SettlementPullScheduler {
  private readonly loop: PollLoop;

  constructor(
    private readonly database: () => Promise<Db>,
    private readonly options: PullOptions & { pullMinutes: number; env?: Record<string, string | undefined>; intervalMs?: number },
  ) {
    this.loop = new PollLoop(
      "settlement-pull",
      async () => {
        await this.runDue();
        return false;
      },
      options.intervalMs ?? 60_000,
    );
  }

  /** One look: what {@link runDuePulls} does. Returns the pulls stepped. */
  async runDue(): Promise<PullRow[]> {
    return runDuePulls(await this.database(), this.options);
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
