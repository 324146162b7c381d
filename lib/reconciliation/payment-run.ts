import { PassThrough, type Readable } from "node:stream";
import type { Db } from "@/lib/db/client";
import { driverOf, type DriverDb, type SqlSession } from "@/lib/db/driver";
import { compareSettled, compareUnsettled, NEXT_ACTION, totalsOf, type BookedPayment, type CurrencyTotals, type PaymentMismatch, type SettledPayment } from "@/lib/reconciliation/match-payments";
import { periodFromFile, type RunScope } from "@/lib/reconciliation/run-scope";
import { deleteMismatchChunk, deleteStagedChunk, insertMismatches, ledgerKeyPage, ledgerSums, paymentPage, stagedLines, stagedPaymentIds, stageEntries, type MismatchInsert, type SqlReader, type StagedEntry, type StagedLine } from "@/lib/reconciliation/run-sql";
import { readSettlementEntries, type SettlementEntry, type SettlementFormat } from "@/lib/reconciliation/settlement-entries";

/**
 * Report lines read (and checked for duplicates) per batch: one short driver transaction each
 * (lib/reconciliation/run-sql.ts), then the event loop is yielded to.
 */
export const ENTRY_BATCH = 500;
/** Payments compared per page (one short transaction: the page, its lines, its ledger sums, its mismatches). */
const PAYMENT_PAGE = 500;
/** At most this many report lines are kept per mismatch (the first ones). */
const MAX_LINES = 20;
/** How long a claimed run stays ours without a progress write (ms). */
export const RUN_LEASE_MS = 60_000;

const PAYMENT_KINDS = new Set(["charge", "refund", "refund_failure", "dispute", "dispute_reversal"]);

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

/** A found mismatch as its row (ids and lines capped at the columns' sizes). */
function mismatchInsert(mismatch: PaymentMismatch): MismatchInsert {
  return {
    code: mismatch.code,
    paymentId: mismatch.paymentId.slice(0, 255),
    orderId: (mismatch.orderId ?? "").slice(0, 255),
    currency: mismatch.currency,
    settled: mismatch.settled,
    booked: mismatch.booked,
    nextAction: mismatch.nextAction,
    line: mismatch.lines[0] ?? null,
    lines: JSON.stringify(mismatch.lines.slice(0, MAX_LINES)),
  };
}

/**
 * The ledger of `scope` booked in `period`, per payment, for the payment keys `keys` (lib/core/
 * decide-effect.ts books them, signed): credited is the sum of `credit` entries; refunded what `refund`
 * entries took net of `refund_failed` ones (a refund the bank returned); disputed what
 * `dispute_withdrawal` entries took net of `dispute_reinstatement` ones (a dispute won). The same
 * signs as a Stripe report's refund/refund_failure and dispute/dispute_reversal lines. `keys` are
 * sorted and follow `cursor`: the sums are read as one range of the ledger's index.
 */
async function bookedPayments(reader: SqlReader, scope: RunScope, period: { from: Date; to: Date }, cursor: string, keys: string[]): Promise<Map<string, BookedPayment>> {
  const books = new Map<string, BookedPayment>();
  if (keys.length === 0) return books;
  const wanted = new Set(keys);
  for (const group of await ledgerSums(reader, scope, period, cursor, keys[keys.length - 1])) {
    if (!wanted.has(group.paymentKey)) continue;
    const book = books.get(group.paymentKey) ?? { paymentKey: group.paymentKey, orderId: group.orderId, currency: group.currency, credited: 0, refunded: 0, disputed: 0 };
    const amount = group.amount;
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

/** Lets queued work (webhooks answered by the same process) run between two batches. */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Called after each of a run's transactions with how long it held the database (ms). In the server's
 * process the default yields to the event loop (webhooks queued behind the batch go first). A worker
 * in its own process pauses as long as the transaction took ({@link shareWriteLock}): SQLite has one
 * write lock per file and a waiting connection only retries it now and then (its busy handler), so
 * back-to-back batches would keep the server's webhook transactions waiting; on PostgreSQL the run
 * and the server share the machine's cores.
 */
export type RunPacing = (heldMs: number) => Promise<void>;

/**
 * The pacing of a worker process (scripts/reconciliation-worker.ts): a pause as long as the transaction
 * took. On SQLite the write lock is then free at least half of the time; on PostgreSQL the CPU the run
 * and its backend share with the server is.
 */
export const shareWriteLock: RunPacing = (heldMs) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(1, Math.round(heldMs))));

