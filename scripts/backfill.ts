// npm run backfill -- --endpoint <id or name> --since <72h | 30m | 2d | ISO time> [--dry-run]
// Fetches every event of the endpoint's Stripe account and mode created since then (GET /v1/events,
// every page) with the endpoint's API key (STRIPE_API_KEY for `stripe`, STRIPE_TEST_API_KEY for
// `stripe-test`, the key a data endpoint holds, encrypted, for its id), and stores each one the inbox lacks through the same path as a delivery (decision
// source `backfill`); the worker applies them as any other event. Prints {"listed","alreadyStored",
// "stored","skipped"} as JSON, and records the run (GapCheck, trigger cli); with --dry-run, `stored` counts
// what it would store and nothing is stored or recorded.
// Exit: 0 done; 1 the API or the database failed (one line saying which, never the key); 2 bad usage,
// an unknown endpoint, or one without an API key.
// Log lines to stderr: this command's stdout is its output. First import, before anything loads the logger.
import "@/lib/log/cli-logs-to-stderr";
import "@/lib/config/env-files";
import { writeLine, type CliEnv, type CliIo } from "@/lib/background/cli-io";
import { runCli } from "@/lib/background/run-cli";
import { cliSettings } from "@/lib/background/cli-settings";
import { BackfillStoreError } from "@/lib/backfill/backfill";
import { backfillEndpoint } from "@/lib/backfill/gap-check";
import { cliSchemaExitCode } from "@/lib/db/cli-schema";
import { withOwnDb } from "@/lib/db/client";
import { environmentApiTarget, stripeApiTarget } from "@/lib/endpoints/api-endpoints";
import { terminalSafe } from "@/lib/format/terminal-safe";
import { ProviderApiError } from "@/lib/provider-api/stripe-api";

/** What the command reads, and what its key must be allowed to read: for refusals. */
const USE = "a backfill reads Stripe's API only";
const KEY_READS = "events";

const USAGE = "usage: npm run backfill -- --endpoint <id or name> --since <72h | 30m | 2d | ISO time> [--dry-run]";

/** Stripe keeps events listable for 30 days: a window reaching further back lists only what it keeps. */
const STRIPE_EVENTS_KEPT_DAYS = 30;

/**
 * The start of the window: `<n>m`, `<n>h` or `<n>d` before `now`, or an ISO 8601 time with its zone
 * (`2026-12-01T09:00:00Z`). Returns undefined for anything else, a time in the future included.
 */
export function parseSince(text: string, now: Date): Date | undefined {
  const relative = /^(\d{1,6})([mhd])$/.exec(text.trim());
  if (relative) return new Date(now.getTime() - Number(relative[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[relative[2] as "m" | "h" | "d"]);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text.trim())) return undefined;
  const at = new Date(text.trim());
  return Number.isNaN(at.getTime()) || at > now ? undefined : at;
}

/**
 * `npm run backfill`: takes the arguments after the script, the environment (DATABASE_URL, the
 * endpoints' variables, STRIPE_API_KEY / STRIPE_TEST_API_KEY, STRIPE_API_BASE) and the streams; resolves
 * with the exit status (0 done, 1 the API or the database failed, 2 bad usage or no usable endpoint).
 */
export async function main(argv: string[], env: CliEnv, io: CliIo): Promise<number> {
  const fail = (line: string) => writeLine(io.stderr, terminalSafe(`backfill: ${line}`));
  let endpointName: string | undefined;
  let sinceText: string | undefined;
  let dryRun = false;
  for (let index = 0; index < argv.length; index++) {
    if (argv[index] === "--dry-run") dryRun = true;
    else if (argv[index] === "--endpoint" && argv[index + 1] !== undefined && endpointName === undefined) endpointName = argv[++index];
    else if (argv[index] === "--since" && argv[index + 1] !== undefined && sinceText === undefined) sinceText = argv[++index];
    else {
      writeLine(io.stderr, USAGE);
      return 2;
    }
  }
  const now = new Date();
  const since = sinceText === undefined ? undefined : parseSince(sinceText, now);
  if (endpointName === undefined || since === undefined) {
    if (sinceText !== undefined && since === undefined) fail(`--since ${sinceText}: not a duration (72h, 30m, 2d) or a past ISO time with its zone (2026-12-01T09:00:00Z)`);
    writeLine(io.stderr, USAGE);
    return 2;
  }
  const config = cliSettings(env, fail);
  if (!config) return 2;
  // An environment-configured endpoint is checked before the database is opened; a data endpoint is read from it.
  const configured = environmentApiTarget(endpointName, env, USE, KEY_READS);
  if (configured && "refusal" in configured) {
    fail(configured.refusal);
    return 2;
  }
  if (now.getTime() - since.getTime() > STRIPE_EVENTS_KEPT_DAYS * 86_400_000) {
    writeLine(io.stderr, `backfill: Stripe keeps events for ${STRIPE_EVENTS_KEPT_DAYS} days; older ones cannot be listed`);
  }
  const schemaExit = await cliSchemaExitCode("backfill", config.DATABASE_URL, { apply: true, stderr: io.stderr });
  if (schemaExit !== undefined) return schemaExit;
  return withOwnDb(config, async (database) => {
    const resolved = configured ?? (await stripeApiTarget(database, endpointName, env, USE, KEY_READS));
    if ("refusal" in resolved) {
      fail(resolved.refusal);
      return 2;
    }
    const { target } = resolved;
    try {
      const report = await backfillEndpoint(database, target, { since, trigger: "cli", apiBase: config.STRIPE_API_BASE, dryRun });
      writeLine(io.stdout, JSON.stringify(report));
      return 0;
    } catch (error) {
      if (error instanceof ProviderApiError || error instanceof BackfillStoreError) {
        fail(error.message);
        return 1;
      }
      throw error;
    }
  });
}

if (require.main === module) runCli("backfill", main);
