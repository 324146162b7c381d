import type { SqlSession } from "@/lib/db/driver";

/**
 * What a read needs: a transaction's session, or the driver itself (DriverDb.all: one statement in
 * autocommit, which on SQLite reads the WAL without taking the write lock).
 */
export type SqlReader = Pick<SqlSession, "dialect" | "all">;
import { newRowId } from "@/lib/db/row-id";
import type { RunScope } from "@/lib/reconciliation/run-scope";

// The statements of a payment-level run's hot path, on the driver's prepared statements
// (lib/db/driver.ts) instead of Prisma's query compiler: per 500-line batch the model API spent
// milliseconds of main-thread CPU building each query, which webhooks answered by the same process
// waited for. Each statement text is fixed (no IN list whose length varies: a short one is padded), so
// it is prepared once per connection: on SQLite writes are one row per execution of a cached statement
// (better-sqlite3 runs it in microseconds, inside the batch's one transaction), on PostgreSQL one
// statement per batch with the values as arrays (`unnest`, `= ANY`). Reads take a SqlReader: the run
// reads in autocommit, and opens a write transaction only for what it writes.

/** A report line kept in the staging table while its run is processed. */
export interface StagedEntry {
  transactionId: string;
  line: number;
  /** "" for a line that is no payment's (fees, payouts): kept for the duplicate check only. */
  paymentId: string;
  kind: string;
  currency: string;
  gross: number;
  orderId: string | null;
}

/** A mismatch row as a payment-level run writes it (the order-level columns are left empty). */
export interface MismatchInsert {
  code: string;
  paymentId: string;
  orderId: string;
  currency: string;
  settled: number;
  booked: number;
  nextAction: string;
  line: number | null;
  /** JSON array of report lines. */
  lines: string;
}

/** One staged report line of a payment, as the matching pass reads it. */
export interface StagedLine {
  paymentId: string;
  kind: string;
  currency: string;
  gross: number;
  line: number;
  orderId: string | null;
}

/** A ledger sum of one payment key, kind, currency and order (minor units, signed as booked). */
export interface LedgerSum {
  paymentKey: string;
  kind: string;
  currency: string;
  orderId: string;
  amount: number;
}

const num = (value: unknown) => Number(value ?? 0);

/**
 * The first line of each of `transactionIds` already staged for run `runId` (the duplicate check).
 * Takes the batch's ids and the IN list's fixed size on SQLite (under its 999 bound values); returns
 * transaction id -> line for those found.
 */
export async function stagedLines(reader: SqlReader, runId: string, transactionIds: string[], listSize: number): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  if (transactionIds.length === 0) return found;
  if (reader.dialect === "postgresql") {
    const rows = await reader.all<{ transactionId: string; line: number }>(`SELECT "transactionId", "line" FROM "ReconciliationEntry" WHERE "runId" = ? AND "transactionId" = ANY(?::text[])`, [runId, transactionIds as never]);
    for (const row of rows) found.set(row.transactionId, num(row.line));
    return found;
  }
  // One IN list of `listSize` values (a shorter batch repeats its last id): one statement text, prepared once.
  for (let start = 0; start < transactionIds.length; start += listSize) {
    const ids = transactionIds.slice(start, start + listSize);
    const padded = [...ids, ...Array<string>(listSize - ids.length).fill(ids[ids.length - 1])];
    const rows = await reader.all<{ transactionId: string; line: number }>(`SELECT "transactionId", "line" FROM "ReconciliationEntry" WHERE "runId" = ? AND "transactionId" IN (${padded.map(() => "?").join(", ")})`, [runId, ...padded]);
    for (const row of rows) found.set(row.transactionId, num(row.line));
  }
  return found;
}

