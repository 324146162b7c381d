import type { Db } from "@/lib/db/client";
import { apiEndpoints, stripeApiTarget, withConnectedAccounts, type ApiEndpoint } from "@/lib/endpoints/api-endpoints";
import { PollLoop } from "@/lib/jobs/poll-loop";
import { errorMessage } from "@/lib/log/error-message";
import { logger } from "@/lib/log/logger";
import { claimQueuedBackfill, failGapCheck, finishGapCheck, lastGapCheckStart, startGapCheck, type GapCheckTrigger } from "@/lib/monitoring/gap-checks";
import { listStripeEvents } from "@/lib/provider-api/stripe-api";
import { backfillEvents, type BackfillReport } from "@/lib/backfill/backfill";

/** How far back the gap check looks: Stripe retries a live delivery for three days. */
export const GAP_CHECK_WINDOW_MS = 3 * 86_400_000;

/** Adds one backfill's counts to another's. */
function added(total: BackfillReport, more: BackfillReport): BackfillReport {
  return { listed: total.listed + more.listed, alreadyStored: total.alreadyStored + more.alreadyStored, stored: total.stored + more.stored, skipped: total.skipped + more.skipped };
}

/**
 * Backfills one endpoint's events from `since` ({@link backfillEvents} over {@link listStripeEvents}):
 * on a Stripe Connect endpoint, the platform's own events and then each bound connected account's, each
 * listed on its behalf (`Stripe-Account`) and stored as that account's organization's, as a delivery of
 * it would be (lib/endpoints/connect-routing.ts); an account without a binding is not listed. Unless
 * `dryRun`, records the run (GapCheck: running, then its counts, or failed with why; `runId` continues a
 * queued one). Returns the summed report; throws what the listing or the storing throws, after
 * recording the failure.
 */
export async function backfillEndpoint(
  db: Db,
  target: ApiEndpoint,
  options: { since: Date; trigger: GapCheckTrigger; apiBase: string; dryRun?: boolean; runId?: string; now?: () => Date; sleep?: (ms: number) => Promise<void> },
): Promise<BackfillReport> {
  const now = options.now ?? (() => new Date());
  const source = options.trigger === "scheduled" ? "gap-check" : "backfill";
  const access = { apiKey: target.apiKey, keyLabel: target.keyLabel, livemode: target.endpoint.livemode, apiBase: options.apiBase, sleep: options.sleep };
  const run = async (): Promise<BackfillReport> => {
    let report: BackfillReport = { listed: 0, alreadyStored: 0, stored: 0, skipped: 0 };
    for (const each of withConnectedAccounts([target])) {
      const listed = listStripeEvents(access, options.since, each.stripeAccount ? { stripeAccount: each.stripeAccount } : {});
      report = added(report, await backfillEvents(db, each.endpoint, listed, { dryRun: options.dryRun, source, now }));
    }
    return report;
  };
  if (options.dryRun) return run();
  const id = options.runId ?? (await startGapCheck(db, { name: target.endpoint.name, organizationId: target.endpoint.organizationId }, options.trigger, options.since, now()));
  try {
    const report = await run();
    await finishGapCheck(db, id, report, now());
    return report;
  } catch (error) {
    await failGapCheck(db, id, errorMessage(error), now()).catch(() => undefined);
    throw error;
  }
}

/**
 * Runs the oldest backfill asked for on the Endpoints page, if one is queued ({@link claimQueuedBackfill}):
 * finds its endpoint with its API key ({@link stripeApiTarget}) in the organization that asked, and
 * backfills it ({@link backfillEndpoint}, decision source `backfill`). An endpoint that lost its key,
 * was deleted or moved meanwhile fails the run with why. Returns true when it ran one (the caller looks
 * again at once), false when none was queued. Throws database errors only.
 */
export async function runQueuedBackfill(db: Db, options: { apiBase: string; env?: Record<string, string | undefined>; now?: () => Date; sleep?: (ms: number) => Promise<void> }): Promise<boolean> {
  const now = options.now ?? (() => new Date());
  const queued = await claimQueuedBackfill(db, now());
  if (!queued) return false;
  const found = await stripeApiTarget(db, queued.endpoint, options.env ?? process.env, "a backfill reads Stripe's API only", "events", now());
  if ("refusal" in found || found.target.endpoint.organizationId !== queued.organizationId) {
    await failGapCheck(db, queued.id, "refusal" in found ? found.refusal : `endpoint ${queued.endpoint} is not this organization's`, now());
    return true;
  }
  try {
    const report = await backfillEndpoint(db, found.target, { since: queued.since, trigger: "dashboard", apiBase: options.apiBase, runId: queued.id, now, sleep: options.sleep });
    logger.info({ endpoint: queued.endpoint, ...report }, "backfill asked for on the Endpoints page done");
  } catch (error) {
    logger.error({ endpoint: queued.endpoint, err: errorMessage(error) }, "backfill asked for on the Endpoints page failed");
  }
  return true;
}

