// Log lines a person reads on a terminal, from pino's JSON lines, without a pretty-printing dependency:
// a JSON log line amid a CLI's own output read like a crash report. A pipe, a file or LOG_FORMAT=json
// keeps the JSON lines that log collectors parse.
import { writeSync } from "node:fs";
import { isatty } from "node:tty";
import { terminalSafe } from "@/lib/format/terminal-safe";
import { cliReasons, type CliReasons } from "@/lib/reasons/cli-reasons";

/** How log lines are written: `json` (pino's lines), `human` (one readable line each), or `auto`: human on a terminal, JSON otherwise. */
export type LogFormat = "auto" | "json" | "human";

const LEVEL_NAMES: Record<number, string> = { 10: "TRACE", 20: "DEBUG", 30: "INFO", 40: "WARN", 50: "ERROR", 60: "FATAL" };
/** pino's own fields, shown in the line's head or not at all. */
const HEAD_FIELDS = new Set(["level", "time", "msg", "pid", "hostname", "service"]);

/** A value as `key=value` shows it: bare when it is a plain word, JSON-quoted otherwise (spaces, quotes, empty). */
function shown(value: unknown): string {
  if (typeof value === "string") return /^[\w.:/@+-]+$/.test(value) ? value : JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

let english: CliReasons | undefined;

/**
 * A record's coded reason (`reasonCode` and `reasonParams`, as decisions and dead letters store them)
 * rendered in English as the dashboard renders it, money formatted by currency ("credited ARS 10.00",
 * not the stored sentence's "credited 1000 ARS"); undefined when the record has no valid code.
 */
function readableReason(record: Record<string, unknown>): string | undefined {
  const { reason, reasonCode, reasonParams } = record;
  if (typeof reasonCode !== "string" || typeof reasonParams !== "string") return undefined;
  english ??= cliReasons("en");
  const rendered = english.describe({ reason: typeof reason === "string" ? reason : null, reasonCode, reasonParams });
  return rendered === "" ? undefined : rendered;
}

/**
 * The `key=value` pairs of a log record's own fields: a nested object's fields by their own names (a
 * decision's `{decision: {...}}`), one level deep, deeper ones as JSON; an error by its message.
 */
function fields(record: Record<string, unknown>, nested = false): string[] {
  const pairs: string[] = [];
  const reason = readableReason(record);
  for (const [key, value] of Object.entries(record)) {
    if (HEAD_FIELDS.has(key) || value === null || value === undefined) continue;
    if (reason !== undefined && key === "reason") {
      pairs.push(`reason=${shown(reason)}`);
      continue;
    }
    // Rendered into the reason above; the stored parameters hold amounts in minor units.
    if (reason !== undefined && key === "reasonParams") continue;
    if (key === "err" && typeof value === "object" && "message" in value) pairs.push(`err=${shown((value as { message: unknown }).message)}`);
    else if (!nested && typeof value === "object" && !Array.isArray(value)) pairs.push(...fields(value as Record<string, unknown>, true));
    else pairs.push(`${key}=${shown(value)}`);
  }
  return pairs;
}

/**
 * One pino JSON line as a person reads it: `HH:MM:SS LEVEL message key=value ...` (time in UTC, like
 * every stored time), control characters escaped (values may come from providers' bodies). A line
 * that is not JSON is returned as it was, escaped.
 */
export function formatLogLine(line: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return terminalSafe(line.trimEnd());
  }
  const time = typeof record.time === "number" ? new Date(record.time).toISOString().slice(11, 19) : "--:--:--";
  const level = (LEVEL_NAMES[record.level as number] ?? String(record.level)).padEnd(5);
  const message = typeof record.msg === "string" ? record.msg : "";
  return terminalSafe([time, level, message, ...fields(record)].filter(Boolean).join(" ")).replaceAll("\n", "\\n");
}

/**
 * The format LOG_FORMAT asks for (`json`, `human`; unset or `auto`: human when `fd` is a terminal),
 * resolved to `json` or `human`. An unknown value reads as auto here; the settings validation names it.
 */
export function resolveLogFormat(requested: string | undefined, fd: number, isTerminal: (fd: number) => boolean = isatty): "json" | "human" {
  const value = requested?.trim().toLowerCase();
  if (value === "json" || value === "human") return value;
  return isTerminal(fd) ? "human" : "json";
}

/** A pino destination that writes each line to `fd` as {@link formatLogLine} shows it, synchronously (a CLI exits right after). */
export function humanDestination(fd: number): { write(line: string): void } {
  return {
    write(chunk: string) {
      for (const line of chunk.split("\n")) if (line.trim()) writeSync(fd, `${formatLogLine(line)}\n`);
    },
  };
}
