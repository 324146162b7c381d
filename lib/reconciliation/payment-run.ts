import { PassThrough, type Readable } from "node:stream";
import type { Db } from "@/lib/db/client";
import { compareSettled, compareUnsettled, NEXT_ACTION, totalsOf, type BookedPayment, type CurrencyTotals, type PaymentMismatch, type SettledPayment } from "@/lib/reconciliation/match-payments";
import { periodFromFile, type RunScope } from "@/lib/reconciliation/run-scope";
import { readSettlementEntries, type SettlementEntry, type SettlementFormat } from "@/lib/reconciliation/settlement-entries";

/**
 * Report lines read (and checked for duplicates) per batch: one SELECT and one INSERT each. The SELECT
 * binds one value per line plus the run id, and SQLite binds at most 999 per statement (Prisma does not
 * split this IN list: found by the 60,000-line concurrency test).
 */
export const ENTRY_BATCH = 500;
/**
 * Payments compared per page. Prisma splits findMany's IN lists but not groupBy's, and SQLite binds at
 * most 999 values per statement (e2e/api/reconcile-many-orders.test.ts): 500 keys leave room.
 */
const PAYMENT_PAGE = 500;
/** Mismatches written per INSERT. */
const MISMATCH_BATCH = 1_000;
/** At most this many report lines are kept per mismatch (the first ones). */
const MAX_LINES = 20;
/** How long a claimed run stays ours without a progress write (ms). */
export const RUN_LEASE_MS = 60_000;

const PAYMENT_KINDS = ["charge", "refund", "refund_failure", "dispute", "dispute_reversal"];

/** Where a run is: lines and bytes read so far (bytesTotal 0 when unknown), then the matching pass. */
export interface RunProgress {
  phase: "reading" | "matching" | "done";
  rows: number;
  bytes: number;
  bytesTotal: number;
  mismatches: number;
}

/** What a finished payment-level run found (also stored on its ReconciliationRun row). */
export interface PaymentRunSummary {
  rowCount: number;
  mismatchCount: number;
  period?: { from: Date; to: Date };
  totals: Record<string, CurrencyTotals>;
  payouts: Record<string, { currency: string; net: number }>;
}

/** Counts the bytes that pass through (the progress's "bytes done"). */
function byteCounter(): PassThrough & { bytes: number } {
  const counter = new PassThrough() as PassThrough & { bytes: number };
  counter.bytes = 0;
  counter.on("data", (chunk: Buffer) => {
    counter.bytes += chunk.length;
  });
  return counter;
}

/** Writes mismatches of a run in batches of {@link MISMATCH_BATCH}; holds at most one batch. */
class MismatchWriter {
  private buffer: PaymentMismatch[] = [];
  count = 0;
  constructor(
    private readonly db: Db,
    private readonly runId: string,
  ) {}

  async add(mismatches: PaymentMismatch[]): Promise<void> {
    this.buffer.push(...mismatches);
    this.count += mismatches.length;
    if (this.buffer.length >= MISMATCH_BATCH) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.buffer.length === 0) return;
    const batch = this.buffer;
    this.buffer = [];
    await this.db.reconciliationMismatch.createMany({
      data: batch.map((mismatch) => ({
        runId: this.runId,
        code: mismatch.code,
        paymentId: mismatch.paymentId.slice(0, 255),
        orderId: (mismatch.orderId ?? "").slice(0, 255),
        currency: mismatch.currency,
        settled: mismatch.settled,
        booked: mismatch.booked,
        nextAction: mismatch.nextAction,
        line: mismatch.lines[0] ?? null,
        lines: JSON.stringify(mismatch.lines.slice(0, MAX_LINES)),
      })),
    });
  }
}

/**
 * The ledger of `scope` booked in `period`, per payment, for the payment keys `keys` (lib/core/
 * decide-effect.ts books them, signed): credited is the sum of `credit` entries; refunded what `refund`
 * entries took net of `refund_failed` ones (a refund the bank returned); disputed what
 * `dispute_withdrawal` entries took net of `dispute_reinstatement` ones (a dispute won). The same
 * signs as a Stripe report's refund/refund_failure and dispute/dispute_reversal lines.
 */
