import type { Db } from "@/lib/db/client";
import { endpointApiKey, endpointDefinitions, resolveEndpoint, type ServedEndpoint } from "@/lib/endpoints/endpoints";
import { PollLoop } from "@/lib/jobs/poll-loop";
import { errorMessage } from "@/lib/log/error-message";
import { logger } from "@/lib/log/logger";
import { failGapCheck, finishGapCheck, lastGapCheckStart, startGapCheck, type GapCheckTrigger } from "@/lib/monitoring/gap-checks";
import { listStripeEvents } from "@/lib/provider-api/stripe-api";
import { backfillEvents, type BackfillReport } from "@/lib/backfill/backfill";

/** How far back the gap check looks: Stripe retries a live delivery for three days. */
export const GAP_CHECK_WINDOW_MS = 3 * 86_400_000;

/** An endpoint the provider's API can be asked about: served, a Stripe one, with its API key. */
export interface ApiEndpoint {
  endpoint: ServedEndpoint;
  apiKey: string;
  /** The variable that holds the key (for messages), never its value. */
  keyLabel: string;
}

/**
 * The environment-configured endpoints a backfill or the gap check can serve: the Stripe ones that are
 * served here (their signing secret set) and hold an API key (STRIPE_API_KEY, STRIPE_TEST_API_KEY).
 * A misconfigured endpoint is left out (the start check names it).
 */
export function apiEndpoints(env: Record<string, string | undefined> = process.env): ApiEndpoint[] {
  const found: ApiEndpoint[] = [];
  for (const definition of endpointDefinitions(env)) {
    if (definition.provider !== "stripe" || !definition.apiKeyEnv) continue;
    const key = endpointApiKey(definition.name, env);
    if (!key) continue;
    let endpoint: ServedEndpoint | undefined;
    try {
      endpoint = resolveEndpoint(definition.name, env);
    } catch {
      continue;
    }
    if (endpoint) found.push({ endpoint, ...key });
  }
  return found;
}

/**
 * Backfills one endpoint from `since` ({@link backfillEvents} over {@link listStripeEvents}) and, unless
 * `dryRun`, records the run (GapCheck: running, then its counts, or failed with why). Returns the
 * report; throws what the listing or the storing throws, after recording the failure.
 */
export async function backfillEndpoint(
  db: Db,
  target: ApiEndpoint,
  options: { since: Date; trigger: GapCheckTrigger; apiBase: string; dryRun?: boolean; now?: () => Date; sleep?: (ms: number) => Promise<void> },
): Promise<BackfillReport> {
  const now = options.now ?? (() => new Date());
  const events = listStripeEvents({ apiKey: target.apiKey, keyLabel: target.keyLabel, livemode: target.endpoint.livemode, apiBase: options.apiBase, sleep: options.sleep }, options.since);
  const source = options.trigger === "scheduled" ? "gap-check" : "backfill";
  if (options.dryRun) return backfillEvents(db, target.endpoint, events, { dryRun: true, source, now });
  const id = await startGapCheck(db, target.endpoint.name, options.trigger, options.since, now());
  try {
    const report = await backfillEvents(db, target.endpoint, events, { source, now });
    await finishGapCheck(db, id, report, now());
    return report;
  } catch (error) {
    await failGapCheck(db, id, errorMessage(error), now()).catch(() => undefined);
    throw error;
  }
}

/**
 * The gap check: backfills every {@link apiEndpoints} endpoint over the last three days
 * ({@link GAP_CHECK_WINDOW_MS}), decision source `gap-check`, each run recorded. One endpoint's failure
 * (a bad key, Stripe unavailable) is logged and recorded and does not stop the others. Returns each
 * endpoint's report or error message.
 */
export async function runGapCheck(db: Db, options: { env?: Record<string, string | undefined>; apiBase: string; now?: () => Date; sleep?: (ms: number) => Promise<void> }): Promise<{ endpoint: string; report?: BackfillReport; error?: string }[]> {
  const now = options.now ?? (() => new Date());
  const results: { endpoint: string; report?: BackfillReport; error?: string }[] = [];
  for (const target of apiEndpoints(options.env)) {
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
