// The WebhookEvent table's one writer: the inbox row of every stored event (ingest's insert, the
// inbox worker's claim, lease and outcome, the apply's mark, parked events woken, a dead letter's
// re-queue, retention's purge). Every statement runs on the driver's prepared statements (the hot
// path); nothing else in lib/ writes this table (npm run lint:arch, money-path-writers).
import type { PaymentScope } from "@/lib/core/business-keys";
import type { Db } from "@/lib/db/client";
import { driverOf, type SqlSession, type SqlValue } from "@/lib/db/driver";
import { sqlDate, sqliteBoolean } from "@/lib/db/sql-values";

/** The columns of a new event row, in the order {@link insertEvents} writes them. */
export const STORED_EVENT_COLUMNS = ["id", "organizationId", "provider", "endpoint", "account", "livemode", "eventId", "type", "bodyHash", "orderId", "paymentKey", "payload", "secretLabel", "headerNames", "customerEmail", "chargeId", "checkoutSessionId", "status", "attempts", "nextAttemptAt", "dueAt", "receivedAt"] as const;

/**
 * A new WebhookEvent row: the UNIQUE event key (provider, account, livemode, eventId), the body hash and
 * the normalised payload (never the raw body or a signature), and its processing state.
 */
export interface NewEventRow {
  id: string;
  /** The organization owning the endpoint that received it (a Connect event: the bound account's). */
  organizationId: string;
  provider: string;
  endpoint: string;
  account: string;
  livemode: boolean;
  eventId: string;
  type: string;
  bodyHash: string;
  orderId: string | null;
  paymentKey: string | null;
  payload: string;
  secretLabel: string | null;
  /** The delivery's header names as JSON (see {@link headerNamesJson}); never a value. */
  headerNames: string | null;
  /** The customer's e-mail for search (lower-cased; personal data, emptied with the payload). */
  customerEmail: string | null;
  /** The provider's charge id for search. */
  chargeId: string | null;
  /** The checkout session the event names, for search. */
  checkoutSessionId: string | null;
  status: string;
  attempts: number;
  nextAttemptAt: Date | null;
  dueAt: Date | null;
  receivedAt: Date;
}

/** Most header names kept of one delivery, and the longest name kept (a sender controls both). */
export const MAX_HEADER_NAMES = 64;
const MAX_HEADER_NAME_LENGTH = 100;

/**
 * The names of a delivery's headers as the WebhookEvent row keeps them: lower-case (HTTP names are
 * case-insensitive; Web `Headers` already lower-cases them), each once, sorted, at most
 * {@link MAX_HEADER_NAMES} of at most 100 characters, as a JSON array. Never a value: the signature
 * headers are named so a person can see which ones came, and nothing of them is kept.
 */
export function headerNamesJson(headers: Headers): string {
  const names = new Set<string>();
  for (const name of headers.keys()) names.add(name.toLowerCase().slice(0, MAX_HEADER_NAME_LENGTH));
  return JSON.stringify([...names].sort().slice(0, MAX_HEADER_NAMES));
}

/** The UNIQUE event key of a row, as {@link insertEvents} reports the rows it inserted. */
export interface InsertedEventKey {
  id: string;
  provider: string;
  account: string;
  livemode: boolean;
  eventId: string;
}

/**
 * Inserts event rows in the caller's driver session in ONE statement, under the UNIQUE event key:
 * `INSERT ... ON CONFLICT (provider, account, livemode, eventId) DO NOTHING RETURNING`, so a key
 * stored before (or by a concurrent transaction on PostgreSQL, which waits for it) comes back missing,
 * never as an error; the key decides, never a read first. Takes rows with distinct keys (the caller
 * keeps the first of a key); returns the keys and ids of the rows inserted. Throws the database's errors.
 */
export async function insertEvents(session: SqlSession, rows: readonly NewEventRow[]): Promise<InsertedEventKey[]> {
  if (rows.length === 0) return [];
  const placeholders = rows.map(() => `(${STORED_EVENT_COLUMNS.map(() => "?").join(", ")})`).join(", ");
  const values: SqlValue[] = [];
  for (const row of rows) for (const column of STORED_EVENT_COLUMNS) values.push(row[column]);
  const inserted = await session.all<{ id: string; provider: string; account: string; livemode: boolean | number; eventId: string }>(
    `INSERT INTO "WebhookEvent" (${STORED_EVENT_COLUMNS.map((column) => `"${column}"`).join(", ")}) VALUES ${placeholders}
     ON CONFLICT ("provider", "account", "livemode", "eventId") DO NOTHING RETURNING "id", "provider", "account", "livemode", "eventId"`,
    values,
  );
  return inserted.map((row) => ({ ...row, livemode: sqliteBoolean(row.livemode) }));
}

