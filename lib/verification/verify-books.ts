import type { Db } from "@/lib/db/client";
import { latestBooksCheckReport, type BooksCheckView } from "@/lib/monitoring/books-checks";
import { checkOrders, type CheckedEvent, type OrderCheck } from "@/lib/verification/rebuild-orders";

/** Orders rebuilt per rolled-back transaction (SQLite's one connection is held for each batch, so it stays short). */
export const ORDERS_PER_BATCH = 25;
/** Orders kept in a report's lists (differences, unverifiable, waiting) at most; the counts are always whole. */
export const MAX_REPORTED_ORDERS = 200;

/** A check of the books: counts over every order checked, and the first orders of each list (each with its events). */
export interface BooksReport {
  /** Orders checked; each agrees, differs or could not be rebuilt. */
  orders: number;
  agreeing: number;
  differing: number;
  unverifiable: number;
  /** Orders with events still pending or dead-lettered (any verdict). */
  waiting: number;
  /** The orders whose books differ (the first {@link MAX_REPORTED_ORDERS}). */
  differences: OrderCheck[];
  /** The orders that could not be rebuilt (the first {@link MAX_REPORTED_ORDERS}). */
  unverifiableOrders: OrderCheck[];
  /** Orders with events still pending or dead-lettered, with those events (the first {@link MAX_REPORTED_ORDERS}). */
  waitingOrders: { orderId: string; events: CheckedEvent[] }[];
}

/** An empty report, to which {@link addChecks} adds. */
export function emptyReport(): BooksReport {
  return { orders: 0, agreeing: 0, differing: 0, unverifiable: 0, waiting: 0, differences: [], unverifiableOrders: [], waitingOrders: [] };
}

/** Adds another report's counts and lists to `report` (lists bounded): one figure over several organizations. */
export function addReport(report: BooksReport, other: BooksReport): void {
  report.orders += other.orders;
  report.agreeing += other.agreeing;
  report.differing += other.differing;
  report.unverifiable += other.unverifiable;
  report.waiting += other.waiting;
  report.differences.push(...other.differences.slice(0, MAX_REPORTED_ORDERS - report.differences.length));
  report.unverifiableOrders.push(...other.unverifiableOrders.slice(0, MAX_REPORTED_ORDERS - report.unverifiableOrders.length));
  report.waitingOrders.push(...other.waitingOrders.slice(0, MAX_REPORTED_ORDERS - report.waitingOrders.length));
}

/** Adds a batch's checks to `report` (counts whole, lists bounded). */
export function addChecks(report: BooksReport, checks: readonly OrderCheck[]): void {
  for (const check of checks) {
    report.orders++;
    if (check.verdict === "agree") report.agreeing++;
    if (check.verdict === "differ") {
      report.differing++;
      if (report.differences.length < MAX_REPORTED_ORDERS) report.differences.push(check);
    }
    if (check.verdict === "unverifiable") {
      report.unverifiable++;
      if (report.unverifiableOrders.length < MAX_REPORTED_ORDERS) report.unverifiableOrders.push(check);
    }
    if (check.waiting.length > 0) {
      report.waiting++;
      if (report.waitingOrders.length < MAX_REPORTED_ORDERS) report.waitingOrders.push({ orderId: check.orderId, events: check.waiting });
    }
  }
}

/**
 * Rebuilds and compares the books ({@link checkOrders}) of the organization's `orderIds`, or of all its orders when none are
 * given, read in id order in pages of `batchSize` (default {@link ORDERS_PER_BATCH}) and checked one
 * rolled-back transaction per page, so memory and lock time stay bounded whatever the number of orders.
 * `onBatch` hears the running counts after each page. An id that names no order is left out.
 * Returns the report. Nothing is corrected. Throws the database's errors.
 */
export async function verifyBooks(
  db: Db,
  organizationId: string,
  options: { orderIds?: readonly string[]; batchSize?: number; now?: () => Date; onBatch?: (report: BooksReport) => void } = {},
): Promise<BooksReport> {
  const batchSize = Math.max(1, options.batchSize ?? ORDERS_PER_BATCH);
  const now = options.now ?? (() => new Date());
  const report = emptyReport();
  if (options.orderIds) {
    const ids = [...new Set(options.orderIds)];
    for (let start = 0; start < ids.length; start += batchSize) {
      addChecks(report, await checkOrders(db, organizationId, ids.slice(start, start + batchSize), now()));
      options.onBatch?.(report);
    }
    return report;
  }
  let after: string | undefined;
  for (;;) {
    const page = await db.order.findMany({ where: after === undefined ? { organizationId } : { organizationId, id: { gt: after } }, orderBy: { id: "asc" }, take: batchSize, select: { id: true } });
    if (page.length === 0) break;
    addChecks(report, await checkOrders(db, organizationId, page.map((order) => order.id), now()));
    options.onBatch?.(report);
    after = page[page.length - 1].id;
    // Between batches, let the requests waiting for the database (SQLite's one connection) go first.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return report;
}

/** The report's one-line summary in English: "books agree for N of N orders", then what differs, could not be rebuilt or waits. */
export function reportSummary(report: BooksReport): string {
  const parts = [`books agree for ${report.agreeing} of ${report.orders} order${report.orders === 1 ? "" : "s"}`];
  if (report.differing > 0) parts.push(`${report.differing} differ`);
  if (report.unverifiable > 0) parts.push(`${report.unverifiable} could not be rebuilt`);
  if (report.waiting > 0) parts.push(`${report.waiting} with events still pending or dead-lettered (listed apart)`);
  return parts.join("; ");
}

/** The latest finished check over every order, with its report, or null when none has finished. */
export async function latestBooksReport(db: Db, organizationId: string): Promise<{ check: BooksCheckView; report: BooksReport } | null> {
  const latest = await latestBooksCheckReport(db, organizationId);
  return latest ? { check: latest.check, report: JSON.parse(latest.report) as BooksReport } : null;
}
