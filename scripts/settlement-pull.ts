// npm run settlement-pull -- --endpoint <id or name> [--date YYYY-MM-DD]
// Runs now the settlement pull the schedule runs on that date (default today, UTC): asks Stripe's
// Reporting API for the itemized balance change report of the PREVIOUS UTC day
// (balance_change_from_activity.itemized.3), polls it until it succeeds, downloads it with the endpoint's
// API key (STRIPE_API_KEY for `stripe`, STRIPE_TEST_API_KEY for `stripe-test`, a data endpoint's own, stored
// encrypted) and queues it for
// reconciliation exactly as an upload is (origin scheduled): the server's or `npm run worker`'s
// reconciliation worker runs it. Prints {"pullId","endpoint","day","status","reportRun","runId","attempts","error"}.
// Exit: 0 queued; 1 the attempt failed (the reason on stderr, never the key; recorded, and the background
// worker retries it unless the key was refused); 2 bad usage, an unknown endpoint, or one without an API key.
// Log lines to stderr: this command's stdout is its output. First import, before anything loads the logger.
import "@/lib/log/cli-logs-to-stderr";
import "@/lib/config/env-files";
import { writeLine, type CliEnv, type CliIo } from "@/lib/background/cli-io";
import { runCli } from "@/lib/background/run-cli";
import { cliSettings } from "@/lib/background/cli-settings";
import { cliSchemaExitCode } from "@/lib/db/cli-schema";
import { withOwnDb } from "@/lib/db/client";
import { environmentApiTarget, stripeApiTarget } from "@/lib/endpoints/api-endpoints";
import { terminalSafe } from "@/lib/format/terminal-safe";
import { claimPull, type PullRow } from "@/lib/settlement-pull/pulls";
import { advancePull, reportedDay, startPull, utcDayStart } from "@/lib/settlement-pull/settlement-pull";

/** What the command reads, and what its key must be allowed to read: for refusals. */
const USE = "a settlement pull reads Stripe's Reporting API only";
const KEY_READS = "report runs, report types and files";

const USAGE = "usage: npm run settlement-pull -- --endpoint <id or name> [--date YYYY-MM-DD (the pull's date: it reports the previous UTC day; default today)]";

/** The first wait between polls of a pending report run, doubled per poll up to {@link POLL_MAX_MS}. */
const POLL_FIRST_MS = 500;
const POLL_MAX_MS = 30_000;
/** How long the command holds its pull while it polls (the schedule leaves it alone meanwhile). */
const HOLD_MS = 2 * 60_000;

function printed(pull: PullRow): string {
  return JSON.stringify({ pullId: pull.id, endpoint: pull.endpoint, day: pull.day, status: pull.status, reportRun: pull.reportRunId, runId: pull.runId, attempts: pull.attempts, error: pull.error });
}

/**
 * `npm run settlement-pull`: takes the arguments after the script, the environment (DATABASE_URL, the
 * endpoints' variables, STRIPE_API_KEY / STRIPE_TEST_API_KEY, STRIPE_API_BASE) and the streams; resolves
 * with the exit status (0 queued, 1 the attempt failed, 2 bad usage or no usable endpoint).
 */
export async function main(argv: string[], env: CliEnv, io: CliIo): Promise<number> {
  const fail = (line: string) => writeLine(io.stderr, terminalSafe(`settlement-pull: ${line}`));
  let endpointName: string | undefined;
  let dateText: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    if (argv[index] === "--endpoint" && argv[index + 1] !== undefined && endpointName === undefined) endpointName = argv[++index];
    else if (argv[index] === "--date" && argv[index + 1] !== undefined && dateText === undefined) dateText = argv[++index];
    else {
      writeLine(io.stderr, USAGE);
      return 2;
    }
  }
  const date = dateText === undefined ? new Date() : utcDayStart(dateText);
  if (endpointName === undefined || date === undefined) {
    if (date === undefined) fail(`--date ${dateText}: not a calendar date YYYY-MM-DD`);
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
  const schemaExit = await cliSchemaExitCode("settlement-pull", config.DATABASE_URL, { apply: true, stderr: io.stderr });
  if (schemaExit !== undefined) return schemaExit;
  return withOwnDb(config, async (database) => {
    const resolved = configured ?? (await stripeApiTarget(database, endpointName, env, USE, KEY_READS));
    if ("refusal" in resolved) {
      fail(resolved.refusal);
      return 2;
    }
    const { target } = resolved;
    let pull = (await startPull(database, target, reportedDay(date), "cli", new Date()))!;
    let waitMs = POLL_FIRST_MS;
    for (;;) {
      const claimed = await claimPull(database, pull, new Date(), HOLD_MS);
      if (!claimed) {
        fail(`pull ${pull.id} was taken by the background worker; see its state in the runs list`);
        return 1;
      }
      pull = await advancePull(database, claimed, target, { apiBase: config.STRIPE_API_BASE });
      if (pull.status !== "requested") break;
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      waitMs = Math.min(waitMs * 2, POLL_MAX_MS);
    }
    writeLine(io.stdout, printed(pull));
    if (pull.status === "queued") return 0;
    fail(pull.status === "retrying" ? `${pull.error} (recorded; the background worker retries it at ${pull.nextAttemptAt?.toISOString()})` : (pull.error ?? "failed"));
    return 1;
  });
}

if (require.main === module) runCli("settlement-pull", main);