/**
 * Marks an applied event finished in the apply's transaction: status `processed` (or `ignored` when
 * its effect was a no-op by rule), the order it reached, and its retry and lease fields cleared.
 */
export async function markEventApplied(session: SqlSession, id: string, status: "processed" | "ignored", orderId: string | null, now: Date): Promise<void> {
  await session.run(
    `UPDATE "WebhookEvent" SET "status" = ?, "processedAt" = ?, "orderId" = ?, "lastError" = NULL, "nextAttemptAt" = NULL, "dueAt" = NULL, "leaseOwner" = NULL, "leaseExpiresAt" = NULL WHERE "id" = ?`,
    [status, now, orderId, id],
  );
}

/**
 * The first write of an inbox worker's transaction: re-asserts `owner`'s lease on every event of the
 * batch (SQLite: a write first, so the write lock and the lease hold until the commit). Returns the ids
 * still held; an event whose lease expired and was taken over is not among them.
 */
export async function guardEventLeases(session: SqlSession, ids: readonly string[], owner: string): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await session.all<{ id: string }>(
    `UPDATE "WebhookEvent" SET "leaseOwner" = ? WHERE "id" IN (${ids.map(() => "?").join(", ")}) AND "status" = 'processing' AND "leaseOwner" = ? RETURNING "id"`,
    [owner, ...ids, owner],
  );
  return new Set(rows.map((row) => row.id));
}

/** A failed attempt's record on its event: the last error (at most 500 characters kept) and when the first failure was. */
export interface FailedAttempt {
  lastError: string;
  firstFailedAt: Date;
}

/** Parks an event for a retry at `nextAttemptAt` (status `failed`, due then, lease cleared), in the worker's transaction. */
export async function scheduleEventRetry(session: SqlSession, id: string, nextAttemptAt: Date, failed: FailedAttempt): Promise<void> {
  await session.run(
    `UPDATE "WebhookEvent" SET "status" = 'failed', "nextAttemptAt" = ?, "dueAt" = ?, "lastError" = ?, "firstFailedAt" = ?, "leaseOwner" = NULL, "leaseExpiresAt" = NULL WHERE "id" = ?`,
    [nextAttemptAt, nextAttemptAt, failed.lastError.slice(0, 500), failed.firstFailedAt, id],
  );
}

/** Marks an event `dead` (never due again; its dead letter holds what a person needs), in the worker's transaction. */
export async function markEventDead(session: SqlSession, id: string, failed: FailedAttempt): Promise<void> {
  await session.run(
    `UPDATE "WebhookEvent" SET "status" = 'dead', "nextAttemptAt" = NULL, "dueAt" = NULL, "lastError" = ?, "firstFailedAt" = ?, "leaseOwner" = NULL, "leaseExpiresAt" = NULL WHERE "id" = ?`,
    [failed.lastError.slice(0, 500), failed.firstFailedAt, id],
  );
}

/**
 * Makes the parked inbox events of one order (or one payment) due now, because a transition just
 * landed on that order: a refund that arrived before its approval is re-checked at once instead of
 * waiting for its backoff timer. Runs inside the transaction that made the transition.
 * Returns how many events were woken.
 */
export async function wakeParkedEvents(session: SqlSession, target: { orderId?: string; paymentKey?: string; scope: PaymentScope }, now: Date): Promise<number> {
  // A payment id means something only in its scope: another provider's event naming the same id must not wake (and spend the retries of) this one.
  const branches: string[] = [];
  const params: SqlValue[] = [];
  if (target.orderId) {
    branches.push(`"orderId" = ?`);
    params.push(target.orderId);
  }
  if (target.paymentKey) {
    branches.push(`("paymentKey" = ? AND "provider" = ? AND "account" = ? AND "livemode" = ?)`);
    params.push(target.paymentKey, target.scope.provider, target.scope.account, target.scope.livemode);
  }
  if (branches.length === 0) return 0;
  return session.run(`UPDATE "WebhookEvent" SET "nextAttemptAt" = ?, "dueAt" = ? WHERE "status" = 'failed' AND "nextAttemptAt" > ? AND (${branches.join(" OR ")})`, [now, now, now, ...params]);
}