async function bookedPayments(db: Db, scope: RunScope, period: { from: Date; to: Date }, keys: string[]): Promise<Map<string, BookedPayment>> {
  const books = new Map<string, BookedPayment>();
  if (keys.length === 0) return books;
  const groups = await db.ledgerEntry.groupBy({
    by: ["paymentKey", "kind", "currency", "orderId"],
    where: { provider: scope.provider, account: scope.account, livemode: scope.livemode, createdAt: { gte: period.from, lt: period.to }, paymentKey: { in: keys } },
    _sum: { amount: true },
  });
  for (const group of groups) {
    const book = books.get(group.paymentKey) ?? { paymentKey: group.paymentKey, orderId: group.orderId, currency: group.currency, credited: 0, refunded: 0, disputed: 0 };
    const amount = Number(group._sum.amount ?? 0);
    if (group.kind === "credit") {
      book.credited += amount;
      book.currency = group.currency;
      book.orderId = group.orderId;
    } else if (group.kind === "refund" || group.kind === "refund_failed") book.refunded -= amount;
    else if (group.kind === "dispute_withdrawal" || group.kind === "dispute_reinstatement") book.disputed -= amount;
    books.set(group.paymentKey, book);
  }
  return books;
}

function settledPayment(rows: { kind: string; currency: string; gross: number; line: number; orderId: string | null }[]): SettledPayment {
  const payment: SettledPayment = { currency: rows[0].currency, orderId: undefined, charged: 0, refunded: 0, disputed: 0, hasCharge: false, lines: [] };
  for (const row of rows) {
    payment.lines.push(row.line);
    payment.orderId ??= row.orderId ?? undefined;
    // Signs as Stripe writes them: charges and reinstatements positive, refunds and withdrawals negative.
    if (row.kind === "charge") {
      payment.charged += row.gross;
      payment.hasCharge = true;
    } else if (row.kind === "refund" || row.kind === "refund_failure") payment.refunded -= row.gross;
    else payment.disputed -= row.gross;
  }
  return payment;
}

/**
 * Runs one payment-level reconciliation (a Stripe itemized report or the neutral payments CSV) for
 * the run `runId` of `scope`, in bounded memory whatever the report's size:
 * 1. reads the report as a stream, {@link ENTRY_BATCH} lines at a time: each batch is checked for
 *    duplicate balance transactions (within the batch and against the lines kept so far, by the unique
 *    (runId, transactionId)), summed into the per-currency totals and payouts, and kept as
 *    ReconciliationEntry rows; progress is written after each batch (which also renews the lease);
 * 2. walks the report's payments in id order, {@link PAYMENT_PAGE} at a time, grouping their lines in
 *    the database and comparing each with the ledger of the scope and period (compareSettled);
 * 3. walks the ledger's payments of the scope and period the report does not list (compareUnsettled).
 * Mismatches are written in batches as found. Memory holds one batch, one page and the per-currency and
 * per-payout sums. The period is the given one, else the report's whole UTC days.
 * Throws SettlementCsvError (with the line) on the first bad line; the caller marks the run failed.
 * Returns the summary; the caller stores it (finishPaymentRun in lib/reconciliation/runs.ts).
 */
