// npm run replay -- preview <filter> [--json] | apply <replay-id> [--json] | show <replay-id> [--json]
//                 | retry-dead-letters <filter> [--yes] [--confirm-review-first] [--json]      [--locale en|es-AR]
// <filter>: --event <id> (repeatable, or ids separated by commas), --endpoint <name>, --type <event type>,
// --status processed|ignored|failed|dead, --reason <reason code>, --from <ISO time>, --to <ISO time>,
// --order <order id>. The same code as the dashboard and POST /api/replays: a preview runs today's code
// in transactions that are rolled back and stores the replay; apply applies exactly those events once
// (audited, as cli:<user>). retry-dead-letters counts the open dead letters the filter names and retries
// them only with --yes, at the count it just showed.
// Exit: 0 done; 1 refused by the state (stale preview, nothing or too much to replay, a retry failed
// again or was refused); 2 bad usage or an unknown replay id.
// Log lines to stderr: this command's stdout is its output. First import, before anything loads the logger.
import "@/lib/log/cli-logs-to-stderr";
import "@/lib/config/env-files";
import { userInfo } from "node:os";
import type { Actor } from "@/lib/auth/roles";
import { writeLine, type CliEnv, type CliIo } from "@/lib/background/cli-io";
import { runCli } from "@/lib/background/run-cli";
import { readSettings, SettingsError, type Settings } from "@/lib/config/settings";
import { cliSchemaExitCode } from "@/lib/db/cli-schema";
import { withOwnDb, type Db } from "@/lib/db/client";
import { describeZodError } from "@/lib/providers/json";
import { cliLocale, cliReasons, withoutLocaleFlag, type CliReasons } from "@/lib/reasons/cli-reasons";
import { terminalSafe } from "@/lib/format/terminal-safe";
import { applyReplay } from "@/lib/replay/apply-replay";
import { previewReplay } from "@/lib/replay/preview-replay";
import { replayFilterSchema, type ReplayFilter } from "@/lib/replay/replay-filter";
import { readReplay, type ReplayOrderState, type ReplayView } from "@/lib/replay/replay-store";
import { deadLettersByFilter, retryDeadLettersByFilter } from "@/lib/replay/retry-by-filter";
import { DEFAULT_ORGANIZATION } from "@/lib/organizations/organizations";

const USAGE =
  "usage: npm run replay -- preview <filter> [--json] | apply <replay-id> [--json] | show <replay-id> [--json] | retry-dead-letters <filter> [--yes] [--confirm-review-first] [--json]\n" +
  "  <filter>: --event <id> (repeatable) --endpoint <name> --type <event type> --status processed|ignored|failed|dead --reason <reason code> --from <ISO time> --to <ISO time> --order <order id>";

const FILTER_FLAGS: Record<string, keyof ReplayFilter> = { "--event": "eventIds", "--endpoint": "endpoint", "--type": "type", "--status": "status", "--reason": "reason", "--from": "from", "--to": "to", "--order": "orderId" };
const SWITCHES = new Set(["--json", "--yes", "--confirm-review-first"]);

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

/** The filter flags and switches of `args`, or the problem with them. */
export function parseArgs(args: readonly string[]): { ok: true; filter: Record<string, unknown>; positional: string[]; switches: Set<string> } | { ok: false; error: string } {
  const filter: Record<string, unknown> = {};
  const positional: string[] = [];
  const switches = new Set<string>();
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (SWITCHES.has(arg)) {
      switches.add(arg);
      continue;
    }
    const field = FILTER_FLAGS[arg];
    if (field) {
      const value = args[index + 1];
      if (value === undefined || value.startsWith("--")) return { ok: false, error: `${arg} needs a value` };
      index++;
      if (field === "eventIds") filter.eventIds = [...((filter.eventIds as string[] | undefined) ?? []), ...value.split(",").map((id) => id.trim()).filter(Boolean)];
      else filter[field] = value;
      continue;
    }
    if (arg.startsWith("--")) return { ok: false, error: `unknown option ${arg.slice(0, 40)}` };
    positional.push(arg);
  }
  return { ok: true, filter, positional, switches };
}