/**
 * Runs `work` as one of a run's own write transactions. On PostgreSQL its commit does not wait for the
 * WAL's fsync (`SET LOCAL synchronous_commit = off`, this transaction only; the WAL writer flushes it
 * within 200 ms): a batch's commit then costs no disk flush of its own, and what a crash could lose is
 * the run's last batches, which is what a crash loses anyway: the run's lease ends and it is run again
 * from its first line (as SQLite's synchronous=NORMAL in the worker process, scripts/
 * reconciliation-worker.ts). The run's final "done" is an ordinary commit, which flushes every batch
 * before it. Webhook transactions keep their synchronous commits.
 */
export async function runTransaction<T>(database: DriverDb, work: (session: SqlSession) => Promise<T>): Promise<T> {
  return database.transaction(async (session) => {
    if (session.dialect === "postgresql") await session.run("SET LOCAL synchronous_commit = off");
    return work(session);
  });
}

/** Staged lines or mismatches deleted per transaction when a run starts over or ends. */
const DELETE_CHUNK = 5_000;

/** Deletes run `runId`'s staged lines (and its mismatches when `mismatches`), in short transactions paced by `pacing`. */
export async function clearRunRows(db: Db, runId: string, mismatches: boolean, pacing: RunPacing = yieldToEventLoop): Promise<void> {
  const driver = driverOf(db);
  const chunks = async (remove: (session: SqlSession) => Promise<number>) => {
    for (;;) {
      const started = performance.now();
      const deleted = await runTransaction(driver, remove);
      await pacing(performance.now() - started);
      if (deleted === 0) return;
    }
  };
  await chunks((session) => deleteStagedChunk(session, runId, DELETE_CHUNK));
  if (mismatches) await chunks((session) => deleteMismatchChunk(session, runId, DELETE_CHUNK));
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
 * Payouts whose net a run keeps (the first ones met in the report): a month of daily payouts is ~31.
 * Each is held in the worker's memory, stored in the run's row and shown on its page, so a report of
 * 60,000 one-line "payouts" cannot grow them past what a page can show (it took the server past its
 * heap). The totals per currency count every line whatever the number of payouts.
 */
export const MAX_PAYOUTS_PER_RUN = 1_000;

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
  pacing: RunPacing = yieldToEventLoop,
): Promise<PaymentRunSummary> {
  const runId = run.id;
  const database = driverOf(db);
  // A write transaction only when there is something to write, paced after it; reads are autocommit
  // statements (no write lock on SQLite), and the event loop is yielded to after each batch either way.
  const write = async (work: (session: SqlSession) => Promise<void>, needed = true) => {
    if (!needed) return yieldToEventLoop();
    const started = performance.now();
    await runTransaction(database, work);
    await pacing(performance.now() - started);
  };
  // A run taken over after a crash starts again from the first line.
  await clearRunRows(db, runId, true, pacing);
  const totals: Record<string, CurrencyTotals> = {};
  // A Map: a payout id is the report's text ("__proto__" included), never a property name.
  const payouts = new Map<string, { currency: string; net: number }>();
  const counter = byteCounter();
  const bytesTotal = run.bytesTotal ?? 0;
  let rows = 0;
  let mismatchCount = 0;
  let earliest: Date | undefined;
  let latest: Date | undefined;

  // 1. Each batch: the duplicate check read in autocommit, then one short transaction for its staging rows and duplicates.
  const readBatch = async (batch: SettlementEntry[]) => {
    const firstLine = await stagedLines(database, runId, batch.map((entry) => entry.transactionId), ENTRY_BATCH);
    const keep: StagedEntry[] = [];
    const duplicates: MismatchInsert[] = [];
    for (const entry of batch) {
      const first = firstLine.get(entry.transactionId);
      if (first !== undefined) {
        duplicates.push(mismatchInsert({ code: "duplicate_row", paymentId: entry.paymentId ?? entry.transactionId, orderId: entry.orderId, currency: entry.currency, settled: Math.abs(entry.gross), booked: 0, lines: [first, entry.line], nextAction: NEXT_ACTION.duplicate_row }));
        continue;
      }
      firstLine.set(entry.transactionId, entry.line);
      // Lines that are no payment's (fees, payouts) are kept for the duplicate check only.
      keep.push({ transactionId: entry.transactionId, line: entry.line, paymentId: PAYMENT_KINDS.has(entry.kind) ? (entry.paymentId ?? "") : "", kind: entry.kind, currency: entry.currency, gross: entry.gross, orderId: entry.orderId ?? null });
      const sums = totalsOf(totals, entry.currency);
      sums.gross += entry.gross;
      sums.fees += entry.fee;
      sums.net += entry.net;
      if (entry.payoutId && entry.kind !== "payout") {
        let payout = payouts.get(entry.payoutId);
        if (!payout && payouts.size < MAX_PAYOUTS_PER_RUN) payouts.set(entry.payoutId, (payout = { currency: entry.currency, net: 0 }));
        if (payout) payout.net += entry.net;
      }
      if (!earliest || entry.createdAt < earliest) earliest = entry.createdAt;
      if (!latest || entry.createdAt > latest) latest = entry.createdAt;
    }
    await write(async (session) => {
      await stageEntries(session, runId, keep);
      await insertMismatches(session, runId, duplicates);
    }, keep.length + duplicates.length > 0);
    mismatchCount += duplicates.length;
    rows += batch.length;
    await onProgress({ phase: "reading", rows, bytes: counter.bytes, bytesTotal, mismatches: mismatchCount });
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
  // PostgreSQL plans the matching pass's page reads from the staging table's statistics, which still
  // describe it before this run staged its lines (often empty): then each page of 500 payments was read
  // by sorting every line after the cursor (0.025 s a page at 100,000 lines, a pass quadratic in the
  // report's size). One ANALYZE (a sample of 30,000 rows, well under a second) and every page is a
  // walk of 500 entries on the (runId, paymentId) index. SQLite picks that index without statistics.
  if (database.dialect === "postgresql" && rows > 0) await db.$executeRawUnsafe(`ANALYZE "ReconciliationEntry"`);

  const period = periodFromFile(earliest, latest, run.scope);
  if (period) {
    const scope = run.scope;
    const addBooks = (book: BookedPayment) => {
      const sums = totalsOf(totals, book.currency);
      sums.credited += book.credited;
      sums.refunded += book.refunded;
    };
    // 2. The report's payments, in id order: each page read in autocommit, its mismatches in one short transaction.
    for (let cursor = ""; ; ) {
      const page = await paymentPage(database, runId, cursor, PAYMENT_PAGE);
      if (page.ids.length === 0) break;
      const byPayment = new Map<string, StagedLine[]>();
      for (const line of page.lines) {
        const list = byPayment.get(line.paymentId);
        if (list) list.push(line);
        else byPayment.set(line.paymentId, [line]);
      }
      const books = await bookedPayments(database, scope, period, cursor, page.ids);
      const found: MismatchInsert[] = [];
      for (const id of page.ids) {
        const book = books.get(id);
        if (book) addBooks(book);
        for (const mismatch of compareSettled(id, settledPayment(byPayment.get(id)!), book, totals)) found.push(mismatchInsert(mismatch));
      }
      await write((session) => insertMismatches(session, runId, found), found.length > 0);
      mismatchCount += found.length;
      await onProgress({ phase: "matching", rows, bytes: counter.bytes, bytesTotal, mismatches: mismatchCount });
      cursor = page.ids[page.ids.length - 1];
    }
    // 3. The ledger's payments of the scope and period that the report does not list.
    for (let cursor = ""; ; ) {
      const keys = await ledgerKeyPage(database, scope, period, cursor, PAYMENT_PAGE);
      if (keys.length === 0) break;
      const listed = await stagedPaymentIds(database, runId, cursor, keys[keys.length - 1]);
      const books = await bookedPayments(database, scope, period, cursor, keys);
      const found: MismatchInsert[] = [];
      for (const key of keys) {
        const book = books.get(key);
        if (!book || listed.has(key)) continue;
        addBooks(book);
        const mismatch = compareUnsettled(book, totals);
        if (mismatch) found.push(mismatchInsert(mismatch));
      }
      await write((session) => insertMismatches(session, runId, found), found.length > 0);
      mismatchCount += found.length;
      await onProgress({ phase: "matching", rows, bytes: counter.bytes, bytesTotal, mismatches: mismatchCount });
      cursor = keys[keys.length - 1];
    }
  }
  await clearRunRows(db, runId, false, pacing);
  await onProgress({ phase: "done", rows, bytes: counter.bytes, bytesTotal, mismatches: mismatchCount });
  return { rowCount: rows, mismatchCount, period, totals, payouts: Object.fromEntries(payouts) };
}
