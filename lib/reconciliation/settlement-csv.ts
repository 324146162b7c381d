import { Readable } from "node:stream";
import { parse } from "csv-parse";
import { z } from "zod";
import { currencySchema, idSchema, minorAmountSchema } from "@/lib/money/amount-schemas";

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

const rowSchema = z.object({
  order_id: idSchema,
  provider_status: z.enum(["approved", "refunded", "none"]),
  amount: z.string().regex(/^\d+$/, "must be a whole number of minor units").transform(Number).pipe(minorAmountSchema),
  currency: currencySchema,
});

/** A bad settlement file: the 1-based line number and what is wrong with it (exit code 2 in the CLI). */
export class SettlementCsvError extends Error {
  constructor(
    readonly line: number,
    readonly problem: string,
  ) {
    super(`line ${line}: ${problem}`);
    this.name = "SettlementCsvError";
  }
}

function checkHeader(names: string[]): void {
  const missing = SETTLEMENT_COLUMNS.filter((column) => !names.includes(column));
  if (missing.length > 0) throw new SettlementCsvError(1, `missing column(s): ${missing.join(", ")}`);
}

/**
 * Streams a settlement CSV (header `order_id,provider_status,amount,currency`, any column order) with
 * csv-parse and yields validated rows. Throws {@link SettlementCsvError} with the line number on the
 * first bad row, an empty file, a missing column, or a repeated order id (kept in memory as a Set, ~100 B per order).
 */
export async function* readSettlementCsv(input: Readable | string | Buffer): AsyncGenerator<SettlementRow> {
  const source = typeof input === "string" || Buffer.isBuffer(input) ? Readable.from([input]) : input;
  let header: string[] | undefined;
  const columns = (names: string[]) => (header = names.map((name) => name.trim().toLowerCase()));
  const parser = source.pipe(parse({ columns, skip_empty_lines: true, trim: true, info: true, bom: true }));
  const seen = new Set<string>();
  let headerChecked = false;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
      if (!headerChecked) {
        checkHeader(header ?? Object.keys(record));
        headerChecked = true;
      }
      const parsed = rowSchema.safeParse(record);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new SettlementCsvError(info.lines, `${issue.path.join(".")}: ${issue.message}`);
      }
      if (seen.has(parsed.data.order_id)) throw new SettlementCsvError(info.lines, `order ${parsed.data.order_id} appears twice`);
      seen.add(parsed.data.order_id);
      yield { line: info.lines, orderId: parsed.data.order_id, providerStatus: parsed.data.provider_status, amount: parsed.data.amount, currency: parsed.data.currency };
    }
    // A header-only file is a settlement with no payments; a file without even a header is not one.
    if (!headerChecked) {
      if (!header) throw new SettlementCsvError(1, `empty file: expected the header ${SETTLEMENT_COLUMNS.join(",")}`);
      checkHeader(header);
    }
  } catch (error) {
    if (error instanceof SettlementCsvError) throw error;
    const code = (error as { code?: string; lines?: number }).lines;
    throw new SettlementCsvError(code ?? 0, `not a valid CSV: ${(error as Error).message.split("\n")[0]}`);
  }
}

/** Writes settlement rows as CSV text with the standard header (used by the lab and tests). */
export function formatSettlementCsv(rows: Omit<SettlementRow, "line">[]): string {
  return [SETTLEMENT_COLUMNS.join(","), ...rows.map((row) => `${row.orderId},${row.providerStatus},${row.amount},${row.currency}`)].join("\n") + "\n";
}
