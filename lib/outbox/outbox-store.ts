// The OutboxMessage table's one writer: a paid order's message queued in the apply's transaction (or an
// alert's notice to a channel, in the transaction that opened or resolved the incident), the
// dispatcher's claim, lease and send outcome, and a person's resend or resolution. Nothing else in
// lib/ writes this table (npm run lint:arch, money-path-writers).
import type { Db, Tx } from "@/lib/db/client";
import { databaseKind } from "@/lib/db/database-kind";
import type { SqlSession } from "@/lib/db/driver";

/** An outbox message this dispatcher now holds (status `sending`). `attempts` already counts this send. */
export interface ClaimedOutboxMessage {
  id: string;
  idempotencyKey: string;
  orderId: string;
  target: string;
  body: string;
  attempts: number;
  /** The alert channel it goes to (lib/alerts), or null for a fulfilment message. */
  channelId: string | null;
}

/** Why a message left in `sending` becomes uncertain: shown to the operator with it. */
export const ABANDONED_SEND_REASON = "the dispatcher stopped while sending (crash or kill): the target may have received it; not re-sent automatically";

/**
 * A message still `sending` after its lease expired belongs to a dispatcher that died between sending
 * and recording the answer: the target may have acted, so it becomes `uncertain` (shown for
 * reconciliation), never re-sent blindly. One conditional UPDATE. Returns how many were marked.
 */
export async function markAbandonedSendsUncertain(db: Db, now: Date): Promise<number> {
  const { count } = await db.outboxMessage.updateMany({
    where: { status: "sending", leaseExpiresAt: { lte: now } },
    data: { status: "uncertain", leaseOwner: null, leaseExpiresAt: null, lastError: ABANDONED_SEND_REASON },
  });
  return count;
}

/**
 * Claims the next due `pending` message for `owner` (status `sending`, lease of `leaseMs`, attempts + 1).
 * Returns it, or null when none is due. The one place that decides how outbox work is claimed, one
 * statement per database like the inbox claim (see claimNextInboxEvent): SQLite one guarded UPDATE per
 * candidate, PostgreSQL `FOR UPDATE SKIP LOCKED`.
 */
export async function claimNextOutboxMessage(db: Db, owner: string, now: Date, leaseMs: number): Promise<ClaimedOutboxMessage | null> {
  return databaseKind(db) === "postgresql" ? claimOutboxWithSkipLocked(db, owner, now, leaseMs) : claimOutboxWithGuardedUpdate(db, owner, now, leaseMs);
}

/** PostgreSQL's outbox claim: the first due pending message no other transaction has locked, taken in one statement. */
export async function claimOutboxWithSkipLocked(db: Db, owner: string, now: Date, leaseMs: number): Promise<ClaimedOutboxMessage | null> {
  const rows = await db.$queryRaw<ClaimedOutboxMessage[]>`
    WITH next AS (
      SELECT "id" FROM "OutboxMessage"
      WHERE "status" = 'pending' AND "nextAttemptAt" <= ${now}
      ORDER BY "nextAttemptAt" ASC, "createdAt" ASC
      LIMIT 1
      FOR UPDATE SKIP LOCKED
    )
    UPDATE "OutboxMessage" AS message
    SET "status" = 'sending', "leaseOwner" = ${owner}, "leaseExpiresAt" = ${new Date(now.getTime() + leaseMs)}, "attempts" = message."attempts" + 1, "updatedAt" = ${now}
    FROM next
    WHERE message."id" = next."id"
    RETURNING message."id", message."idempotencyKey", message."orderId", message."target", message."body", message."attempts", message."channelId"`;
  return rows.length === 1 ? rows[0] : null;
}

/** SQLite's outbox claim: one guarded UPDATE per candidate. */
export async function claimOutboxWithGuardedUpdate(db: Db, owner: string, now: Date, leaseMs: number): Promise<ClaimedOutboxMessage | null> {
  const candidates = await db.outboxMessage.findMany({
    where: { status: "pending", nextAttemptAt: { lte: now } },
    orderBy: [{ nextAttemptAt: "asc" }, { createdAt: "asc" }],
    take: 8,
    select: { id: true, attempts: true },
  });
  for (const candidate of candidates) {
    const { count } = await db.outboxMessage.updateMany({
      where: { id: candidate.id, status: "pending", attempts: candidate.attempts },
      data: { status: "sending", leaseOwner: owner, leaseExpiresAt: new Date(now.getTime() + leaseMs), attempts: { increment: 1 } },
    });
    if (count !== 1) continue;
    const row = await db.outboxMessage.findUnique({
      where: { id: candidate.id },
      select: { id: true, idempotencyKey: true, orderId: true, target: true, body: true, attempts: true, channelId: true },
    });
    if (row) return row;
  }
  return null;
}

