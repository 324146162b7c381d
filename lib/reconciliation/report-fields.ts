/**
 * A settlement report's fields, read one at a time, and the error a bad one raises. Every problem is a
 * reason code with its parameters (lib/reasons/reason-codes.ts), so a refused upload and a failed run
 * read in the reader's language on the pages and in the CLIs, while the English sentence
 * ("line 3: gross: "25,00" is not a decimal amount like 25.00") stays what the logs, the API's `error`
 * and the tests read.
 */
import { holdsControlCharacters } from "@/lib/format/terminal-safe";
import { decimalToMinor, isIsoCurrency, MoneyFormatError } from "@/lib/money/minor-units";
import { reasonRef, reasonText, type ReasonCode, type ReasonParams, type ReasonRef } from "@/lib/reasons/reason-codes";

/**
 * A bad settlement file: the 1-based line (0 when the parser could not tell) and the problem there, as
 * a reason. `reason` is the whole (`report_line`: "line N: <problem>"), its English sentence the message.
 * Exit code 2 in the CLI, 400 on the API, a failed run in the worker.
 */
export class SettlementCsvError extends Error {
  readonly reason: ReasonRef;
  constructor(
    readonly line: number,
    readonly problem: ReasonRef,
  ) {
    const reason = reasonRef("report_line", { line, problem });
    super(reasonText(reason));
    this.reason = reason;
    this.name = "SettlementCsvError";
  }
}

/** Throws a {@link SettlementCsvError} at `line` with problem `code` and its `params`. */
export function badLine<C extends ReasonCode>(line: number, code: C, params: ReasonParams<C>): never {
  throw new SettlementCsvError(line, reasonRef(code, params));
}

/**
 * The longest line (record) a report may have, in characters: a Stripe line with its metadata columns
 * is under 2 KB. Without a cap one quoted field of a 200 MB upload is read whole into memory before
 * it is refused (csv-parse `max_record_size`).
 */
export const MAX_REPORT_LINE_CHARS = 64 * 1024;

/** csv-parse's options for a report: header names via `columns`, records with their line, each line at most {@link MAX_REPORT_LINE_CHARS}. */
export function reportParseOptions(columns: (names: string[]) => string[]) {
  return { columns, skip_empty_lines: true, trim: true, info: true, bom: true, max_record_size: MAX_REPORT_LINE_CHARS } as const;
}

/** A cell as written, cut for an error message (an error never repeats a whole hostile field). */
const shown = (text: string, length = 40) => text.slice(0, length);

