import { Readable } from "node:stream";
import { parse } from "csv-parse";
import { decimalToMinor, isIsoCurrency, MoneyFormatError } from "@/lib/money/minor-units";
import { SettlementCsvError } from "@/lib/reconciliation/settlement-csv";
import { holdsControlCharacters } from "@/lib/format/terminal-safe";

/**
 * The settlement reports Acredita reads, told apart by their header row:
 * - `stripe-balance-change`: Stripe's "Itemized balance change from activity" report
 *   (`balance_change_from_activity.itemized.*`), as the Dashboard or the Reporting API exports it;
 * - `stripe-payout-reconciliation`: Stripe's "Itemized payout reconciliation" report
 *   (`payout_reconciliation.itemized.*`): the same columns plus `automatic_payout_id`;
 * - `payments`: Acredita's provider-neutral, payment-level settlement CSV (docs/reconciliation.md), for
 *   Yolfi and Standard Webhooks senders;
 * - `lab`: the lab's order-level file (`order_id,provider_status,amount,currency`), read by
 *   lib/reconciliation/settlement-csv.ts.
 */
export type SettlementFormat = "stripe-balance-change" | "stripe-payout-reconciliation" | "payments" | "lab";

/** What a settlement line is, provider-neutral. Stripe's `reporting_category` values map one to one; others are `other`. */
export type SettlementKind = "charge" | "refund" | "refund_failure" | "dispute" | "dispute_reversal" | "fee" | "payout" | "adjustment" | "other";

/**
 * One line of a payment-level settlement report. Amounts are signed integers of minor units of
 * `currency` (upper case ISO 4217): `gross` the amount moved, `fee` the provider's fee, `net` what the
 * merchant's balance changed by. `createdAt` is UTC.
 */
export interface SettlementEntry {
  /** 1-based line of the file (the header is line 1). */
  line: number;
  /** The provider's id of this balance movement (Stripe `balance_transaction_id`), unique in a report. */
  transactionId: string;
  createdAt: Date;
  kind: SettlementKind;
  /** The provider's own category as written (Stripe `reporting_category`), for `other` lines. */
  category: string;
  /** The payment this line belongs to: Stripe's PaymentIntent id (Acredita's payment key), else its charge or source. */
  paymentId?: string;
  chargeId?: string;
  /** The merchant's order id when the report carries it (Stripe `payment_metadata[order_id]`, the neutral `order_id`). */
  orderId?: string;
  /** The payout that settled this line (Stripe `automatic_payout_id`). */
  payoutId?: string;
  currency: string;
  gross: number;
  fee: number;
  net: number;
}

const STRIPE_REQUIRED = ["balance_transaction_id", "created_utc", "currency", "gross", "fee", "net", "reporting_category"] as const;
const PAYMENTS_REQUIRED = ["transaction_id", "created_at", "kind", "payment_id", "amount", "currency"] as const;
const LAB_REQUIRED = ["order_id", "provider_status", "amount", "currency"] as const;

const REQUIRED: Record<SettlementFormat, readonly string[]> = {
  "stripe-balance-change": STRIPE_REQUIRED,
  "stripe-payout-reconciliation": [...STRIPE_REQUIRED, "automatic_payout_id"],
  payments: PAYMENTS_REQUIRED,
  lab: LAB_REQUIRED,
};

/** The columns a format needs (others are ignored). */
export function requiredColumns(format: SettlementFormat): readonly string[] {
  return REQUIRED[format];
}

/**
 * Tells the format from a header row (names trimmed, lower-cased): Stripe's reports by
 * `balance_transaction_id` (payout reconciliation when `automatic_payout_id` is there too), the
 * neutral CSV by `transaction_id`, the lab's by `provider_status`. With `forced` (the CLI's `--format`),
 * that format is used. Throws {@link SettlementCsvError} (line 1) when no format fits or a required column
 * is missing, naming the missing columns.
 */
