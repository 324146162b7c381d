import { Readable } from "node:stream";
import { parse } from "csv-parse";
import { MAX_AMOUNT_MINOR } from "@/lib/money/amount-schemas";
import { badLine, csvParseFailure, isoCurrency, minorInteger, oneOf, reportParseOptions, requiredId, SettlementCsvError } from "@/lib/reconciliation/report-fields";

/** What the provider says happened to an order: `approved` (paid), `refunded`, or `none` (no payment). */
export type ProviderStatus = "approved" | "refunded" | "none";

/** One settlement row: `order_id,provider_status,amount,currency`, amount in minor units. */
export interface SettlementRow {
  line: number;
  orderId: string;
  providerStatus: ProviderStatus;
  amount: number;
  currency: string;
}

export const SETTLEMENT_COLUMNS = ["order_id", "provider_status", "amount", "currency"] as const;

const PROVIDER_STATUSES: readonly ProviderStatus[] = ["approved", "refunded", "none"];

function checkHeader(names: string[]): void {
  const missing = SETTLEMENT_COLUMNS.filter((column) => !names.includes(column));
  if (missing.length > 0) badLine(1, "report_missing_columns", { columns: missing.join(", ") });
}

/** One line of the lab's file: an order id, a status of {@link PROVIDER_STATUSES}, a non-negative whole amount that fits the ledger, an ISO 4217 currency. */
function labRow(record: Record<string, string>, line: number): SettlementRow {
  const orderId = requiredId(record, "order_id", line);
  const providerStatus = oneOf(record.provider_status ?? "", PROVIDER_STATUSES, "provider_status", line);
  const amount = minorInteger(record.amount, "amount", line);
  if (amount < 0 || amount > MAX_AMOUNT_MINOR) badLine(line, "report_not_minor_units", { column: "amount", value: (record.amount ?? "").slice(0, 40) });
  return { line, orderId, providerStatus, amount, currency: isoCurrency(record.currency, line) };
}

/**
 * Rows of the lab's order-level file a worker takes from an upload: its orders are held in memory (~100 B
 * each, twice), so six million four-character ids took the worker past its heap, again at each of its
 * three attempts and with the other runs it held. The lab's own file has five; a merchant's order-level
 * export of half a million orders still fits. The command (`npm run reconcile`, run by an operator) has no cap.
 */
export const MAX_UPLOADED_LAB_ROWS = 500_000;

/**
 * What holding one row of the lab's file costs a run, in bytes, as counted against a held-bytes bound:
 * its order id at two bytes a character (V8 stores a string with any character past U+00FF that way)
 * plus {@link HELD_ROW_OVERHEAD_BYTES} for the map entry, its packed number and the string's header.
 * Measured on Node 20: 90 B per entry of 20-character ids in a Map, 117 B with the duplicate check's
 * Set beside it, 349 B for 255-character ids; the estimate is above each.
 */
export function heldBytesOf(orderId: string): number {
  return HELD_ROW_OVERHEAD_BYTES + 2 * orderId.length;
}

/** The fixed part of {@link heldBytesOf}. */
export const HELD_ROW_OVERHEAD_BYTES = 128;

/**
 * Streams a settlement CSV (header `order_id,provider_status,amount,currency`, any column order) with
 * csv-parse and yields validated rows. Throws {@link SettlementCsvError} with the line number on the
 * first bad row, an empty file, a missing column, a repeated order id (kept in memory as a Set, ~100 B
 * per order, unless `checkDuplicates` is false: the caller then checks them in what it holds), a row
 * past `maxRows`, or a row whose order id takes the rows read past `maxHeldBytes` ({@link heldBytesOf}
 * summed; a run holds every order id of this file until it ends, so the bound is what protects the
 * worker's heap, whatever the rows' count). No bound by default.
 */
export async function* readSettlementCsv(input: Readable | string | Buffer, { maxRows = Infinity, maxHeldBytes = Infinity, checkDuplicates = true }: { maxRows?: number; maxHeldBytes?: number; checkDuplicates?: boolean } = {}): AsyncGenerator<SettlementRow> {
  const source = typeof input === "string" || Buffer.isBuffer(input) ? Readable.from([input]) : input;
  let header: string[] | undefined;
  const columns = (names: string[]) => (header = names.map((name) => name.trim().toLowerCase()));
  const parser = source.pipe(parse(reportParseOptions(columns)));
  const seen = new Set<string>();
  let rows = 0;
  let held = 0;
  let headerChecked = false;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
      if (!headerChecked) {
        checkHeader(header ?? Object.keys(record));
        headerChecked = true;
      }
      if (rows >= maxRows) badLine(info.lines, "report_too_many_rows", { max: maxRows });
      const row = labRow(record, info.lines);
      held += heldBytesOf(row.orderId);
      if (held > maxHeldBytes) badLine(info.lines, "report_too_much_to_hold", { max: Math.round(maxHeldBytes / 1_048_576) });
      if (checkDuplicates) {
        if (seen.has(row.orderId)) badLine(info.lines, "report_order_twice", { orderId: row.orderId });
        seen.add(row.orderId);
      }
      rows += 1;
      yield row;
    }
    // A header-only file is a settlement with no payments; a file without even a header is not one.
    if (!headerChecked) {
      if (!header) badLine(1, "report_empty_expected", { header: SETTLEMENT_COLUMNS.join(",") });
      checkHeader(header);
    }
  } catch (error) {
    if (error instanceof SettlementCsvError) throw error;
    throw csvParseFailure(error, header?.length);
  }
}

/** Writes settlement rows as CSV text with the standard header (used by the lab and tests). */
export function formatSettlementCsv(rows: Omit<SettlementRow, "line">[]): string {
  return [SETTLEMENT_COLUMNS.join(","), ...rows.map((row) => `${row.orderId},${row.providerStatus},${row.amount},${row.currency}`)].join("\n") + "\n";
}