function state(view: CliReasons, order: ReplayOrderState | null, currency: string): string {
  if (!order) return view.t("reasons.cli.replay.noOrder");
  return view.t("reasons.cli.replay.state", { status: order.status, credited: view.money(order.credited, currency), refunded: view.money(order.refunded, currency) });
}

/** Prints a replay as a person reads it: its events with what each does, each order before and after, the entries and the money. */
function printReplay(print: (line: string) => void, view: CliReasons, replay: ReplayView, events = replay.applied ?? replay.events): void {
  for (const event of events) {
    print(view.t("reasons.cli.replay.event", { position: event.position + 1, provider: event.provider, eventId: event.eventId, type: event.type, status: event.status, outcome: event.outcome, reason: view.render(event.reasonRef, event.reason) }));
  }
  for (const order of replay.orders) {
    const currency = order.ledger[0]?.currency ?? Object.keys(order.delta)[0] ?? "ARS";
    print(view.t("reasons.cli.replay.order", { orderId: order.orderId, before: state(view, order.before, currency), after: state(view, order.after, currency) }));
    for (const line of order.ledger) print(`    ${view.t("reasons.cli.replay.entry", { kind: line.kind, amount: view.money(line.amount, line.currency), businessKey: line.businessKey, eventId: line.eventId })}`);
    const delta = Object.entries(order.delta).map(([code, amount]) => `${amount > 0 ? "+" : ""}${view.money(amount, code)}`);
    print(`    ${delta.length > 0 ? view.t("reasons.cli.replay.delta", { delta: delta.join(", ") }) : view.t("reasons.cli.replay.noDelta")}`);
  }
}

/**
 * `npm run replay`: takes the arguments after the script, the environment (DATABASE_URL and the other
 * settings, LANG for the locale) and the streams; resolves with the exit status (see the file's head).
 * The events are applied with this process's own endpoints, as in every process that applies events.
 */
