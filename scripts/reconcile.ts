// npm run reconcile -- <report.csv> [--format stripe-balance|stripe-payout|neutral|lab]
//   [--provider p] [--account a] [--live|--test] [--from ISO] [--to ISO] [--json]
// Reconciles a settlement report against the ledger of one scope (provider, account, live/test) and
// period, in this process, with a progress bar on a terminal (plain lines every 5 s otherwise, on stderr).
// Exit 0 when everything matches, 1 on mismatches, 2 on bad input (the line number and the problem).
// Log lines to stderr: this command's stdout is its output. First import, before anything loads the logger.
import "@/lib/log/cli-logs-to-stderr";
import "@/lib/config/env-files";
import { createReadStream, existsSync, statSync } from "node:fs";
import { userInfo } from "node:os";
import { basename } from "node:path";
import { recordAudit } from "@/lib/audit/record-audit";
import { readSettings } from "@/lib/config/settings";
import { cliSchemaExitCode } from "@/lib/db/cli-schema";
import { withOwnDb, type Db } from "@/lib/db/client";
import { labMismatches, formatLabMismatch, formatLabSummary } from "@/lib/reconciliation/reconcile";
import type { RunProgress } from "@/lib/reconciliation/payment-run";
import { formatProgress } from "@/lib/reconciliation/progress-line";
import { formatOfFile } from "@/lib/reconciliation/report-head";
import { allMismatches, formatMismatchLine, formatRunLine, formatTotalsLines, runSummary } from "@/lib/reconciliation/run-report";
import { claimRun, executeRun, holdQueuedRun, queueRun } from "@/lib/reconciliation/runs";
import { parseFormat, resolveScope, ScopeError, scopeKey, type RunScope, type ScopeRequest } from "@/lib/reconciliation/run-scope";
import type { SettlementFormat } from "@/lib/reconciliation/settlement-entries";
import { SettlementCsvError } from "@/lib/reconciliation/report-fields";
import { newWorkerId } from "@/lib/jobs/worker-id";
import { cliLocale, cliReasons, type CliReasons } from "@/lib/reasons/cli-reasons";
import { because, type ReasonRef } from "@/lib/reasons/reason-codes";
import { writeLine, type CliEnv, type CliIo } from "@/lib/background/cli-io";
import { runCli } from "@/lib/background/run-cli";
import { terminalSafe } from "@/lib/format/terminal-safe";
import { DEFAULT_ORGANIZATION } from "@/lib/organizations/organizations";

const USAGE = "usage: npm run reconcile -- <report.csv> [--format stripe-balance|stripe-payout|neutral|lab] [--provider p] [--account a] [--live|--test] [--from ISO] [--to ISO] [--json] [--locale en|es-AR]";
const VALUE_FLAGS = new Set(["--format", "--provider", "--account", "--from", "--to", "--locale"]);
const BOOLEAN_FLAGS = new Set(["--json", "--live", "--test"]);

class UsageError extends Error {}

function parseArgs(args: string[]): { file?: string; flags: Map<string, string | true> } {
  const flags = new Map<string, string | true>();
  let file: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (VALUE_FLAGS.has(arg)) {
      const value = args[++i];
      if (value === undefined || value.startsWith("--")) throw new UsageError(`${arg} needs a value`);
      flags.set(arg, value);
    } else if (BOOLEAN_FLAGS.has(arg)) flags.set(arg, true);
    else if (arg.startsWith("--")) throw new UsageError(`unknown option ${arg}`);
    else if (file) throw new UsageError(`one report at a time (got ${file} and ${arg})`);
    else file = arg;
  }
  if (flags.has("--live") && flags.has("--test")) throw new UsageError("--live and --test exclude each other");
  return { file, flags };
}

// Ids and fields come from the uploaded report and the providers' events: nothing in them may drive the terminal.
/** Writes `text` to `stream`, terminal-safe; resolves once the stream takes more (a slow pipe holds a large report back). */
type Write = (text: string) => Promise<void>;
const writerTo =
  (stream: NodeJS.WritableStream): Write =>
  (text) =>
    new Promise<void>((resolve) => (stream.write(terminalSafe(text)) ? resolve() : stream.once("drain", () => resolve())));

