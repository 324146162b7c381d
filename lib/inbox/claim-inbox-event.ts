import type { Db } from "@/lib/db/client";
import { driverOf, type SqlValue } from "@/lib/db/driver";
import { sqlDate, sqliteBoolean } from "@/lib/db/sql-values";

/** An inbox event this worker now holds under lease. `attempts` already counts this attempt. */
export interface ClaimedInboxEvent {
  id: string;
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

const RETURNED = ["id", "provider", "endpoint", "account", "livemode", "eventId", "type", "bodyHash", "orderId", "paymentKey", "payload", "secretLabel", "attempts", "receivedAt", "firstFailedAt"];

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
  const { count } = await db.webhookEvent.updateMany({
    where: { id, status: "processing", leaseOwner: owner },
    data: { status: "received", leaseOwner: null, leaseExpiresAt: null, nextAttemptAt: now, dueAt: now, attempts: { decrement: 1 } },
  });
  return count === 1;
}