export async function processPaymentRun(
  db: Db,
  run: { id: string; format: Exclude<SettlementFormat, "lab">; scope: RunScope; bytesTotal?: number },
  input: Readable,
  onProgress: (progress: RunProgress) => Promise<void> | void = () => {},
): Promise<PaymentRunSummary> {
  const runId = run.id;
  // A run taken over after a crash starts again from the first line.
  await db.reconciliationEntry.deleteMany({ where: { runId } });
  await db.reconciliationMismatch.deleteMany({ where: { runId } });
  const totals: Record<string, CurrencyTotals> = {};
  const payouts: Record<string, { currency: string; net: number }> = {};
  const writer = new MismatchWriter(db, runId);
  const counter = byteCounter();
  const bytesTotal = run.bytesTotal ?? 0;
  let rows = 0;
  let earliest: Date | undefined;
  let latest: Date | undefined;

  const readBatch = async (batch: SettlementEntry[]) => {
    const known = await db.reconciliationEntry.findMany({ where: { runId, transactionId: { in: batch.map((entry) => entry.transactionId) } }, select: { transactionId: true, line: true } });
    const firstLine = new Map(known.map((row) => [row.transactionId, row.line]));
    const keep: SettlementEntry[] = [];
    const duplicates: PaymentMismatch[] = [];
    for (const entry of batch) {
      const first = firstLine.get(entry.transactionId);
      if (first !== undefined) {
        duplicates.push({ code: "duplicate_row", paymentId: entry.paymentId ?? entry.transactionId, orderId: entry.orderId, currency: entry.currency, settled: Math.abs(entry.gross), booked: 0, lines: [first, entry.line], nextAction: NEXT_ACTION.duplicate_row });
        continue;
      }
      firstLine.set(entry.transactionId, entry.line);
      keep.push(entry);
      const sums = totalsOf(totals, entry.currency);
      sums.gross += entry.gross;
      sums.fees += entry.fee;
      sums.net += entry.net;
      if (entry.payoutId && entry.kind !== "payout") {
        const payout = (payouts[entry.payoutId] ??= { currency: entry.currency, net: 0 });
        payout.net += entry.net;
      }
      if (!earliest || entry.createdAt < earliest) earliest = entry.createdAt;
      if (!latest || entry.createdAt > latest) latest = entry.createdAt;
    }
    await db.reconciliationEntry.createMany({
      data: keep.map((entry) => ({
        runId,
        transactionId: entry.transactionId,
        line: entry.line,
        // Lines that are no payment's (fees, payouts) are kept for the duplicate check only.
        paymentId: PAYMENT_KINDS.includes(entry.kind) ? (entry.paymentId ?? "") : "",
        kind: entry.kind,
        currency: entry.currency,
        gross: entry.gross,
        orderId: entry.orderId ?? null,
      })),
    });
    await writer.add(duplicates);
    rows += batch.length;
    await onProgress({ phase: "reading", rows, bytes: counter.bytes, bytesTotal, mismatches: writer.count });
  };

  let batch: SettlementEntry[] = [];
  for await (const entry of readSettlementEntries(input.pipe(counter), run.format)) {
    batch.push(entry);
    if (batch.length >= ENTRY_BATCH) {
      await readBatch(batch);
      batch = [];
    }
  }
  if (batch.length > 0) await readBatch(batch);

  const period = periodFromFile(earliest, latest, run.scope);
  if (period) {
    const scope = run.scope;
    const addBooks = (book: BookedPayment) => {
      const sums = totalsOf(totals, book.currency);
      sums.credited += book.credited;
      sums.refunded += book.refunded;
    };
    // 2. The report's payments, in id order.
    for (let cursor = ""; ; ) {
      const page = await db.reconciliationEntry.groupBy({ by: ["paymentId"], where: { runId, paymentId: { gt: cursor } }, orderBy: { paymentId: "asc" }, take: PAYMENT_PAGE });
      if (page.length === 0) break;
      const ids = page.map((group) => group.paymentId);
      const lines = await db.reconciliationEntry.findMany({ where: { runId, paymentId: { in: ids } }, select: { paymentId: true, kind: true, currency: true, gross: true, line: true, orderId: true }, orderBy: { line: "asc" } });
      const byPayment = new Map<string, typeof lines>();
      for (const line of lines) byPayment.set(line.paymentId, [...(byPayment.get(line.paymentId) ?? []), line]);
      const books = await bookedPayments(db, scope, period, ids);
      const found: PaymentMismatch[] = [];
      for (const id of ids) {
        const book = books.get(id);
        if (book) addBooks(book);
        found.push(...compareSettled(id, settledPayment(byPayment.get(id)!), book, totals));
      }
      await writer.add(found);
      await onProgress({ phase: "matching", rows, bytes: counter.bytes, bytesTotal, mismatches: writer.count });
      cursor = ids[ids.length - 1];
    }
    // 3. The ledger's payments of the scope and period that the report does not list.
    for (let cursor = ""; ; ) {
      const page = await db.ledgerEntry.groupBy({
        by: ["paymentKey"],
        where: { provider: scope.provider, account: scope.account, livemode: scope.livemode, createdAt: { gte: period.from, lt: period.to }, paymentKey: { gt: cursor } },
        orderBy: { paymentKey: "asc" },
        take: PAYMENT_PAGE,
      });
      if (page.length === 0) break;
      const keys = page.map((group) => group.paymentKey);
      const listed = await db.reconciliationEntry.findMany({ where: { runId, paymentId: { in: keys } }, select: { paymentId: true }, distinct: ["paymentId"] });
      const listedIds = new Set(listed.map((row) => row.paymentId));
      const books = await bookedPayments(db, scope, period, keys.filter((key) => !listedIds.has(key)));
      const found: PaymentMismatch[] = [];
      for (const book of keys.flatMap((key) => books.get(key) ?? [])) {
        addBooks(book);
        const mismatch = compareUnsettled(book, totals);
        if (mismatch) found.push(mismatch);
      }
      await writer.add(found);
      cursor = keys[keys.length - 1];
    }
  }
  await writer.flush();
  await db.reconciliationEntry.deleteMany({ where: { runId } });
  await onProgress({ phase: "done", rows, bytes: counter.bytes, bytesTotal, mismatches: writer.count });
  return { rowCount: rows, mismatchCount: writer.count, period, totals, payouts };
}