/** Prints an order-level (lab) run as before: one line per mismatch and the summary, or the --json shape. */
async function printLabRun(client: Db, runId: string, json: boolean, view: CliReasons, write: Write): Promise<void> {
  const run = await client.reconciliationRun.findUniqueOrThrow({ where: { id: runId } });
  const overcredited = JSON.parse(run.overcredited) as Record<string, number>;
  if (json) await write(`{"runId":${JSON.stringify(runId)},"format":"lab","scope":${JSON.stringify({ provider: run.provider, account: run.account, livemode: run.livemode })},"rowCount":${run.rowCount},"orderCount":${run.orderCount},"mismatches":[`);
  for (let skip = 0, first = true; ; skip += 1_000) {
    const page = await labMismatches(client, runId, { skip, take: 1_000 });
    for (const mismatch of page) {
      await write(json ? `${first ? "" : ","}\n${JSON.stringify(mismatch)}` : `${formatLabMismatch(mismatch, view)}\n`);
      first = false;
    }
    if (page.length < 1_000) break;
  }
  await write(json ? `],"overcredited":${JSON.stringify(overcredited)}}\n` : `${formatLabSummary({ ...run, overcredited }, view)}\n`);
}

/** Prints a payment-level run: one line per mismatch, the totals per currency and the summary; --json streams the same. */
async function printPaymentRun(client: Db, runId: string, json: boolean, view: CliReasons, write: Write): Promise<void> {
  const summary = (await runSummary(client, DEFAULT_ORGANIZATION.id, runId))!;
  if (json) {
    const head = { runId, format: summary.format, scope: summary.scope, period: summary.period, rowCount: summary.progress.rows, mismatchCount: summary.mismatchCount, totals: summary.totals, payouts: summary.payouts };
    await write(`${JSON.stringify(head).slice(0, -1)},"mismatches":[`);
    let first = true;
    for await (const mismatch of allMismatches(client, runId)) {
      await write(`${first ? "" : ","}\n${JSON.stringify(mismatch)}`);
      first = false;
    }
    await write("]}\n");
    return;
  }
  for await (const mismatch of allMismatches(client, runId)) await write(`${formatMismatchLine(mismatch, view)}\n`);
  for (const line of formatTotalsLines(summary.totals, view)) await write(`${line}\n`);
  await write(`${formatRunLine(summary, view)}\n`);
}

/** Progress on stderr: a bar redrawn in place on a terminal (at most 10 times a second), else a plain line every 5 s. */
function progressPrinter(view: CliReasons, stderr: CliIo["stderr"]): { update: (progress: RunProgress) => void; end: () => void } {
  const terminal = Boolean(stderr.isTTY);
  const started = Date.now();
  let last = 0;
  let drawn = false;
  return {
    update(progress) {
      const now = Date.now();
      if (now - last < (terminal ? 100 : 5_000) || progress.phase === "done") return;
      last = now;
      if (terminal) {
        stderr.write(`\r${formatProgress(progress, now - started, true, 30, view)}\u001b[K`);
        drawn = true;
      } else stderr.write(`${formatProgress(progress, now - started, false, 30, view)}\n`);
    },
    end() {
      if (drawn) stderr.write("\r\u001b[K");
    },
  };
}

/**
 * `npm run reconcile`: takes the arguments after the script, the environment (DATABASE_URL and the other
 * settings, the configured scopes, USER, the locale's LANG) and the streams; resolves with the exit status
 * (0 everything matches, 1 mismatches, 2 bad input or a failed run, or the schema step's status).
 */