export async function main(argv: string[], env: CliEnv, io: CliIo): Promise<number> {
  const print = (line: string) => writeLine(io.stdout, terminalSafe(line));
  const fail = (line: string) => writeLine(io.stderr, terminalSafe(`replay: ${line}`));
  const locale = cliLocale(argv, env);
  if (typeof locale !== "string") {
    fail(locale.error);
    return 2;
  }
  const view = cliReasons(locale);
  const [command, ...rest] = withoutLocaleFlag(argv);
  const parsed = parseArgs(rest);
  if (!parsed.ok || !["preview", "apply", "show", "retry-dead-letters"].includes(command ?? "")) {
    if (!parsed.ok) fail(parsed.error);
    writeLine(io.stderr, USAGE);
    return 2;
  }
  const { positional, switches } = parsed;
  const json = switches.has("--json");
  const byId = command === "apply" || command === "show";
  if (byId ? positional.length !== 1 || Object.keys(parsed.filter).length > 0 : positional.length > 0) {
    writeLine(io.stderr, USAGE);
    return 2;
  }
  let filter: ReplayFilter = {};
  if (!byId) {
    const checked = replayFilterSchema.safeParse(parsed.filter);
    if (!checked.success) {
      fail(describeZodError(checked.error));
      return 2;
    }
    filter = checked.data;
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
  const schemaExit = await cliSchemaExitCode("replay", config.DATABASE_URL, { apply: true, stderr: io.stderr });
  if (schemaExit !== undefined) return schemaExit;
  return withOwnDb(config, async (database: Db) => {
    const actor = operator();
    if (command === "preview") {
      const result = await previewReplay(database, actor, filter);
      if (result.kind === "no_events") {
        if (json) print(JSON.stringify({ code: "no_events" }));
        else print(view.t("reasons.cli.replay.noEvents"));
        return 1;
      }
      if (result.kind === "too_many") {
        if (json) print(JSON.stringify({ code: "too_many_events", count: result.count, limit: result.limit }));
        else print(view.t("reasons.cli.replay.tooMany", { count: result.count, limit: result.limit }));
        return 1;
      }
      if (json) {
        print(JSON.stringify(result.replay, null, 2));
        return 0;
      }
      print(view.t("reasons.cli.replay.previewed", { id: result.replay.id, events: result.replay.events.length, orders: result.replay.orders.length }));
      printReplay(print, view, result.replay);
      print(view.t("reasons.cli.replay.applyHint", { id: result.replay.id }));
      return 0;
    }
    if (command === "show") {
      const stored = await readReplay(database, DEFAULT_ORGANIZATION.id, positional[0]);
      if (!stored) {
        fail(view.t("reasons.cli.replay.notFound", { id: positional[0] }));
        return 2;
      }
      if (json) print(JSON.stringify(stored.view, null, 2));
      else {
        print(view.t("reasons.cli.replay.shown", { id: stored.view.id, status: stored.view.status, events: stored.view.events.length, orders: stored.view.orders.length }));
        printReplay(print, view, stored.view);
      }
      return 0;
    }
    if (command === "apply") {
      const result = await applyReplay(database, actor, positional[0]);
      if (result.kind === "not_found") {
        fail(view.t("reasons.cli.replay.notFound", { id: positional[0] }));
        return 2;
      }
      if (json) {
        print(JSON.stringify({ kind: result.kind, ...(result.kind === "applied" ? { applied: result.applied } : {}), ...(result.kind === "stale" ? { orders: result.orders, events: result.events } : {}), replay: result.replay }, null, 2));
      } else if (result.kind === "applied") {
        print(view.t("reasons.cli.replay.applied", { id: result.replay.id, applied: result.applied, events: result.replay.applied?.length ?? 0 }));
        printReplay(print, view, result.replay);
      } else if (result.kind === "already_applied") {
        print(view.t("reasons.cli.replay.alreadyApplied", { id: result.replay.id, at: result.replay.appliedAt ?? "-", by: result.replay.appliedBy ? view.actor(result.replay.appliedBy) : "-" }));
      } else {
        print(view.t("reasons.cli.replay.stale", { id: result.replay.id, orders: result.orders.length > 0 ? result.orders.join(", ") : "-" }));
      }
      return result.kind === "stale" ? 1 : 0;
    }
    // retry-dead-letters: the count first; with --yes, the retry at that count.
    const found = await deadLettersByFilter(database, DEFAULT_ORGANIZATION.id, filter);
    if (found.kind === "too_many") {
      print(view.t("reasons.cli.replay.retryTooMany", { count: found.count, limit: found.limit }));
      return 1;
    }
    if (!switches.has("--yes")) {
      if (json) print(JSON.stringify({ count: found.count, deadLetters: found.deadLetters }, null, 2));
      else {
        print(view.t("reasons.cli.replay.retryCount", { count: found.count, n: view.count(found.count) }));
        for (const letter of found.deadLetters) print(`  ${letter.id}  ${letter.endpoint}:${letter.eventId}  ${letter.type}  ${letter.orderId ?? "-"}`);
        if (found.count > 0) print(view.t("reasons.cli.replay.retryHint"));
      }
      return 0;
    }
    const result = await retryDeadLettersByFilter(database, actor, filter, found.count, { confirmReviewFirst: switches.has("--confirm-review-first") });
    if (result.kind !== "retried") {
      print(result.kind === "too_many" ? view.t("reasons.cli.replay.retryTooMany", { count: result.count, limit: result.limit }) : view.t("reasons.cli.replay.retryCountChanged", { count: result.count, expected: result.expected }));
      return 1;
    }
    if (json) print(JSON.stringify({ count: result.results.length, results: result.results }, null, 2));
    else {
      for (const one of result.results) print(`${one.id}  ${one.outcome}  ${view.render(one.reasonRef, one.reason)}`);
      print(view.t("reasons.cli.retriedCount", { count: result.results.length, n: view.count(result.results.length) }));
    }
    const settled = new Set(["requeued", "applied", "duplicate", "ignored", "already_applied", "already_resolved"]);
    return result.results.every((one) => settled.has(one.outcome)) ? 0 : 1;
  });
}

if (require.main === module) runCli("replay", main);
