// npm run verify-books [-- --order <id> ...] [--json] [--locale en|es-AR]
// Rebuild and compare: re-derives each order's status and ledger from its applied stored events with
// today's code, in transactions that are rolled back, and compares them with the books. Without --order,
// every order, in batches, recorded as the latest check (the dashboard's health strip and /api/metrics
// show it); with --order, those orders only (not recorded). Prints "books agree for N of N orders" or
// each difference with its events; events still pending or dead-lettered are listed apart. Nothing is
// ever corrected.
// Exit: 0 the books agree; 1 some order differs; 2 bad usage or an unknown order id.
// Log lines to stderr: this command's stdout is its output. First import, before anything loads the logger.
import "@/lib/log/cli-logs-to-stderr";
import "@/lib/config/env-files";
import { writeLine, type CliEnv, type CliIo } from "@/lib/background/cli-io";
import { runCli } from "@/lib/background/run-cli";
import { readSettings, SettingsError, type Settings } from "@/lib/config/settings";
import { cliSchemaExitCode } from "@/lib/db/cli-schema";
import { withOwnDb } from "@/lib/db/client";
import { terminalSafe } from "@/lib/format/terminal-safe";
import { cliLocale, cliReasons, withoutLocaleFlag, type CliReasons } from "@/lib/reasons/cli-reasons";
import { runBooksCheck } from "@/lib/verification/books-check-schedule";
import { verifyBooks, type BooksReport } from "@/lib/verification/verify-books";
import { DEFAULT_ORGANIZATION } from "@/lib/organizations/organizations";

const USAGE = "usage: npm run verify-books [-- --order <id> ...] [--json]";

/** The report in the reader's words: the summary, then each order that differs, could not be rebuilt, or waits. */
export function reportLines(view: CliReasons, report: BooksReport): string[] {
  const lines = [view.t("reasons.cli.books.summary", { agreeing: report.agreeing, orders: report.orders, a: view.count(report.agreeing), n: view.count(report.orders) })];
  if (report.differing > 0) lines.push(view.t("reasons.cli.books.differing", { count: report.differing, n: view.count(report.differing) }));
  const money = (amount: number | null, currency: string) => (amount === null ? "-" : view.money(amount, currency));
  for (const check of report.differences) {
    lines.push(view.t("reasons.cli.books.differs", { orderId: check.orderId }));
    if (check.books && check.rebuilt) {
      for (const field of ["status", "refunded", "disputed"] as const) {
        if (check.books[field] === check.rebuilt[field]) continue;
        const shown = (value: string | number) => (typeof value === "number" ? view.money(value, check.currency) : value);
        lines.push(`  ${view.t("reasons.cli.books.field", { field, books: shown(check.books[field]), rebuilt: shown(check.rebuilt[field]) })}`);
      }
    }
    for (const entry of check.entries) {
      lines.push(`  ${view.t("reasons.cli.books.entry", { kind: entry.kind, entryKind: entry.entryKind, businessKey: entry.businessKey, books: money(entry.books, entry.currency), rebuilt: money(entry.rebuilt, entry.currency), events: entry.eventIds.join(", ") })}`);
    }
    for (const refused of check.refused) lines.push(`  ${view.t("reasons.cli.books.refused", { eventId: refused.eventId, reason: view.render(refused.reasonRef, refused.reason) })}`);
  }
  for (const check of report.unverifiableOrders) {
    lines.push(view.t(check.why?.code === "payload_purged" ? "reasons.cli.books.purged" : "reasons.cli.books.failed", { orderId: check.orderId, events: check.why?.eventIds.join(", ") ?? "-" }));
  }
  for (const waiting of report.waitingOrders) {
    lines.push(view.t("reasons.cli.books.waiting", { orderId: waiting.orderId, events: waiting.events.map((event) => `${event.eventId} (${event.status})`).join(", ") }));
  }
  return lines;
}

/**
 * `npm run verify-books`: takes the arguments after the script, the environment (DATABASE_URL, LANG)
 * and the streams; resolves with the exit status (0 agree, 1 some order differs, 2 bad usage or an
 * unknown order id).
 */
export async function main(argv: string[], env: CliEnv, io: CliIo): Promise<number> {
  const print = (line: string) => writeLine(io.stdout, terminalSafe(line));
  const fail = (line: string) => writeLine(io.stderr, terminalSafe(`verify-books: ${line}`));
  const locale = cliLocale(argv, env);
  if (typeof locale !== "string") {
    fail(locale.error);
    return 2;
  }
  const view = cliReasons(locale);
  const args = withoutLocaleFlag(argv);
  const orderIds: string[] = [];
  let json = false;
  for (let index = 0; index < args.length; index++) {
    if (args[index] === "--json") json = true;
    else if (args[index] === "--order" && args[index + 1] && !args[index + 1].startsWith("--")) orderIds.push(...args[++index].split(",").map((id) => id.trim()).filter(Boolean));
    else {
      writeLine(io.stderr, USAGE);
      return 2;
    }
  }
  let config: Settings;
  try {
    config = readSettings(env);
  } catch (error) {
    if (error instanceof SettingsError) {
      fail(error.message);
      return 2;
    }
    throw error;
  }
  const schemaExit = await cliSchemaExitCode("verify-books", config.DATABASE_URL, { apply: true, stderr: io.stderr });
  if (schemaExit !== undefined) return schemaExit;
  return withOwnDb(config, async (database) => {
    let report: BooksReport;
    if (orderIds.length > 0) {
      const known = new Set((await database.order.findMany({ where: { organizationId: DEFAULT_ORGANIZATION.id, id: { in: orderIds } }, select: { id: true } })).map((order) => order.id));
      const unknown = orderIds.filter((id) => !known.has(id));
      if (unknown.length > 0) {
        fail(view.t("reasons.cli.books.unknownOrder", { orders: unknown.join(", ") }));
        return 2;
      }
      report = await verifyBooks(database, DEFAULT_ORGANIZATION.id, { orderIds });
    } else {
      report = await runBooksCheck(database, DEFAULT_ORGANIZATION.id, "cli");
    }
    if (json) print(JSON.stringify(report, null, 2));
    else for (const line of reportLines(view, report)) print(line);
    return report.differing > 0 ? 1 : 0;
  });
}

if (require.main === module) runCli("verify-books", main);