export async function main(argv: string[], env: CliEnv, io: CliIo): Promise<number> {
  /** Every line on stderr too is terminal-safe: error messages quote the report's cells. */
  const printError = (line: string) => writeLine(io.stderr, terminalSafe(line));
  const write = writerTo(io.stdout);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs(argv);
  } catch (error) {
    printError(`reconcile: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { file, flags } = parsed;
  if (!file) {
    printError(USAGE);
    return 2;
  }
  if (!existsSync(file)) {
    printError(`reconcile: ${file}: no such file`);
    return 2;
  }
  if (!statSync(file).isFile()) {
    printError(`reconcile: ${file}: not a file`);
    return 2;
  }
  const json = flags.has("--json");
  const locale = cliLocale(argv, env);
  if (typeof locale !== "string") {
    printError(`reconcile: ${locale.error}\n${USAGE}`);
    return 2;
  }
  const view = cliReasons(locale);
  // A refusal in English is its sentence as logged (what scripts and the docs quote); in another locale, rendered from its code.
  const said = (reason: ReasonRef, english: string) => (locale === "en" ? english : view.render(reason, english));
  const value = (name: string) => (typeof flags.get(name) === "string" ? (flags.get(name) as string) : undefined);
  try {
    const forced = value("--format") ? parseFormat(value("--format")!) : undefined;
    const format = await formatOfFile(file, forced);
    const request: ScopeRequest = { provider: value("--provider"), account: value("--account"), livemode: flags.has("--live") ? true : flags.has("--test") ? false : undefined, from: value("--from"), to: value("--to") };
    const scope = resolveScope(format, request, env);
    const config = readSettings(env);
    const schemaExit = await cliSchemaExitCode("reconcile", config.DATABASE_URL, { apply: true, stderr: io.stderr });
    if (schemaExit !== undefined) return schemaExit;
    return await withOwnDb(config, (client) => reconcileFile(client, { file, format, scope, json, view, said, env, io, write, printError }));
  } catch (error) {
    if (error instanceof SettlementCsvError || error instanceof ScopeError) {
      printError(`reconcile: ${file}: ${said(error.reason, error.message)}`);
      return 2;
    }
    throw error;
  }
}

/** Queues, runs and prints one report's run on `client`; resolves with the command's exit status. */
async function reconcileFile(
  client: Db,
  { file, format, scope, json, view, said, env, io, write, printError }: {
    file: string;
    format: SettlementFormat;
    scope: RunScope;
    json: boolean;
    view: CliReasons;
    said: (reason: ReasonRef, english: string) => string;
    env: CliEnv;
    io: CliIo;
    write: Write;
    printError: (line: string) => void;
  },
): Promise<number> {
  // The audit actor of a command is the operating-system user who ran it.
  const operator = `cli:${env.USER ?? userInfo().username}`;
  // The run's source is the file's base name: the list shows it to every role, and a server path is not theirs to see.
  const runId = await queueRun(client, { organizationId: DEFAULT_ORGANIZATION.id, source: basename(file), origin: "cli", format, scope, actor: operator, bytesTotal: statSync(file).size });
  const owner = newWorkerId("reconcile-cli");
  let run = await claimRun(client, runId, owner);
  // One run per scope at a time: wait for the one in progress (a worker's, or another command's),
  // holding this run (no worker claims a command's run; one not held is failed).
  while (!run) {
    printError(`reconcile: waiting for the run in progress on ${scopeKey(scope)}`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const status = await holdQueuedRun(client, runId);
    if (status !== "queued") {
      printError(`reconcile: run ${runId} left the queue while waiting (${status ?? "deleted"})`);
      return 2;
    }
    run = await claimRun(client, runId, owner);
  }
  const progress = progressPrinter(view, io.stderr);
  const outcome = await executeRun(client, run, { input: createReadStream(file), onProgress: progress.update });
  progress.end();
  if (outcome.status !== "done") {
    printError(`reconcile: ${file}: ${outcome.status === "failed" ? said(outcome.reason, outcome.error) : outcome.reason}`);
    return 2;
  }
  await recordAudit(client, { id: operator, email: operator, organizationId: DEFAULT_ORGANIZATION.id }, { action: "reconciliation.run", targetType: "reconciliation_run", targetId: runId, note: because("audit_reconciliation_cli", { file, mismatches: outcome.mismatchCount }) });
  if (format === "lab") await printLabRun(client, runId, json, view, write);
  else await printPaymentRun(client, runId, json, view, write);
  return outcome.mismatchCount === 0 ? 0 : 1;
}

if (require.main === module) runCli("reconcile", main, { errorCode: 2 });
