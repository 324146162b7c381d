import { ENGLISH_CLI, type CliReasons } from "@/lib/reasons/cli-reasons";
import { readStoredReason, reasonColumns } from "@/lib/reasons/reason-codes";
import type { Db } from "@/lib/db/client";
import { compareOrder, type Mismatch } from "@/lib/reconciliation/compare";
import { NEXT_ACTION, type MismatchCode } from "@/lib/reconciliation/match-payments";
import { scopeKey, type RunScope } from "@/lib/reconciliation/run-scope";
import type { ProviderStatus, SettlementRow } from "@/lib/reconciliation/settlement-csv";
import { badLine } from "@/lib/reconciliation/report-fields";

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

  /** Holds `row`; refuses an order id already held (SettlementCsvError at the row's line). */
  add(row: SettlementRow): void {
    if (this.rows.has(row.orderId)) badLine(row.line, "report_order_twice", { orderId: row.orderId });
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

/** Orders (and their sums) compared per query: under SQLite's 999 bound values per statement. */
const PAGE = 500;

/** The lab's scope: the lab endpoint's provider, account and live mode (lib/endpoints/endpoints.ts). */
export const LAB_SCOPE: RunScope = { provider: "lab", account: "lab", livemode: true };

/** What a finished order-level (lab) run found (also stored on its ReconciliationRun row). */
export interface LabRunSummary {
  rowCount: number;
  orderCount: number;
  mismatchCount: number;
  overcredited: Record<string, number>;
}

/**
 * The fixed code of an order-level difference: an approved order Acredita lacks or never credited is
 * a missing credit, a credit the provider did not approve an unsettled one; a currency difference, a
 * refund on either side (its status differs) or another amount difference has its own code.
 */
export function labMismatchCode(mismatch: Mismatch): MismatchCode {
  if (mismatch.foundStatus === "missing") return "missing_credit";
  if (mismatch.reasonRef ? [mismatch.reasonRef, ...(mismatch.reasonRef.then ?? [])].some((ref) => ref.code === "recon_currency") : mismatch.reason.includes("currency ")) return "currency_mismatch";
  // A refund on either side (the provider's, or one Acredita booked that the file does not show) is a refund difference,
  // even when the credited sums agree (both 0).
  if (mismatch.providerStatus === "refunded" || mismatch.foundStatus === "refunded") return "refund_mismatch";
  if (mismatch.expectedCredited > 0 && mismatch.foundCredited === 0) return "missing_credit";
  if (mismatch.expectedCredited === 0 && mismatch.foundCredited > 0) return "unsettled_credit";
  return "amount_mismatch";
}

function mismatchRow(runId: string, { reasonRef: ref, ...mismatch }: Mismatch) {
  const code = labMismatchCode({ ...mismatch, reasonRef: ref });
  return { ...mismatch, ...reasonColumns(ref), runId, code, settled: mismatch.expectedCredited, booked: mismatch.foundCredited, nextAction: NEXT_ACTION[code] };
}

/**
 * Compares the lab's order-level settlement with the orders of `scope` (default the lab's): every
 * order the file lists, and every order with a ledger entry of that scope (in the period, when one is
 * given), nothing else: an order paid through Stripe or Yolfi is never flagged by the lab's file.
 * Reads the whole settlement first (one number per row; a bad row, an order listed twice included,
 * throws SettlementCsvError before anything is compared); walks the scope's ledger per order in order-id pages,
 * comparing each order (its scoped ledger sum) with its row or with "not listed" (expected created,
 * credited 0); then looks up the rows left over (orders without scoped entries, or unknown to
 * Acredita). Mismatches are written to run `runId` in batches. Returns the counts and over-credited
 * sums per currency.
 */
export async function processLabRun(db: Db, runId: string, rows: AsyncIterable<SettlementRow>, scope: RunScope = LAB_SCOPE): Promise<LabRunSummary> {
  await db.reconciliationMismatch.deleteMany({ where: { runId } });
  const settlement = new CompactSettlement();
  const overcredited: Record<string, number> = {};
  let rowCount = 0;
  for await (const row of rows) {
    rowCount++;
    overcredited[row.currency] ??= 0;
    settlement.add(row);
  }
  let buffer: Mismatch[] = [];
  let mismatchCount = 0;
  const add = async (mismatch: Mismatch | null, flush = false) => {
    if (mismatch) {
      buffer.push(mismatch);
      mismatchCount++;
      overcredited[mismatch.currency] = (overcredited[mismatch.currency] ?? 0) + mismatch.overcredited;
    }
    if (buffer.length >= BATCH_SIZE || (flush && buffer.length > 0)) {
      await db.reconciliationMismatch.createMany({ data: buffer.map((found) => mismatchRow(runId, found)) });
      buffer = [];
    }
  };

  let orderCount = 0;
  const createdAt = scope.from || scope.to ? { ...(scope.from ? { gte: scope.from } : {}), ...(scope.to ? { lt: scope.to } : {}) } : undefined;
  for (let cursor = ""; ; ) {
    const sums = await db.ledgerEntry.groupBy({
      by: ["orderId"],
      where: { provider: scope.provider, account: scope.account, livemode: scope.livemode, orderId: { gt: cursor }, ...(createdAt ? { createdAt } : {}) },
      orderBy: { orderId: "asc" },
      take: PAGE,
      _sum: { amount: true },
    });
    if (sums.length === 0) break;
    const orders = new Map((await db.order.findMany({ where: { id: { in: sums.map((sum) => sum.orderId) } }, select: { id: true, status: true, currency: true } })).map((order) => [order.id, order]));
    for (const sum of sums) {
      const order = orders.get(sum.orderId)!;
      orderCount++;
      await add(compareOrder(order.id, settlement.take(order.id) ?? null, { status: order.status, currency: order.currency, credited: Number(sum._sum.amount ?? 0) }));
    }
    cursor = sums[sums.length - 1].orderId;
  }
  let chunk: [string, { providerStatus: ProviderStatus; amount: number; currency: string }][] = [];
  const compareChunk = async () => {
    const orders = new Map((await db.order.findMany({ where: { id: { in: chunk.map(([orderId]) => orderId) } }, select: { id: true, status: true, currency: true } })).map((order) => [order.id, order]));
    for (const [orderId, row] of chunk) {
      const order = orders.get(orderId);
      if (order) orderCount++;
      await add(compareOrder(orderId, row, order ? { status: order.status, currency: order.currency, credited: 0 } : null));
    }
    chunk = [];
  };
  for (const entry of settlement.remaining()) {
    chunk.push(entry);
    if (chunk.length >= PAGE) await compareChunk();
  }
  if (chunk.length > 0) await compareChunk();
  await add(null, true);
  return { rowCount, orderCount, mismatchCount, overcredited };
}

/** The stored mismatches of an order-level run in order-id order, in the shape `reconcile` returns. */
export async function labMismatches(db: Db, runId: string, page?: { skip: number; take: number }): Promise<Mismatch[]> {
  const rows = await db.reconciliationMismatch.findMany({ where: { runId }, orderBy: [{ orderId: "asc" }, { id: "asc" }], ...(page ?? {}) });
  return rows.map((row) => ({
    orderId: row.orderId,
    providerStatus: row.providerStatus as Mismatch["providerStatus"],
    currency: row.currency,
    expectedStatus: row.expectedStatus,
    foundStatus: row.foundStatus,
    expectedCredited: row.expectedCredited,
    foundCredited: row.foundCredited,
    overcredited: row.overcredited,
    reason: row.reason,
    ...(readStoredReason(row.reasonCode, row.reasonParams) ? { reasonRef: readStoredReason(row.reasonCode, row.reasonParams) } : {}),
  }));
}

/**
 * Runs the lab's order-level reconciliation at once (tests and tools; uploads go through the queue of
 * lib/reconciliation/runs.ts): stores the run (scope lab, status done) and its mismatches and returns
 * the report, mismatches in order-id order.
 */
export async function reconcile(db: Db, rows: AsyncIterable<SettlementRow>, source: string, scope: RunScope = LAB_SCOPE): Promise<ReconciliationReport> {
  const run = await db.reconciliationRun.create({ data: { source: source.slice(0, 255), format: "lab", provider: scope.provider, account: scope.account, livemode: scope.livemode, scopeKey: scopeKey(scope), status: "running" }, select: { id: true } });
  const summary = await processLabRun(db, run.id, rows, scope);
  await db.reconciliationRun.update({ where: { id: run.id }, data: { status: "done", rowCount: summary.rowCount, orderCount: summary.orderCount, mismatchCount: summary.mismatchCount, overcredited: JSON.stringify(summary.overcredited), finishedAt: new Date() } });
  return { runId: run.id, source, rowCount: summary.rowCount, orderCount: summary.orderCount, mismatches: await labMismatches(db, run.id), overcredited: summary.overcredited };
}

/**
 * Renders the report as text in `view`'s locale (English by default): one line per mismatch, then a
 * summary with the total over-credited per currency (the seed article's report), money formatted by
 * currency ("ARS 18,500.00"), never bare minor units.
 */
export function formatReport(report: ReconciliationReport, view: CliReasons = ENGLISH_CLI): string {
  return [...report.mismatches.map((mismatch) => formatLabMismatch(mismatch, view)), formatLabSummary({ ...report, mismatchCount: report.mismatches.length }, view)].join("\n");
}

/** One order-level mismatch as a report line (`MISMATCH ord_1: provider none; expected created credited ARS 0.00; ...`), in `view`'s locale. */
export function formatLabMismatch(m: Mismatch, view: CliReasons = ENGLISH_CLI): string {
  // English keeps the words the report always printed; another locale translates them.
  const status = (word: string) => (view.locale === "en" ? word : word === "missing" ? view.word("providerStatus", word) : view.status(word));
  return view.t("reasons.cli.labMismatch", {
    orderId: m.orderId,
    providerStatus: view.locale === "en" ? m.providerStatus : view.word("providerStatus", m.providerStatus),
    expectedStatus: status(m.expectedStatus),
    expected: view.money(m.expectedCredited, m.currency),
    foundStatus: status(m.foundStatus),
    found: view.money(m.foundCredited, m.currency),
    over: view.money(m.overcredited, m.currency),
    reason: view.render(m.reasonRef, m.reason),
  });
}

/** The order-level report's last line in `view`'s locale: counts and the over-credited total per currency. */
export function formatLabSummary(report: { mismatchCount: number; rowCount: number; orderCount: number; overcredited: Record<string, number> }, view: CliReasons = ENGLISH_CLI): string {
  const totals = Object.entries(report.overcredited);
  const over = totals.length === 0 ? "0" : totals.map(([currency, amount]) => view.money(amount, currency)).join(", ");
  return view.t("reasons.cli.labSummary", { count: report.mismatchCount, n: view.count(report.mismatchCount), rowCount: report.rowCount, rows: view.count(report.rowCount), orderCount: report.orderCount, orders: view.count(report.orderCount), over });
}

/** The `--json` shape: `{"mismatches":[...],"overcredited":{"ARS":...}}` plus the run id and counts. */
export function reportJson(report: ReconciliationReport): { runId: string; rowCount: number; orderCount: number; mismatches: Mismatch[]; overcredited: Record<string, number> } {
  // The JSON keeps its documented shape: the reason's code stays in the database and the pages.
  const mismatches = report.mismatches.map(({ reasonRef: _code, ...mismatch }) => mismatch);
  return { runId: report.runId, rowCount: report.rowCount, orderCount: report.orderCount, mismatches, overcredited: report.overcredited };
}