/**
 * Makes a `dead` or `failed` event due again now with a fresh attempt budget (a person retried its dead
 * letter): status `received`, attempts 0, failure and lease cleared. Only when it still has the status
 * the caller read (`fromStatus`): returns false when a worker or another retry changed it meanwhile.
 */
export async function requeueEvent(session: SqlSession, id: string, fromStatus: string, now: Date): Promise<boolean> {
  const changed = await session.run(
    `UPDATE "WebhookEvent" SET "status" = 'received', "nextAttemptAt" = ?, "dueAt" = ?, "attempts" = 0, "firstFailedAt" = NULL, "leaseOwner" = NULL, "leaseExpiresAt" = NULL WHERE "id" = ? AND "status" = ?`,
    [now, now, id, fromStatus],
  );
  return changed === 1;
}

/** Event statuses whose work is finished: nothing will read their payload to apply it again. */
export const FINISHED_EVENT_STATUSES = ["processed", "ignored"] as const;

/**
 * Empties the payload of these events (`payload = ""`, `purgedAt = now`) and the customer's e-mail
 * kept beside it (`customerEmail = NULL`: personal data goes with the payload), each only while it is
 * still finished, unpurged and received before `cutoff` (a row a worker re-queued meanwhile is left
 * alone). The row itself stays: its key keeps deduplicating, its body hash keeps telling a duplicate
 * from a conflict, its charge id and header names still find it. Returns how many were emptied.
 */
export async function purgeEventPayloads(db: Db, ids: readonly string[], cutoff: Date, now: Date): Promise<number> {
  if (ids.length === 0) return 0;
  return driverOf(db).transaction((session) =>
    session.run(
      `UPDATE "WebhookEvent" SET "payload" = '', "customerEmail" = NULL, "purgedAt" = ? WHERE "id" IN (${ids.map(() => "?").join(", ")}) AND "purgedAt" IS NULL AND "status" IN (${FINISHED_EVENT_STATUSES.map(() => "?").join(", ")}) AND "receivedAt" < ?`,
      [now, ...ids, ...FINISHED_EVENT_STATUSES, cutoff],
    ),
  );
}

/** An inbox event this worker now holds under lease. `attempts` already counts this attempt. */
export interface ClaimedInboxEvent {
  id: string;
  organizationId: string;
  provider: string;
  endpoint: string;
  account: string;
  livemode: boolean;
  eventId: string;
  type: string;
  bodyHash: string;
  orderId: string | null;
  paymentKey: string | null;
  payload: string;
  secretLabel: string | null;
  attempts: number;
  receivedAt: Date;
  firstFailedAt: Date | null;
  leaseExpiresAt: Date;
}

/** What the claim returns through the driver (SQLite: 0/1 and the model API's ISO text for times). */
type ClaimedRow = Omit<ClaimedInboxEvent, "livemode" | "receivedAt" | "firstFailedAt" | "leaseExpiresAt"> & {
  livemode: boolean | number;
  receivedAt: Date | string;
  firstFailedAt: Date | string | null;
};

const RETURNED = ["id", "organizationId", "provider", "endpoint", "account", "livemode", "eventId", "type", "bodyHash", "orderId", "paymentKey", "payload", "secretLabel", "attempts", "receivedAt", "firstFailedAt"];

function claimedOf(row: ClaimedRow, leaseExpiresAt: Date): ClaimedInboxEvent {
  return {
    ...row,
    livemode: sqliteBoolean(row.livemode),
    receivedAt: sqlDate(row.receivedAt)!,
    firstFailedAt: sqlDate(row.firstFailedAt),
    leaseExpiresAt,
  };
}

/** One statement for the driver: SQL with `?` placeholders and its values in order. */
export interface ClaimStatement {
  sql: string;
  params: SqlValue[];
}

/**
 * The claim statement of {@link claimDueInboxEvents} for one dialect (exported so a test can EXPLAIN
 * the very statement the worker runs). Takes the dialect, the owner, the claim's time, the new lease's
 * expiry and the batch size; returns the SQL with `?` placeholders and its values.
 */
