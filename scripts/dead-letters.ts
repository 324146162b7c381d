// npm run dead-letters -- list [--all|--resolved] [--json] [--locale en|es-AR] | retry <id>|--all [--confirm-review-first]
// Lists dead letters, or retries them through the same core (an event never applies twice), with the
// dashboard's rules: a review-first dead letter (amount or currency mismatch, ...) is retried only with
// --confirm-review-first, and each retry writes an audit row naming the operator (cli:<user>).
// Exit: 0 done, 1 a retry failed again or was refused (review first included), 2 bad usage or unknown id.
// Log lines to stderr: this command's stdout is its output. First import, before anything loads the logger.
import "@/lib/log/cli-logs-to-stderr";
import "@/lib/config/env-files";
import { userInfo } from "node:os";
import { readSettings } from "@/lib/config/settings";
import { cliSchemaExitCode } from "@/lib/db/cli-schema";
import { withOwnDb, type Db } from "@/lib/db/client";
import { listDeadLetters } from "@/lib/dead-letters/list-dead-letters";
import { retryAllDeadLettersAs, retryDeadLetterAs, type DashboardRetryOutcome, type DeadLetterRetryResult } from "@/lib/triage/manage-dead-letters";
import type { Actor } from "@/lib/auth/roles";
import { cliLocale, cliReasons, withoutLocaleFlag } from "@/lib/reasons/cli-reasons";
import { writeLine, type CliEnv, type CliIo } from "@/lib/background/cli-io";
import { runCli } from "@/lib/background/run-cli";
import { terminalSafe } from "@/lib/format/terminal-safe";
import { DEFAULT_ORGANIZATION } from "@/lib/organizations/organizations";

const USAGE = "usage: npm run dead-letters -- list [--all|--resolved] [--json] | retry <id> [--confirm-review-first] | retry --all [--confirm-review-first]";
const SUCCESS: ReadonlySet<DashboardRetryOutcome> = new Set(["requeued", "applied", "duplicate", "ignored", "already_applied", "already_resolved"]);

/** The operator: whoever runs the CLI holds the database, so acts as an admin; audit rows name them `cli:<user>`. */
function operator(): Actor {
  let name = "cli";
  try {
    name = `cli:${userInfo().username}`;
  } catch {
    // No user name (a container without /etc/passwd): "cli".
  }
  return { id: name, email: name, name, role: "admin", organizationId: DEFAULT_ORGANIZATION.id };
}

/**
 * `npm run dead-letters`: takes the arguments after the script, the environment (DATABASE_URL and the other
 * settings, the locale's LANG) and the streams; resolves with the exit status (0 done, 1 a retry failed
 * again or was refused, 2 bad usage or an unknown id, or the schema step's status). A retried event is
 * applied with this process's own settings and endpoints, as in every process that applies events.
 */
export async function main(args: string[], env: CliEnv, io: CliIo): Promise<number> {
  /** Prints one line: ids and reasons came from providers' bodies, so nothing in them may drive the terminal. */
  const print = (line: string) => writeLine(io.stdout, terminalSafe(line));
  const locale = cliLocale(args, env);
  if (typeof locale !== "string") {
    writeLine(io.stderr, `dead-letters: ${locale.error}`);
    return 2;
  }
  const view = cliReasons(locale);
  // The outcome stays a machine word (scripts grep it); the reason reads in the reader's locale.
  const printResult = (result: DeadLetterRetryResult) => print(`${result.id}  ${result.outcome}  ${view.render(result.reasonRef, result.reason)}`);
  const [command, ...rest] = withoutLocaleFlag(args);
  const config = readSettings(env);
  const schemaExit = await cliSchemaExitCode("dead-letters", config.DATABASE_URL, { apply: true, stderr: io.stderr });
  if (schemaExit !== undefined) return schemaExit;
  return withOwnDb(config, async (database: Db) => {
    if (command === "list") {
      const status = rest.includes("--all") ? "all" : rest.includes("--resolved") ? "resolved" : "open";
      const letters = await listDeadLetters(database, DEFAULT_ORGANIZATION.id, { status, limit: 500 });
      if (rest.includes("--json")) {
        print(JSON.stringify({ data: letters, count: letters.length }, null, 2));
        return 0;
      }
      for (const letter of letters) {
        // In English the line scripts grep (key=value, the stored words); in another locale, its words translated (scripts use --json).
        const key = (name: string) => (locale === "en" ? name : view.t(`reasons.cli.deadLetterKey.${name}`));
        const status = locale === "en" ? letter.status : view.status(letter.status);
        const category = locale === "en" ? letter.category : view.word("category", letter.category);
        print(
          [letter.id, status, category, `${key("attempts")}=${letter.attempts}`, `${key("first")}=${letter.firstFailedAt}`, `${key("last")}=${letter.lastFailedAt}`, `${letter.provider}:${letter.eventId}`, `${key("order")}=${letter.orderId ?? "-"}`, `${key("owner")}=${letter.owner ?? "-"}`].join("  "),
        );
        print(`    ${view.t("reasons.cli.deadLetterReason")}: ${view.describe(letter)}`);
        if (letter.status === "resolved") {
          // How it was resolved, by whom and when (UTC): a system resolution from its code, a person's note as written.
          const resolution = letter.resolution === null ? "-" : view.describe({ reason: letter.resolution, reasonCode: letter.resolutionCode, reasonParams: letter.resolutionParams });
          print(`    ${view.t("reasons.cli.deadLetterResolution", { resolution, by: letter.resolvedBy ? view.actor(letter.resolvedBy) : "-", at: letter.resolvedAt ?? "-" })}`);
        } else print(`    ${view.t("reasons.cli.deadLetterNext")}: ${view.text("nextAction", letter.category, letter.nextAction)}`);
      }
      print(view.t("reasons.cli.deadLetterCount", { status, count: letters.length, n: view.count(letters.length) }));
      return 0;
    }
    const confirmReviewFirst = rest.includes("--confirm-review-first");
    const retryArgs = rest.filter((arg) => arg !== "--confirm-review-first");
    if (command === "retry" && retryArgs[0] === "--all" && retryArgs.length === 1) {
      const results = await retryAllDeadLettersAs(database, operator(), { confirmReviewFirst });
      results.forEach(printResult);
      const counts = new Map<string, number>();
      for (const result of results) counts.set(result.outcome, (counts.get(result.outcome) ?? 0) + 1);
      const summary = [...counts].map(([outcome, count]) => `${outcome} ${count}`).join(", ");
      // The outcomes stay machine words, as on each result's line.
      print(`${view.t("reasons.cli.retriedCount", { count: results.length, n: view.count(results.length) })}${summary ? `: ${summary}` : ""}`);
      if (counts.has("review_first")) print(view.t("reasons.cli.reviewFirstLeft"));
      return results.every((result) => SUCCESS.has(result.outcome)) ? 0 : 1;
    }
    if (command === "retry" && retryArgs.length === 1 && !retryArgs[0].startsWith("--")) {
      const result = await retryDeadLetterAs(database, operator(), retryArgs[0], { confirmReviewFirst });
      printResult(result);
      if (result.outcome === "not_found") return 2;
      return SUCCESS.has(result.outcome) ? 0 : 1;
    }
    writeLine(io.stderr, USAGE);
    return 2;
  });
}

if (require.main === module) runCli("dead-letters", main);