export function detectFormat(header: string[], forced?: SettlementFormat): SettlementFormat {
  const names = new Set(header);
  const format: SettlementFormat | undefined =
    forced ??
    (names.has("balance_transaction_id") ? (names.has("automatic_payout_id") ? "stripe-payout-reconciliation" : "stripe-balance-change") : names.has("transaction_id") ? "payments" : names.has("provider_status") ? "lab" : undefined);
  if (!format) throw new SettlementCsvError(1, "unknown settlement format: expected a Stripe itemized report (balance_transaction_id, ...), the payments CSV (transaction_id, ...) or the lab's (order_id, provider_status, ...)");
  const missing = REQUIRED[format].filter((column) => !names.has(column));
  if (missing.length > 0) throw new SettlementCsvError(1, `missing column(s) for ${format}: ${missing.join(", ")}`);
  return format;
}

const STRIPE_KINDS: Record<string, SettlementKind> = {
  charge: "charge",
  payment: "charge",
  refund: "refund",
  refund_failure: "refund_failure",
  dispute: "dispute",
  dispute_reversal: "dispute_reversal",
  fee: "fee",
  payout: "payout",
  adjustment: "adjustment",
  other_adjustment: "adjustment",
};

const NEUTRAL_KINDS = new Set<SettlementKind>(["charge", "refund", "dispute", "dispute_reversal", "fee", "adjustment"]);

/** "2026-11-29 12:00:00" (Stripe's `created_utc`) or ISO 8601 with Z/offset: a UTC instant. */
function utcInstant(text: string, column: string, line: number): Date {
  const trimmed = text.trim();
  const iso = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(trimmed) ? `${trimmed.replace(" ", "T")}Z` : trimmed;
  const at = new Date(iso);
  if (!/^\d{4}-\d{2}-\d{2}/.test(trimmed) || Number.isNaN(at.getTime())) throw new SettlementCsvError(line, `${column}: "${trimmed.slice(0, 40)}" is not a UTC date and time like 2026-11-29 12:00:00`);
  return at;
}

function money(text: string | undefined, currency: string, column: string, line: number): number {
  try {
    return decimalToMinor(text ?? "", currency);
  } catch (error) {
    if (error instanceof MoneyFormatError) throw new SettlementCsvError(line, `${column}: ${error.message}`);
    throw error;
  }
}

function isoCurrency(text: string | undefined, line: number): string {
  const code = (text ?? "").trim().toUpperCase();
  if (!isIsoCurrency(code)) throw new SettlementCsvError(line, `currency: "${(text ?? "").slice(0, 10)}" is not an ISO 4217 currency`);
  return code;
}