export function claimStatement(dialect: "sqlite" | "postgresql", owner: string, now: Date, leaseExpiresAt: Date, limit: number): ClaimStatement {
  const set = `"status" = 'processing', "leaseOwner" = ?, "leaseExpiresAt" = ?, "dueAt" = ?, "attempts" = `;
  if (dialect === "postgresql") {
    return {
      sql: `WITH next AS (
          SELECT "id" FROM "WebhookEvent" WHERE "dueAt" <= ? ORDER BY "dueAt" ASC, "receivedAt" ASC LIMIT ? FOR UPDATE SKIP LOCKED
        )
        UPDATE "WebhookEvent" AS event SET ${set}event."attempts" + 1
        FROM next WHERE event."id" = next."id"
        RETURNING ${RETURNED.map((column) => `event."${column}"`).join(", ")}`,
      params: [now, limit, owner, leaseExpiresAt, leaseExpiresAt],
    };
  }
  return {
    sql: `UPDATE "WebhookEvent" SET ${set}"attempts" + 1
        WHERE "id" IN (SELECT "id" FROM "WebhookEvent" WHERE "dueAt" <= ? ORDER BY "dueAt" ASC, "receivedAt" ASC LIMIT ?) AND "dueAt" <= ?
        RETURNING ${RETURNED.map((column) => `"${column}"`).join(", ")}`,
    params: [owner, leaseExpiresAt, leaseExpiresAt, now, limit, now],
  };
}

/**
 * Claims up to `limit` due inbox events for `owner` under a lease of `leaseMs`, in ONE statement with
 * no re-read, on the driver in autocommit (no transaction around it): due means `dueAt <= now` (a `received` or parked `failed` event whose nextAttemptAt has
 * come, or a `processing` one whose lease expired because its worker died). The claim sets status
 * `processing`, the lease (leaseOwner, leaseExpiresAt, and dueAt = the lease's expiry) and attempts + 1,
 * so two workers never hold one event. Candidates are read in the order of the index
 * `WebhookEvent(dueAt, receivedAt)`, so the cost of a claim does not grow with the backlog (no sort of
 * the due rows; the plans are checked in tests/integration/inbox-claim-batch.test.ts).
 * - SQLite: `UPDATE ... WHERE id IN (SELECT id ... ORDER BY dueAt, receivedAt LIMIT n) AND dueAt <= now
 *   RETURNING`. One statement is atomic and SQLite has one writer at a time, so no other claim can
 *   interleave between the choice and the update.
 * - PostgreSQL: the candidates are chosen with `FOR UPDATE SKIP LOCKED` in a CTE and taken by the
 *   UPDATE of the same statement (PostgreSQL docs, SELECT "The Locking Clause": SKIP LOCKED for
 *   queue-like tables): concurrent workers each lock different rows without waiting for one another.
 *   Under READ COMMITTED a row another worker claimed after this statement's snapshot is re-checked
 *   against `dueAt <= now` when locked, and skipped.
 * Returns the claimed events in (receivedAt, id) order, so events of one order keep their arrival
 * order within a batch; an empty array when nothing is due. Throws the database's errors.
 */
export async function claimDueInboxEvents(db: Db, owner: string, now: Date, leaseMs: number, limit: number): Promise<ClaimedInboxEvent[]> {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`claim limit must be a positive integer, got ${limit}`);
  const leaseExpiresAt = new Date(now.getTime() + leaseMs);
  const driver = driverOf(db);
  const { sql, params } = claimStatement(driver.dialect, owner, now, leaseExpiresAt, limit);
  const rows = await driver.all<ClaimedRow>(sql, params);
  return rows
    .map((row) => claimedOf(row, leaseExpiresAt))
    .sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * Claims the next due inbox event for `owner` under a lease of `leaseMs`: {@link claimDueInboxEvents}
 * with a limit of one. Returns the claimed event, or null when nothing is due.
 */
export async function claimNextInboxEvent(db: Db, owner: string, now: Date, leaseMs: number): Promise<ClaimedInboxEvent | null> {
  const [claimed] = await claimDueInboxEvents(db, owner, now, leaseMs, 1);
  return claimed ?? null;
}

/**
 * Gives a claimed event back without an attempt counted (a worker stopping before it started on it):
 * status `received`, due now, lease cleared. Only the lease holder's release matches. Returns true when
 * released.
 */
export async function releaseInboxLease(db: Db, id: string, owner: string, now: Date): Promise<boolean> {
  const released = await driverOf(db).all<{ id: string }>(
    `UPDATE "WebhookEvent" SET "status" = 'received', "leaseOwner" = NULL, "leaseExpiresAt" = NULL, "nextAttemptAt" = ?, "dueAt" = ?, "attempts" = "attempts" - 1 WHERE "id" = ? AND "status" = 'processing' AND "leaseOwner" = ? RETURNING "id"`,
    [now, now, id, owner],
  );
  return released.length === 1;
}