/** Stages `entries` (transaction ids new to the run) for run `runId`. */
export async function stageEntries(session: SqlSession, runId: string, entries: StagedEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const columns = `"runId", "transactionId", "line", "paymentId", "kind", "currency", "gross", "orderId"`;
  if (session.dialect === "postgresql") {
    await session.run(`INSERT INTO "ReconciliationEntry" (${columns}) SELECT ?, * FROM unnest(?::text[], ?::int[], ?::text[], ?::text[], ?::text[], ?::int[], ?::text[])`, [
      runId,
      ...([entries.map((e) => e.transactionId), entries.map((e) => e.line), entries.map((e) => e.paymentId), entries.map((e) => e.kind), entries.map((e) => e.currency), entries.map((e) => e.gross), entries.map((e) => e.orderId)] as never[]),
    ]);
    return;
  }
  for (const e of entries) await session.run(`INSERT INTO "ReconciliationEntry" (${columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, [runId, e.transactionId, e.line, e.paymentId, e.kind, e.currency, e.gross, e.orderId]);
}

const MISMATCH_COLUMNS = `"id", "runId", "code", "paymentId", "orderId", "currency", "settled", "booked", "nextAction", "line", "lines", "providerStatus", "expectedStatus", "foundStatus", "expectedCredited", "foundCredited", "overcredited", "reason"`;

/**
 * Writes `rows` as mismatches of run `runId`, ids ULIDs in the order given (so "in the order found"
 * reads back by id). The order-level columns are written empty (0 and "").
 */
export async function insertMismatches(session: SqlSession, runId: string, rows: MismatchInsert[]): Promise<void> {
  if (rows.length === 0) return;
  const ids = rows.map(() => newRowId());
  if (session.dialect === "postgresql") {
    await session.run(
      `INSERT INTO "ReconciliationMismatch" (${MISMATCH_COLUMNS})
       SELECT m.id, ?, m.code, m."paymentId", m."orderId", m.currency, m.settled, m.booked, m."nextAction", m.line, m.lines, '', '', '', 0, 0, 0, ''
       FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::int[], ?::int[], ?::text[], ?::int[], ?::text[]) AS m(id, code, "paymentId", "orderId", currency, settled, booked, "nextAction", line, lines)`,
      [
        runId,
        ...([ids, rows.map((r) => r.code), rows.map((r) => r.paymentId), rows.map((r) => r.orderId), rows.map((r) => r.currency), rows.map((r) => r.settled), rows.map((r) => r.booked), rows.map((r) => r.nextAction), rows.map((r) => r.line), rows.map((r) => r.lines)] as never[]),
      ],
    );
    return;
  }
  for (const [i, r] of rows.entries()) {
    await session.run(`INSERT INTO "ReconciliationMismatch" (${MISMATCH_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', '', '', 0, 0, 0, '')`, [ids[i], runId, r.code, r.paymentId, r.orderId, r.currency, r.settled, r.booked, r.nextAction, r.line, r.lines]);
  }
}

/**
 * The next page of the run's payment ids after `cursor` (at most `limit`, in id order; lines that are
 * no payment's have id "" and are never listed), and every staged line of those payments in line order.
 */
export async function paymentPage(reader: SqlReader, runId: string, cursor: string, limit: number): Promise<{ ids: string[]; lines: StagedLine[] }> {
  const page = await reader.all<{ paymentId: string }>(`SELECT "paymentId" FROM "ReconciliationEntry" WHERE "runId" = ? AND "paymentId" > ? GROUP BY "paymentId" ORDER BY "paymentId" LIMIT ?`, [runId, cursor, limit]);
  if (page.length === 0) return { ids: [], lines: [] };
  const ids = page.map((row) => row.paymentId);
  // The page's lines by range on the (runId, paymentId) index: the same statement for every page.
  const rows = await reader.all<StagedLine>(
    `SELECT "paymentId", "kind", "currency", "gross", "line", "orderId" FROM "ReconciliationEntry" WHERE "runId" = ? AND "paymentId" > ? AND "paymentId" <= ? ORDER BY "paymentId", "line"`,
    [runId, cursor, ids[ids.length - 1]],
  );
  return { ids, lines: rows.map((row) => ({ ...row, gross: num(row.gross), line: num(row.line) })) };
}

/** The payment ids after `cursor` up to `last` (inclusive) that run `runId` staged. */
export async function stagedPaymentIds(reader: SqlReader, runId: string, cursor: string, last: string): Promise<Set<string>> {
  const rows = await reader.all<{ paymentId: string }>(`SELECT DISTINCT "paymentId" FROM "ReconciliationEntry" WHERE "runId" = ? AND "paymentId" > ? AND "paymentId" <= ?`, [runId, cursor, last]);
  return new Set(rows.map((row) => row.paymentId));
}

/**
 * The ledger of `scope` booked in `period` summed per payment key, kind, currency and order, for the
 * keys after `cursor` up to `last` (inclusive): a range on the ledger's (provider, account, livemode,
 * paymentKey) index, so pages walked in key order read each key once.
 */
export async function ledgerSums(reader: SqlReader, scope: RunScope, period: { from: Date; to: Date }, cursor: string, last: string): Promise<LedgerSum[]> {
  const rows = await reader.all<LedgerSum>(
    `SELECT "paymentKey", "kind", "currency", "orderId", SUM("amount") AS "amount" FROM "LedgerEntry"
     WHERE "provider" = ? AND "account" = ? AND "livemode" = ? AND "paymentKey" > ? AND "paymentKey" <= ? AND "createdAt" >= ? AND "createdAt" < ?
     GROUP BY "paymentKey", "kind", "currency", "orderId"`,
    [scope.provider, scope.account, scope.livemode, cursor, last, period.from, period.to],
  );
  // PostgreSQL returns SUM as bigint text.
  return rows.map((row) => ({ ...row, amount: num(row.amount) }));
}

/** The next page of payment keys after `cursor` that the ledger of `scope` booked in `period` (at most `limit`, in key order). */
export async function ledgerKeyPage(reader: SqlReader, scope: RunScope, period: { from: Date; to: Date }, cursor: string, limit: number): Promise<string[]> {
  const rows = await reader.all<{ paymentKey: string }>(
    `SELECT "paymentKey" FROM "LedgerEntry" WHERE "provider" = ? AND "account" = ? AND "livemode" = ? AND "paymentKey" > ? AND "createdAt" >= ? AND "createdAt" < ?
     GROUP BY "paymentKey" ORDER BY "paymentKey" LIMIT ?`,
    [scope.provider, scope.account, scope.livemode, cursor, period.from, period.to, limit],
  );
  return rows.map((row) => row.paymentKey);
}

/**
 * Deletes up to `limit` staged lines of run `runId` (one short transaction per call, so a large run's
 * clean-up never holds SQLite's write lock for long). Returns how many were deleted.
 */
export async function deleteStagedChunk(session: SqlSession, runId: string, limit: number): Promise<number> {
  // PostgreSQL: the chunk's keys as one array (ARRAY(...) is computed once), then found by the primary
  // key; an IN (SELECT ...) was planned as a hash join over a sequential scan of the whole staging table,
  // per chunk (quadratic in the run's size).
  if (session.dialect === "postgresql") {
    return session.run(`DELETE FROM "ReconciliationEntry" WHERE "runId" = ? AND "transactionId" = ANY(ARRAY(SELECT "transactionId" FROM "ReconciliationEntry" WHERE "runId" = ? LIMIT ?))`, [runId, runId, limit]);
  }
  return session.run(`DELETE FROM "ReconciliationEntry" WHERE "runId" = ? AND "transactionId" IN (SELECT "transactionId" FROM "ReconciliationEntry" WHERE "runId" = ? LIMIT ?)`, [runId, runId, limit]);
}

/** Deletes up to `limit` mismatches of run `runId` (a run taken over starts over). Returns how many were deleted. */
export async function deleteMismatchChunk(session: SqlSession, runId: string, limit: number): Promise<number> {
  if (session.dialect === "postgresql") {
    return session.run(`DELETE FROM "ReconciliationMismatch" WHERE "id" = ANY(ARRAY(SELECT "id" FROM "ReconciliationMismatch" WHERE "runId" = ? LIMIT ?))`, [runId, limit]);
  }
  return session.run(`DELETE FROM "ReconciliationMismatch" WHERE "id" IN (SELECT "id" FROM "ReconciliationMismatch" WHERE "runId" = ? LIMIT ?)`, [runId, limit]);
}
