import { Readable } from "node:stream";
import { parse } from "csv-parse";
import { badLine, csvParseFailure, reportParseOptions, decimalAmount, isoCurrency, MAX_STRIPE_ID_CHARS, minorInteger, oneOf, optionalId, optionalValue, requiredId, SettlementCsvError, utcInstant } from "@/lib/reconciliation/report-fields";

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
/** The columns a Stripe report names a line's payment by, in the order they are read: at least one must be there. */
const STRIPE_PAYMENT_COLUMNS = ["payment_intent_id", "charge_id", "source_id"] as const;
/**
 * Every column a Stripe itemized report is read by here (the required ones, the payment columns and the
 * order id in the payment's metadata): what a settlement pull asks Stripe's Reporting API for, so the
 * file holds exactly what reconciliation reads (docs.stripe.com/reports/report-types, `columns`).
 */
export const STRIPE_READ_COLUMNS: readonly string[] = [...STRIPE_REQUIRED, ...STRIPE_PAYMENT_COLUMNS, "payment_metadata[order_id]"];
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
 * is missing, naming the missing columns, and when a Stripe report has none of its payment columns
 * (`payment_intent_id`, `charge_id`, `source_id`).
 */
export function detectFormat(header: string[], forced?: SettlementFormat): SettlementFormat {
  const names = new Set(header);
  const format: SettlementFormat | undefined =
    forced ??
    (names.has("balance_transaction_id") ? (names.has("automatic_payout_id") ? "stripe-payout-reconciliation" : "stripe-balance-change") : names.has("transaction_id") ? "payments" : names.has("provider_status") ? "lab" : undefined);
  if (!format) badLine(1, "report_unknown_format", {});
  const missing = REQUIRED[format].filter((column) => !names.has(column));
  if (missing.length > 0) badLine(1, "report_missing_columns_for", { format, columns: missing.join(", ") });
  // Without any payment column no line can be matched to a credit: every booked payment would read as
  // unsettled. Refused at once instead (Stripe's report columns: docs.stripe.com/reports/report-types).
  if ((format === "stripe-balance-change" || format === "stripe-payout-reconciliation") && !STRIPE_PAYMENT_COLUMNS.some((column) => names.has(column))) {
    badLine(1, "report_missing_any_column", { format, columns: STRIPE_PAYMENT_COLUMNS.join(", ") });
  }
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

const NEUTRAL_KINDS: readonly SettlementKind[] = ["charge", "refund", "dispute", "dispute_reversal", "fee", "adjustment"];

/** One line of a Stripe itemized report (both report types share the columns Acredita reads). Stripe writes amounts in major units. */
function stripeEntry(record: Record<string, string>, line: number): SettlementEntry {
  const currency = isoCurrency(record.currency, line);
  const category = requiredId(record, "reporting_category", line, MAX_STRIPE_ID_CHARS);
  const chargeId = optionalId(record, "charge_id", line, MAX_STRIPE_ID_CHARS);
  return {
    line,
    transactionId: requiredId(record, "balance_transaction_id", line, MAX_STRIPE_ID_CHARS),
    createdAt: utcInstant(record.created_utc ?? "", "created_utc", line),
    kind: Object.hasOwn(STRIPE_KINDS, category) ? STRIPE_KINDS[category] : "other",
    category,
    paymentId: optionalId(record, "payment_intent_id", line, MAX_STRIPE_ID_CHARS) ?? chargeId ?? optionalId(record, "source_id", line, MAX_STRIPE_ID_CHARS),
    chargeId,
    // The store's order id, written by the merchant into the payment's metadata: the order's own bound.
    orderId: optionalId(record, "payment_metadata[order_id]", line),
    payoutId: optionalId(record, "automatic_payout_id", line, MAX_STRIPE_ID_CHARS),
    currency,
    gross: decimalAmount(record.gross, currency, "gross", line),
    fee: decimalAmount(record.fee, currency, "fee", line),
    net: decimalAmount(record.net, currency, "net", line),
  };
}

/** One line of the neutral payments CSV: amounts already in minor units, signed (refunds and disputes negative). */
function paymentsEntry(record: Record<string, string>, line: number): SettlementEntry {
  const currency = isoCurrency(record.currency, line);
  const kind = oneOf(requiredId(record, "kind", line), NEUTRAL_KINDS, "kind", line);
  const gross = minorInteger(record.amount, "amount", line);
  const fee = optionalValue(record.fee) === undefined ? 0 : minorInteger(record.fee, "fee", line);
  return {
    line,
    transactionId: requiredId(record, "transaction_id", line),
    createdAt: utcInstant(record.created_at ?? "", "created_at", line),
    kind,
    category: kind,
    paymentId: requiredId(record, "payment_id", line),
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
    if (detected === "lab") badLine(1, "report_lab_not_payment_level", {});
    return header;
  };
  const parser = source.pipe(parse(reportParseOptions(columns)));
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
      yield detected === "payments" ? paymentsEntry(record, info.lines) : stripeEntry(record, info.lines);
    }
    if (!header) badLine(1, "report_empty", {});
  } catch (error) {
    if (error instanceof SettlementCsvError) throw error;
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof SettlementCsvError) throw cause;
    throw csvParseFailure(error, header?.length);
  }
}
