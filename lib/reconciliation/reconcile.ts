import type { Db } from "@/lib/db/client";
import { compareOrder, type FoundOrder, type Mismatch } from "@/lib/reconciliation/compare";
import type { ProviderStatus, SettlementRow } from "@/lib/reconciliation/settlement-csv";

/** The result of one reconciliation run (also stored as ReconciliationRun + ReconciliationMismatch rows). */
export interface ReconciliationReport {
  runId: string;
  source: string;
  rowCount: number;
  orderCount: number;
  mismatches: Mismatch[];
  /** Over-credited minor units per currency, every currency seen included (0 when clean). */
  overcredited: Record<string, number>;
}

const BATCH_SIZE = 1_000;
/** Orders read per query in the pass over the books. */
const ORDERS_PER_PAGE = 5_000;

const PROVIDER_STATUSES: ProviderStatus[] = ["approved", "refunded", "none"];
const AMOUNT_RANGE = 2 ** 31;

/**
 * The settlement, held as one number per order so that 1,000,000 rows fit in ~60 MB: the amount
 * (< 2^31 minor units, the ledger's limit) plus the status and the currency's index above it
 * (exact below 2^53). An object per row cost twice that.
 */
class CompactSettlement {
  private readonly rows = new Map<string, number>();
  private readonly currencies: string[] = [];
  private readonly currencyIndex = new Map<string, number>();

  add(row: SettlementRow): void {
    let currency = this.currencyIndex.get(row.currency);
    if (currency === undefined) {
      currency = this.currencies.length;
      this.currencies.push(row.currency);
      this.currencyIndex.set(row.currency, currency);
    }
    this.rows.set(row.orderId, (currency * 4 + PROVIDER_STATUSES.indexOf(row.providerStatus)) * AMOUNT_RANGE + row.amount);
  }

  /** Removes and returns the settlement of `orderId`, or undefined when the provider does not list it. */
  take(orderId: string): { providerStatus: ProviderStatus; amount: number; currency: string } | undefined {
    const packed = this.rows.get(orderId);
    if (packed === undefined) return undefined;
    this.rows.delete(orderId);
    return this.unpack(packed);
  }

  /** The rows never taken (orders Acredita does not have), in file order. */
  *remaining(): Generator<[string, { providerStatus: ProviderStatus; amount: number; currency: string }]> {
    for (const [orderId, packed] of this.rows) yield [orderId, this.unpack(packed)];
  }

  private unpack(packed: number) {
    const high = Math.floor(packed / AMOUNT_RANGE);
    return { amount: packed % AMOUNT_RANGE, providerStatus: PROVIDER_STATUSES[high % 4], currency: this.currencies[Math.floor(high / 4)] };
  }
}

/** A page of orders in id order after `cursor`, each with the sum of its ledger entries (minor units). */
async function ordersPage(db: Db, cursor: string, take: number): Promise<(FoundOrder & { id: string })[]> {
  // One portable statement per page (SQLite and PostgreSQL): the correlated sum uses LedgerEntry(orderId).
  const rows = await db.$queryRaw<{ id: string; status: string; currency: string; credited: bigint | number | null }[]>`
    SELECT o."id" AS "id", o."status" AS "status", o."currency" AS "currency",
           (SELECT SUM(l."amount") FROM "LedgerEntry" l WHERE l."orderId" = o."id") AS "credited"
    FROM "Order" o
    WHERE o."id" > ${cursor}
    ORDER BY o."id"
    LIMIT ${take}`;
  return rows.map((row) => ({ id: row.id, status: row.status, currency: row.currency, credited: Number(row.credited ?? 0) }));
}

/**
 * Compares every order with the provider's settlement (seed article's reconciliation). Reads the whole
 * settlement first (streamed by `readSettlementCsv`, which throws `SettlementCsvError` on bad input
 * before anything is queried or stored), keeping one number per row; then walks every order once in id
 * order, 5,000 per query with its ledger sum, comparing each with its settlement row (or with "not
 * listed": expected created, credited 0); settlement rows left over are orders Acredita does not have.
 * Stores the run and its mismatches and returns the report. Mismatches come in order-id order, then
 * the unknown orders in file order. 1,000,000 rows against 1,000,000 orders: see docs/benchmarks.md.
 */
export async function reconcile(db: Db, rows: AsyncIterable<SettlementRow>, source: string): Promise<ReconciliationReport> {
  const settlement = new CompactSettlement();
  const overcredited: Record<string, number> = {};
  let rowCount = 0;
  for await (const row of rows) {
    rowCount++;
    overcredited[row.currency] ??= 0;
    settlement.add(row);
  }

  const mismatches: Mismatch[] = [];
  let orderCount = 0;
  for (let cursor = ""; ; ) {
    const page = await ordersPage(db, cursor, ORDERS_PER_PAGE);
    for (const order of page) {
      const mismatch = compareOrder(order.id, settlement.take(order.id) ?? null, order);
      if (mismatch) mismatches.push(mismatch);
    }
    orderCount += page.length;
    if (page.length < ORDERS_PER_PAGE) break;
    cursor = page[page.length - 1].id;
  }
  for (const [orderId, row] of settlement.remaining()) {
    const mismatch = compareOrder(orderId, row, null);
    if (mismatch) mismatches.push(mismatch);
  }

  for (const mismatch of mismatches) overcredited[mismatch.currency] = (overcredited[mismatch.currency] ?? 0) + mismatch.overcredited;
  const run = await db.reconciliationRun.create({
    data: { source: source.slice(0, 255), rowCount, orderCount, mismatchCount: mismatches.length, overcredited: JSON.stringify(overcredited), finishedAt: new Date() },
    select: { id: true },
  });
  for (let start = 0; start < mismatches.length; start += BATCH_SIZE) {
    await db.reconciliationMismatch.createMany({ data: mismatches.slice(start, start + BATCH_SIZE).map((mismatch) => ({ ...mismatch, runId: run.id })) });
  }
  return { runId: run.id, source, rowCount, orderCount, mismatches, overcredited };
}

/** Formats an amount in minor units for a report line, e.g. 1850000 ARS -> "1850000 ARS". */
function money(amount: number, currency: string): string {
  return `${amount} ${currency}`;
}

/**
 * Renders the report as text: one line per mismatch, then a summary with the total over-credited per
 * currency (the seed article's report).
 */
export function formatReport(report: ReconciliationReport): string {
  const lines = report.mismatches.map(
    (m) =>
      `MISMATCH ${m.orderId}: provider ${m.providerStatus}; expected ${m.expectedStatus} credited ${money(m.expectedCredited, m.currency)}; found ${m.foundStatus} credited ${money(m.foundCredited, m.currency)}; over-credited ${money(m.overcredited, m.currency)} (${m.reason})`,
  );
  const totals = Object.entries(report.overcredited);
  const over = totals.length === 0 ? "0" : totals.map(([currency, amount]) => money(amount, currency)).join(", ");
  lines.push(`${report.mismatches.length} mismatch${report.mismatches.length === 1 ? "" : "es"} in ${report.rowCount} settlement rows and ${report.orderCount} orders; over-credited: ${over}`);
  return lines.join("\n");
}

/** The `--json` shape: `{"mismatches":[...],"overcredited":{"ARS":...}}` plus the run id and counts. */
export function reportJson(report: ReconciliationReport): { runId: string; rowCount: number; orderCount: number; mismatches: Mismatch[]; overcredited: Record<string, number> } {
  return { runId: report.runId, rowCount: report.rowCount, orderCount: report.orderCount, mismatches: report.mismatches, overcredited: report.overcredited };
}