/** A trimmed value, or undefined when the cell is empty. */
export function optionalValue(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/**
 * Longest id a report may carry where nothing narrower is known: what a webhook may carry (idSchema in
 * lib/money/amount-schemas.ts, 255), since a report's ids are matched with the ids the webhooks stored.
 * Order ids (the store's, POST /api/orders) and the payments CSV's ids (Yolfi's, a Standard Webhooks
 * sender's) are bounded by it.
 */
export const MAX_REPORT_ID_CHARS = 255;

/**
 * Longest id in a Stripe report (balance transaction, payment intent, charge, source, payout ids and
 * reporting categories): Stripe's ids are a type prefix and a random part, the longest in use being a
 * Checkout Session's (`cs_live_` and 58 characters, 66 in all); 100 leaves room for a longer prefix
 * while a line that lies about its ids is refused at that line, before its ids are held by a run.
 */
export const MAX_STRIPE_ID_CHARS = 100;

/**
 * An id column's value when present (trimmed); refused when longer than `maxChars` (default
 * {@link MAX_REPORT_ID_CHARS}; `report_id_too_long`, naming the bound) or holding a control character.
 */
export function optionalId(record: Record<string, string>, column: string, line: number, maxChars = MAX_REPORT_ID_CHARS): string | undefined {
  const value = optionalValue(record[column]);
  if (value === undefined) return value;
  if (value.length > maxChars) badLine(line, "report_id_too_long", { column, max: maxChars });
  if (holdsControlCharacters(value)) badLine(line, "report_not_id", { column });
  return value;
}

/** An id column's value, refused when empty ({@link optionalId} otherwise). */
export function requiredId(record: Record<string, string>, column: string, line: number, maxChars = MAX_REPORT_ID_CHARS): string {
  const value = optionalId(record, column, line, maxChars);
  if (!value) badLine(line, "report_missing_value", { column });
  return value;
}

/** "2026-11-29 12:00:00" (Stripe's `created_utc`) or ISO 8601 with Z or an offset: a UTC instant. */
export function utcInstant(text: string, column: string, line: number): Date {
  const trimmed = text.trim();
  const iso = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(trimmed) ? `${trimmed.replace(" ", "T")}Z` : trimmed;
  const at = new Date(iso);
  if (!/^\d{4}-\d{2}-\d{2}/.test(trimmed) || Number.isNaN(at.getTime())) badLine(line, "report_bad_time", { column, value: shown(trimmed) });
  return at;
}

/** A decimal string in major units of `currency` as minor units (Stripe's gross/fee/net), by the currency's ISO 4217 exponent. */
export function decimalAmount(text: string | undefined, currency: string, column: string, line: number): number {
  try {
    return decimalToMinor(text ?? "", currency);
  } catch (error) {
    if (!(error instanceof MoneyFormatError)) throw error;
    const problem = error.problem;
    if (problem.kind === "unknown_currency") badLine(line, "report_bad_currency", { column: "currency", value: shown(problem.currency, 10) });
    if (problem.kind === "not_decimal") badLine(line, "report_bad_decimal", { column, value: problem.text });
    if (problem.kind === "too_many_decimals") badLine(line, "report_too_many_decimals", { column, value: problem.text, currency: problem.currency, exponent: problem.exponent });
    badLine(line, "report_amount_too_large", { column, value: problem.text });
  }
}

/** The `currency` column as an upper-case ISO 4217 code, refused when it is not ISO 4217 money. */
export function isoCurrency(text: string | undefined, line: number): string {
  const code = (text ?? "").trim().toUpperCase();
  if (!isIsoCurrency(code)) badLine(line, "report_bad_currency", { column: "currency", value: shown(text ?? "", 10) });
  return code;
}

/** A signed whole number of minor units (at most 15 digits), as the payments CSV writes amounts. */
export function minorInteger(text: string | undefined, column: string, line: number): number {
  const trimmed = (text ?? "").trim();
  if (!/^-?\d{1,15}$/.test(trimmed)) badLine(line, "report_not_minor_units", { column, value: shown(trimmed) });
  return Number(trimmed);
}

/** `value` when it is one of `allowed`, else refused naming them. */
export function oneOf<T extends string>(value: string, allowed: readonly T[], column: string, line: number): T {
  if (!(allowed as readonly string[]).includes(value)) badLine(line, "report_not_one_of", { column, value: shown(value), allowed: allowed.join(", ") });
  return value as T;
}

/**
 * The error of a record csv-parse refused: a field count other than the header's (an unquoted comma,
 * such as the decimal comma of 25,00, shifts every column after it), else "not a valid CSV" with
 * csv-parse's code (translated on pages) and its first line (English, for the logs).
 */
export function csvParseFailure(error: unknown, headerLength: number | undefined): SettlementCsvError {
  const parseError = error as { code?: string; lines?: number; record?: unknown[]; message?: string };
  const line = parseError.lines ?? 0;
  if (parseError.code === "CSV_MAX_RECORD_SIZE") return new SettlementCsvError(line, reasonRef("report_line_too_long", { chars: MAX_REPORT_LINE_CHARS }));
  if (parseError.code === "CSV_RECORD_INCONSISTENT_COLUMNS") return new SettlementCsvError(line, reasonRef("report_field_count", { fields: String(parseError.record?.length ?? "?"), expected: String(headerLength ?? "?") }));
  // csv-parse quotes the offending field in its message: cut, so a hostile field is not stored with the run.
  return new SettlementCsvError(line, reasonRef("report_not_csv", { problem: parseError.code ?? "CSV_INVALID", details: String(parseError.message ?? error).split("\n")[0].slice(0, 200) }));
}