function optional(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** An id column's value when present (trimmed), refused when it is longer than 255 or holds a control character. */
function optionalId(record: Record<string, string>, column: string, line: number): string | undefined {
  const value = optional(record[column]);
  if (value !== undefined && (value.length > 255 || holdsControlCharacters(value))) throw new SettlementCsvError(line, `${column}: not an id`);
  return value;
}

function required(record: Record<string, string>, column: string, line: number): string {
  const value = optionalId(record, column, line);
  if (!value) throw new SettlementCsvError(line, `${column}: missing`);
  return value;
}

/** One line of a Stripe itemized report (both report types share the columns Acredita reads). Stripe writes amounts in major units. */
function stripeEntry(record: Record<string, string>, line: number): SettlementEntry {
  const currency = isoCurrency(record.currency, line);
  const category = required(record, "reporting_category", line);
  const chargeId = optionalId(record, "charge_id", line);
  return {
    line,
    transactionId: required(record, "balance_transaction_id", line),
    createdAt: utcInstant(record.created_utc ?? "", "created_utc", line),
    kind: STRIPE_KINDS[category] ?? "other",
    category,
    paymentId: optionalId(record, "payment_intent_id", line) ?? chargeId ?? optionalId(record, "source_id", line),
    chargeId,
    orderId: optionalId(record, "payment_metadata[order_id]", line),
    payoutId: optionalId(record, "automatic_payout_id", line),
    currency,
    gross: money(record.gross, currency, "gross", line),
    fee: money(record.fee, currency, "fee", line),
    net: money(record.net, currency, "net", line),
  };
}

function minorInteger(text: string | undefined, column: string, line: number): number {
  const trimmed = (text ?? "").trim();
  if (!/^-?\d{1,15}$/.test(trimmed)) throw new SettlementCsvError(line, `${column}: "${trimmed.slice(0, 40)}" must be a whole number of minor units`);
  return Number(trimmed);
}

/** One line of the neutral payments CSV: amounts already in minor units, signed (refunds and disputes negative). */
function paymentsEntry(record: Record<string, string>, line: number): SettlementEntry {
  const currency = isoCurrency(record.currency, line);
  const kind = required(record, "kind", line) as SettlementKind;
  if (!NEUTRAL_KINDS.has(kind)) throw new SettlementCsvError(line, `kind: "${kind.slice(0, 40)}" must be one of ${[...NEUTRAL_KINDS].join(", ")}`);
  const gross = minorInteger(record.amount, "amount", line);
  const fee = optional(record.fee) === undefined ? 0 : minorInteger(record.fee, "fee", line);
  return {
    line,
    transactionId: required(record, "transaction_id", line),
    createdAt: utcInstant(record.created_at ?? "", "created_at", line),
    kind,
    category: kind,
    paymentId: required(record, "payment_id", line),
    orderId: optionalId(record, "order_id", line),
    currency,
    gross,
    fee,
    net: gross - fee,
  };
}

/**
 * Streams a payment-level settlement report (a Stripe itemized report or the neutral payments CSV,
 * detected from its header or given as `format`) with csv-parse and yields one {@link SettlementEntry}
 * per line, holding only the current line in memory. Unknown columns are ignored; a line with more or
 * fewer fields than the header is refused (an unquoted "25,00" would shift the columns after it).
 * Throws {@link SettlementCsvError} with the line number on the first bad line (a decimal comma, an
 * unknown currency, a bad date), for an empty file, a missing column, or the lab's order-level format
 * (read it with readSettlementCsv).
 */
export async function* readSettlementEntries(input: Readable | string | Buffer, format?: Exclude<SettlementFormat, "lab">): AsyncGenerator<SettlementEntry> {
  const source = typeof input === "string" || Buffer.isBuffer(input) ? Readable.from([input]) : input;
  let header: string[] | undefined;
  let detected: SettlementFormat | undefined;
  const columns = (names: string[]) => {
    header = names.map((name) => name.trim().toLowerCase());
    detected = detectFormat(header, format);
    if (detected === "lab") throw new SettlementCsvError(1, "the lab's order-level file is not a payment-level report");
    return header;
  };
  const parser = source.pipe(parse({ columns, skip_empty_lines: true, trim: true, info: true, bom: true }));
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
      yield detected === "payments" ? paymentsEntry(record, info.lines) : stripeEntry(record, info.lines);
    }
    if (!header) throw new SettlementCsvError(1, "empty file: expected a header row");
  } catch (error) {
    if (error instanceof SettlementCsvError) throw error;
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof SettlementCsvError) throw cause;
    const parseError = error as { code?: string; lines?: number; record?: unknown[] };
    // A field count other than the header's: an unquoted comma (a decimal comma such as 25,00) shifts every column after it.
    if (parseError.code === "CSV_RECORD_INCONSISTENT_COLUMNS") throw new SettlementCsvError(parseError.lines ?? 0, `${parseError.record?.length ?? "?"} fields where the header has ${header?.length ?? "?"} (an unquoted comma in a value?)`);
    throw new SettlementCsvError((error as { lines?: number }).lines ?? 0, `not a valid CSV: ${(error as Error).message.split("\n")[0]}`);
  }
}
