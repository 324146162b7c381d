// The CSV exports (GET /api/exports/orders.csv, decisions.csv, ledger.csv): each an async sequence of
// text chunks, one per batch of 1,000 rows read by keyset, so a response streams any number of rows
// while holding one batch. UTF-8, a header row, RFC 4180 records (CRLF), formula-safe text cells, money
// in major units with "." as the decimal separator beside a currency column, times ISO 8601 UTC.
import type { Db } from "@/lib/db/client";
import { decisionRowsAfter, type DecisionFilter } from "@/lib/decisions/list-decisions";
import { csvNumber, csvRecord, csvText } from "@/lib/format/csv";
import { currencyExponent, minorToDecimal } from "@/lib/money/minor-units";
import { expectedCredited } from "@/lib/orders/list-orders";
import { attentionOf, creditedOf, orderRowsById, type OrderFilter } from "@/lib/orders/order-rows";
import type { ReaderReasons } from "@/lib/reasons/render-reason";
import { ledgerRowsAfter, type LedgerFilter } from "@/lib/exports/ledger-rows";

/** Rows read (and written) per batch. */
export const EXPORT_BATCH_ROWS = 1_000;

/**
 * Minor units of `currency` as major units with "." (2500 USD "25.00", 500 JPY "500"), by the ISO 4217
 * exponent; a code that is not ISO 4217 money (no such code reaches the books through the providers'
 * schemas, but an old row might hold one) is written with two decimals rather than failing the file.
 */
export function majorUnits(amount: number, currency: string): string {
  try {
    currencyExponent(currency);
    return minorToDecimal(amount, currency);
  } catch {
    const digits = String(Math.abs(Math.trunc(amount))).padStart(3, "0");
    return `${amount < 0 ? "-" : ""}${digits.slice(0, -2)}.${digits.slice(-2)}`;
  }
}

const iso = (date: Date | null): string => date?.toISOString() ?? "";

/** The orders export's columns, in order. */
export const ORDER_CSV_COLUMNS = ["order_id", "status", "currency", "amount", "credited", "refunded", "disputed", "difference", "open_dead_letters", "open_extra_charges", "livemode", "checkout_session_id", "created_at", "updated_at", "last_event_at"] as const;

/**
 * Every order matching `filter` (`named`: the ids its search text names exactly) as CSV, in order-id
 * order: the header, then one chunk per {@link EXPORT_BATCH_ROWS} orders with their credited sums and
 * what is open on them. `credited` is the ledger's sum; `difference` credited minus what the status implies.
 */
export async function* ordersCsv(db: Db, filter: OrderFilter, named: readonly string[]): AsyncGenerator<string> {
  yield csvRecord([...ORDER_CSV_COLUMNS]);
  let afterId: string | undefined;
  for (;;) {
    const rows = await orderRowsById(db, filter, named, afterId, EXPORT_BATCH_ROWS);
    if (rows.length === 0) return;
    const ids = rows.map((row) => row.id);
    const [credited, attention] = await Promise.all([creditedOf(db, filter.organizationId, ids), attentionOf(db, filter.organizationId, ids)]);
    let chunk = "";
    for (const row of rows) {
      const sum = credited.get(row.id) ?? 0;
      const open = attention.get(row.id)!;
      chunk += csvRecord([
        csvText(row.id),
        csvText(row.status),
        csvText(row.currency),
        csvNumber(majorUnits(row.amount, row.currency)),
        csvNumber(majorUnits(sum, row.currency)),
        csvNumber(majorUnits(row.refundedAmount, row.currency)),
        csvNumber(majorUnits(row.disputedAmount, row.currency)),
        csvNumber(majorUnits(sum - expectedCredited(row), row.currency)),
        csvNumber(open.openDeadLetters),
        csvNumber(open.openExtraCharges),
        row.livemode ? "true" : "false",
        csvText(row.checkoutSessionId),
        iso(row.createdAt),
        iso(row.updatedAt),
        iso(row.lastEventAt),
      ]);
    }
    yield chunk;
    if (rows.length < EXPORT_BATCH_ROWS) return;
    afterId = rows[rows.length - 1].id;
  }
}

/** The decision log export's columns, in order. */
export const DECISION_CSV_COLUMNS = ["at", "provider", "endpoint", "event_id", "verified", "event_type", "order_id", "outcome", "http_status", "reason_code", "reason", "diagnosis", "secret_label", "source"] as const;

/**
 * Every decision matching `filter` as CSV, newest first (the log's order): the reason and diagnosis as
 * sentences in the reader's language (`reasons`), beside the reason's stable code. Never a secret, a
 * signature or a body (a decision row holds none).
 */
export async function* decisionsCsv(db: Db, filter: DecisionFilter, reasons: ReaderReasons): AsyncGenerator<string> {
  yield csvRecord([...DECISION_CSV_COLUMNS]);
  let cursor: { at: Date; id: string } | undefined;
  for (;;) {
    const rows = await decisionRowsAfter(db, filter, cursor, EXPORT_BATCH_ROWS);
    if (rows.length === 0) return;
    let chunk = "";
    for (const row of rows) {
      chunk += csvRecord([
        iso(row.at),
        csvText(row.provider),
        csvText(row.endpoint),
        csvText(row.eventId),
        row.verified ? "true" : "false",
        csvText(row.eventType),
        csvText(row.orderId),
        csvText(row.outcome),
        csvNumber(row.httpStatus),
        csvText(row.reasonCode),
        csvText(reasons.describe(row)),
        csvText(row.diagnosis ? reasons.describe({ reason: row.diagnosis, reasonCode: row.diagnosisCode, reasonParams: row.diagnosisParams }) : null),
        csvText(row.secretLabel),
        csvText(row.source),
      ]);
    }
    yield chunk;
    if (rows.length < EXPORT_BATCH_ROWS) return;
    const last = rows[rows.length - 1];
    cursor = { at: last.at, id: last.id };
  }
}


/** The ledger export's columns, in order. */
export const LEDGER_CSV_COLUMNS = ["booked_at", "occurred_at", "order_id", "kind", "currency", "amount", "business_key", "payment_id", "provider", "account", "livemode", "event_id"] as const;

/**
 * Every ledger entry matching `filter` as CSV, in entry-id order (booking order for the ULIDs Acredita
 * writes): signed amounts in major units (credits positive, refunds and dispute withdrawals negative).
 */
export async function* ledgerCsv(db: Db, filter: LedgerFilter, named: readonly string[]): AsyncGenerator<string> {
  yield csvRecord([...LEDGER_CSV_COLUMNS]);
  let afterId: string | undefined;
  for (;;) {
    const rows = await ledgerRowsAfter(db, filter, named, afterId, EXPORT_BATCH_ROWS);
    if (rows.length === 0) return;
    let chunk = "";
    for (const row of rows) {
      chunk += csvRecord([
        iso(row.createdAt),
        iso(row.occurredAt),
        csvText(row.orderId),
        csvText(row.kind),
        csvText(row.currency),
        csvNumber(majorUnits(row.amount, row.currency)),
        csvText(row.businessKey),
        csvText(row.paymentKey),
        csvText(row.provider),
        csvText(row.account),
        row.livemode ? "true" : "false",
        csvText(row.eventId),
      ]);
    }
    yield chunk;
    if (rows.length < EXPORT_BATCH_ROWS) return;
    afterId = rows[rows.length - 1].id;
  }
}
