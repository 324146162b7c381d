// npm run dead-letters -- list [--all|--resolved] [--json] [--locale en|es-AR] | retry <id> | retry --all
// Lists dead letters, or retries them through the same core (an event never applies twice).
// Exit: 0 done, 1 a retry failed again or was refused, 2 bad usage or unknown id.
import { userInfo } from "node:os";
import { db } from "@/lib/db/client";
import { listDeadLetters } from "@/lib/dead-letters/list-dead-letters";
import { retryAllDeadLetters, retryDeadLetter, type RetryOutcome, type RetryResult } from "@/lib/dead-letters/retry-dead-letter";
import { cliLocale, cliReasons, withoutLocaleFlag } from "@/lib/reasons/cli-reasons";
import { runCli } from "@/lib/background/run-cli";

const USAGE = "usage: npm run dead-letters -- list [--all|--resolved] [--json] | retry <id> | retry --all";
const SUCCESS: ReadonlySet<RetryOutcome> = new Set(["requeued", "applied", "duplicate", "ignored", "already_applied", "already_resolved"]);

function actor(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return "cli";
  }
}


async function main(args: string[]): Promise<number> {
  const locale = cliLocale(args, process.env);
  if (typeof locale !== "string") {
    console.error(`dead-letters: ${locale.error}`);
    return 2;
  }
  const view = cliReasons(locale);
  // The outcome stays a machine word (scripts grep it); the reason reads in the reader's locale.
  const printResult = (result: RetryResult) => console.log(`${result.id}  ${result.outcome}  ${view.render(result.reasonRef, result.reason)}`);
  const [command, ...rest] = withoutLocaleFlag(args);
  const database = await db();
  if (command === "list") {
    const status = rest.includes("--all") ? "all" : rest.includes("--resolved") ? "resolved" : "open";
    const letters = await listDeadLetters(database, { status, limit: 500 });
    if (rest.includes("--json")) {
      console.log(JSON.stringify({ data: letters, count: letters.length }, null, 2));
      return 0;
    }
    for (const letter of letters) {
      console.log(
        [letter.id, letter.status, letter.category, `attempts=${letter.attempts}`, `first=${letter.firstFailedAt}`, `last=${letter.lastFailedAt}`, `${letter.provider}:${letter.eventId}`, `order=${letter.orderId ?? "-"}`, `owner=${letter.owner ?? "-"}`].join("  "),
      );
      console.log(`    ${view.t("reasons.cli.deadLetterReason")}: ${view.describe(letter)}`);
      console.log(`    ${view.t("reasons.cli.deadLetterNext")}: ${view.text("nextAction", letter.category, letter.nextAction)}`);
    }
    console.log(`${letters.length} ${status === "all" ? "" : `${status} `}dead letter${letters.length === 1 ? "" : "s"}`);
    return 0;
  }
  if (command === "retry" && rest[0] === "--all" && rest.length === 1) {
    const { results, counts } = await retryAllDeadLetters(database, actor());
    results.forEach(printResult);
    const summary = Object.entries(counts).map(([outcome, count]) => `${outcome} ${count}`).join(", ");
    console.log(`retried ${results.length} dead letter${results.length === 1 ? "" : "s"}${summary ? `: ${summary}` : ""}`);
    return results.every((result) => SUCCESS.has(result.outcome)) ? 0 : 1;
  }
  if (command === "retry" && rest.length === 1 && !rest[0].startsWith("--")) {
    const result = await retryDeadLetter(database, rest[0], actor());
    printResult(result);
    if (result.outcome === "not_found") return 2;
    return SUCCESS.has(result.outcome) ? 0 : 1;
  }
  console.error(USAGE);
  return 2;
}

runCli("dead-letters", () => main(process.argv.slice(2)));