/** A new outbox message: its UNIQUE idempotency key, the order, the target URL and the JSON body. */
export interface NewOutboxMessage {
  id: string;
  organizationId: string;
  idempotencyKey: string;
  orderId: string;
  target: string;
  body: string;
  /** The alert channel (lib/alerts) it goes to; absent for a fulfilment message. */
  channelId?: string;
}

/**
 * Inserts a `pending` message due at `now` in the caller's driver transaction (the apply that made the
 * order paid: the message exists if and only if the payment was applied). Throws the database's errors
 * (a second message under one idempotency key violates its UNIQUE key and rolls the transaction back).
 */
export async function insertOutboxMessage(session: SqlSession, message: NewOutboxMessage, now: Date): Promise<void> {
  await session.run(
    `INSERT INTO "OutboxMessage" ("id", "organizationId", "idempotencyKey", "orderId", "target", "body", "channelId", "status", "attempts", "nextAttemptAt", "createdAt", "updatedAt") VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?)`,
    [message.id, message.organizationId, message.idempotencyKey, message.orderId, message.target, message.body, message.channelId ?? null, now, now, now],
  );
}

/** What a send came to, as recorded on its message. */
export interface SendRecord {
  status: "sent" | "pending" | "failed" | "uncertain";
  lastStatusCode: number | null;
  /** Null once sent; otherwise why (at most 500 characters kept). */
  lastError: string | null;
  nextAttemptAt: Date;
}

/**
 * Records a send's outcome on a message `owner` holds (status `sending` under its lease) and releases
 * the lease. Returns false when the lease was lost meanwhile (the message was marked uncertain): that
 * verdict stands.
 */
export async function recordSendOutcome(db: Db, id: string, owner: string, record: SendRecord): Promise<boolean> {
  const { count } = await db.outboxMessage.updateMany({
    where: { id, status: "sending", leaseOwner: owner },
    data: { status: record.status, lastStatusCode: record.lastStatusCode, lastError: record.lastError?.slice(0, 500) ?? null, nextAttemptAt: record.nextAttemptAt, leaseOwner: null, leaseExpiresAt: null },
  });
  return count === 1;
}

/**
 * A person's settlement of an uncertain or failed message: `resend` makes it `pending` and due at `now`
 * (same idempotency key), `resolve` closes it; `note` (at most 500 characters kept) says who and why.
 * Returns false when the message is in neither state.
 */
export async function settleOutboxRow(db: Db, id: string, action: "resend" | "resolve", note: string, now: Date): Promise<boolean> {
  const text = note.slice(0, 500);
  const { count } = await db.outboxMessage.updateMany({
    where: { id, status: { in: ["uncertain", "failed"] } },
    data: action === "resend" ? { status: "pending", nextAttemptAt: now, note: text } : { status: "resolved", note: text },
  });
  return count === 1;
}

/** Resolves an uncertain message with `note` (what the target said) with `client` (a transaction with its audit row); it is never re-sent. False when not uncertain. */
export async function resolveUncertainOutboxMessage(client: Db | Tx, organizationId: string, id: string, note: string): Promise<boolean> {
  const { count } = await client.outboxMessage.updateMany({ where: { id, organizationId, status: "uncertain" }, data: { status: "resolved", note: note.slice(0, 500) } });
  return count === 1;
}

/**
 * Removes an order's outbox messages so its stored events can be applied again from nothing (a credit
 * applied again queues the order's one fulfilment message again): ONLY inside a transaction (or
 * savepoint) that is rolled back, by the books' rebuild (lib/verification).
 */
export async function clearOutboxForRebuild(session: SqlSession, organizationId: string, orderId: string): Promise<void> {
  await session.run(`DELETE FROM "OutboxMessage" WHERE "organizationId" = ? AND "orderId" = ?`, [organizationId, orderId]);
}
