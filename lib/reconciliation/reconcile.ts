import type { Db } from "@/lib/db/client";
import { compareOrder, type FoundOrder, type Mismatch } from "@/lib/reconciliation/compare";
import type { SettlementRow } from "@/lib/reconciliation/settlement-csv";

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
/**
 * Ids per `IN (...)` list. Prisma caps SQLite statements at 999 bound values and splits findMany lists
 * itself, but not groupBy's: 1,000 ids there failed ("query parameter limit ... exceeded").
 */
const IDS_PER_QUERY = 900;

async function foundOrders(db: Db, ids: string[]): Promise<Map<string, FoundOrder>> {
  const found = new Map<string, FoundOrder>();
  for (let start = 0; start < ids.length; start += IDS_PER_QUERY) {
    const chunk = ids.slice(start, start + IDS_PER_QUERY);
    const [orders, sums] = await Promise.all([
      db.order.findMany({ where: { id: { in: chunk } }, select: { id: true, status: true, currency: true } }),
      db.ledgerEntry.groupBy({ by: ["orderId"], where: { orderId: { in: chunk } }, _sum: { amount: true } }),
    ]);
    const credited = new Map(sums.map((sum) => [sum.orderId, sum._sum.amount ?? 0]));
    for (const order of orders) found.set(order.id, { status: order.status, currency: order.currency, credited: credited.get(order.id) ?? 0 });
  }
  return found;
}

/**
 * Compares every order with the provider's settlement, streaming the rows in batches of 1,000 (indexed
 * look-ups, no full-table load), then checks the orders the settlement does not list (expected: created,
 * credited 0). Stores the run and its mismatches and returns the report. Rows come from
 * `readSettlementCsv`, which throws `SettlementCsvError` on bad input before anything is stored.
 */
export async function reconcile(db: Db, rows: AsyncIterable<SettlementRow>, source: string): Promise<ReconciliationReport> {
  const mismatches: Mismatch[] = [];
  const overcredited: Record<string, number> = {};
  const listed = new Set<string>();
  let rowCount = 0;
  let batch: SettlementRow[] = [];

  const flush = async () => {
    if (batch.length === 0) return;
    const found = await foundOrders(db, batch.map((row) => row.orderId));
    for (const row of batch) {
      overcredited[row.currency] ??= 0;
      const mismatch = compareOrder(row.orderId, row, found.get(row.orderId) ?? null);
      if (mismatch) mismatches.push(mismatch);
    }
    batch = [];
  };

  for await (const row of rows) {
    rowCount++;
    listed.add(row.orderId);
    batch.push(row);
    if (batch.length >= BATCH_SIZE) await flush();
  }
  await flush();

  let orderCount = 0;
  let cursor: string | undefined;
  for (;;) {
    const page = await db.order.findMany({
      select: { id: true },
      orderBy: { id: "asc" },
      take: 5_000,
      ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
    });
    if (page.length === 0) break;
    cursor = page[page.length - 1].id;
    orderCount += page.length;
    const unlisted = page.map((order) => order.id).filter((id) => !listed.has(id));
    if (unlisted.length === 0) continue;
    const found = await foundOrders(db, unlisted);
    for (const id of unlisted) {
      const mismatch = compareOrder(id, null, found.get(id) ?? null);
      if (mismatch) mismatches.push(mismatch);
    }
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