/**
 * The gap check: backfills every {@link apiEndpoints} endpoint (environment-configured, and the data
 * endpoints of every organization that hold an API key) over the last three days
 * ({@link GAP_CHECK_WINDOW_MS}), decision source `gap-check`, each run recorded. One endpoint's failure
 * (a bad key, Stripe unavailable) is logged and recorded and does not stop the others. Returns each
 * endpoint's report or error message.
 */
export async function runGapCheck(db: Db, options: { env?: Record<string, string | undefined>; apiBase: string; now?: () => Date; sleep?: (ms: number) => Promise<void> }): Promise<{ endpoint: string; report?: BackfillReport; error?: string }[]> {
  const now = options.now ?? (() => new Date());
  const results: { endpoint: string; report?: BackfillReport; error?: string }[] = [];
  for (const target of await apiEndpoints(db, { env: options.env, now: now() })) {
    try {
      const report = await backfillEndpoint(db, target, { since: new Date(now().getTime() - GAP_CHECK_WINDOW_MS), trigger: "scheduled", apiBase: options.apiBase, now, sleep: options.sleep });
      results.push({ endpoint: target.endpoint.name, report });
      const line = { endpoint: target.endpoint.name, ...report };
      if (report.stored > 0) logger.warn(line, `gap check: ${report.stored} missed event(s) of ${target.endpoint.name} fetched from the provider's API and stored`);
      else logger.info(line, "gap check: nothing missing");
    } catch (error) {
      results.push({ endpoint: target.endpoint.name, error: errorMessage(error) });
      logger.error({ endpoint: target.endpoint.name, err: errorMessage(error) }, "gap check failed");
    }
  }
  return results;
}

/**
 * The gap check inside a worker (started with the inbox worker): every `intervalMs`
 * (GAP_CHECK_INTERVAL_SECONDS, default an hour; 0: never started), the first one interval after the
 * process started. It looks six times an interval (at most every 10 minutes) whether the last scheduled
 * run of any process started an interval ago or more, and runs then, so several workers share the
 * interval instead of each running once per interval. Two deciding at the same moment both run, which
 * is harmless: a backfill stores each event once.
 */
export class GapCheckScheduler {
  private readonly loop: PollLoop;
  private readonly startedAtMs: number;

  constructor(database: () => Promise<Db>, options: { intervalMs: number; apiBase: string; now?: () => Date }) {
    const now = options.now ?? (() => new Date());
    this.startedAtMs = now().getTime();
    this.loop = new PollLoop(
      "gap-check",
      async () => {
        if (now().getTime() - this.startedAtMs < options.intervalMs) return false;
        const db = await database();
        const last = await lastGapCheckStart(db);
        if (last && now().getTime() - last.getTime() < options.intervalMs) return false;
        await runGapCheck(db, { apiBase: options.apiBase, now });
        return false;
      },
      Math.max(1_000, Math.min(Math.floor(options.intervalMs / 6), 600_000)),
    );
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}

/** How often a worker looks for a backfill asked for on the Endpoints page (ms): one indexed read when none waits. */
export const BACKFILL_REQUEST_POLL_MS = 2_000;

/**
 * The backfills asked for on the Endpoints page, inside a worker (started with the inbox worker): looks
 * every {@link BACKFILL_REQUEST_POLL_MS} and runs each queued one ({@link runQueuedBackfill}) in turn, so
 * the web request that asked never waits on Stripe.
 */
export class BackfillRequestWorker {
  private readonly loop: PollLoop;

  constructor(database: () => Promise<Db>, options: { apiBase: string; intervalMs?: number; now?: () => Date }) {
    this.loop = new PollLoop("backfill-requests", async () => runQueuedBackfill(await database(), { apiBase: options.apiBase, now: options.now }), options.intervalMs ?? BACKFILL_REQUEST_POLL_MS);
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
