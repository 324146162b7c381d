import type { Db, Tx } from "@/lib/db/client";
import { driverOf, type SqlSession, type SqlValue } from "@/lib/db/driver";
import { newRowId } from "@/lib/db/row-id";
import { notifyWork } from "@/lib/jobs/signals";
import { formatEventKey, type EventKey } from "@/lib/core/event-key";
import type { ApplyFailure } from "@/lib/core/failures";
import { reasonColumns, type Because } from "@/lib/reasons/reason-codes";

/** What a dead letter needs to be retried later through the same core. */
export interface DeadLetterInput {
  /** The organization whose endpoint received the event (its members triage it). */
  organizationId: string;
  key: EventKey;
  endpoint: string;
  eventType: string;
  bodyHash: string;
  /** The label of the secret that verified it (never a value): a retry keeps it, so a demo-signed event stays refused. */
  secretLabel?: string | null;
  /** The normalised event (JSON), never the raw body. */
  payload: string;
  orderId?: string | null;
  failure: Pick<ApplyFailure, "category" | "reason" | "reasonRef" | "retryable" | "nextAction">;
  /** Failed attempts this record stands for (default 1; the inbox worker passes the event's attempts). */
  attempts?: number;
  /** When the first of those attempts failed (default `now`). */
  firstFailedAt?: Date;
}

/** The dead-letter upsert's statement and values: one row per event and body (see {@link upsertDeadLetter}). */
function deadLetterUpsert(input: DeadLetterInput, now: Date): { sql: string; params: SqlValue[] } {
  const failure = input.failure;
  const { reasonCode, reasonParams } = reasonColumns(failure.reasonRef);
  return {
    sql: `INSERT INTO "DeadLetter" ("id", "organizationId", "dedupeKey", "provider", "endpoint", "account", "livemode", "eventId", "eventType", "orderId", "bodyHash", "secretLabel", "payload",
       "category", "reason", "reasonCode", "reasonParams", "retryable", "attempts", "firstFailedAt", "lastFailedAt", "nextAction", "status")
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'open')
     ON CONFLICT ("dedupeKey") DO UPDATE SET "category" = excluded."category", "reason" = excluded."reason", "reasonCode" = excluded."reasonCode", "reasonParams" = excluded."reasonParams", "retryable" = excluded."retryable",
       "nextAction" = excluded."nextAction", "orderId" = excluded."orderId", "lastFailedAt" = excluded."lastFailedAt",
       "attempts" = "DeadLetter"."attempts" + excluded."attempts", "status" = 'open', "resolution" = NULL, "resolutionCode" = NULL, "resolutionParams" = NULL, "resolvedAt" = NULL, "resolvedBy" = NULL`,
    params: [
      newRowId(now),
      input.organizationId,
      `${formatEventKey(input.key)}:${input.bodyHash}`,
      input.key.provider,
      input.endpoint,
      input.key.account,
      input.key.livemode,
      input.key.eventId,
      input.eventType,
      input.orderId ?? null,
      input.bodyHash,
      input.secretLabel ?? null,
      input.payload,
      failure.category,
      failure.reason.slice(0, 500),
      reasonCode,
      reasonParams,
      failure.retryable,
      input.attempts ?? 1,
      input.firstFailedAt ?? now,
      now,
      failure.nextAction,
    ],
  };
}

/**
 * Records (or updates) the dead letter of one delivery, on its own (autocommit: one statement is
 * atomic, so two first failures at once cannot both create a row): repeated failures of the same event
 * and body update one row (attempts + `input.attempts`, last failure, reason) and reopen it if it was
 * resolved. Returns its id. Throws the database's errors.
 */
export async function recordDeadLetter(db: Db, input: DeadLetterInput, now = new Date()): Promise<string> {
  const { sql, params } = deadLetterUpsert(input, now);
  const [row] = await driverOf(db).all<{ id: string }>(`${sql} RETURNING "id"`, params);
  // An open dead letter is an alert (lib/alerts): this process's evaluator looks now, not at its next interval.
  notifyWork("alerts");
  return row.id;
}

/**
 * {@link recordDeadLetter} in the caller's driver transaction (the inbox worker's batch):
 * `INSERT ... ON CONFLICT ("dedupeKey") DO UPDATE`, so a repeat of the same event and body updates its
 * one row (attempts added, last failure, reason) and reopens it if it was resolved.
 */
export async function upsertDeadLetter(session: SqlSession, input: DeadLetterInput, now: Date): Promise<void> {
  const { sql, params } = deadLetterUpsert(input, now);
  await session.run(sql, params);
  // The evaluator waits a moment before it looks (lib/alerts/alert-evaluator.ts): this transaction commits first.
  notifyWork("alerts");
}

/**
 * Marks the open dead letter of an event resolved because a later attempt applied it, in the apply's
 * own driver transaction; `resolution` is the English sentence with its code. Returns how many were
 * resolved (0 or 1: one row per event and body).
 */
export async function resolveDeadLettersOfEvent(session: SqlSession, key: EventKey, bodyHash: string, resolution: Because, now: Date): Promise<number> {
  const columns = reasonColumns(resolution.reasonRef);
  return session.run(`UPDATE "DeadLetter" SET "status" = 'resolved', "resolution" = ?, "resolutionCode" = ?, "resolutionParams" = ?, "resolvedBy" = 'system', "resolvedAt" = ? WHERE "dedupeKey" = ? AND "status" = 'open'`, [
    resolution.reason,
    columns.reasonCode,
    columns.reasonParams,
    now,
    `${formatEventKey(key)}:${bodyHash}`,
  ]);
}

/**
 * Resolves an open dead letter with a resolution and who resolved it (a person's e-mail, or `system`).
 * `resolution` is a person's note (kept as written, at most 500 characters) or a system reason with its
 * code. Runs with `client` (a Prisma transaction when an audit row goes with it). Returns false when
 * the dead letter is not open (resolved meanwhile, or no such id in the organization).
 */
export async function resolveDeadLetter(client: Db | Tx, organizationId: string, id: string, resolution: { note: string } | Because, resolvedBy: string, now: Date): Promise<boolean> {
  const columns =
    "note" in resolution ? { resolution: resolution.note.slice(0, 500) } : { resolution: resolution.reason, ...renameReasonColumns(reasonColumns(resolution.reasonRef)) };
  const { count } = await client.deadLetter.updateMany({ where: { id, organizationId, status: "open" }, data: { status: "resolved", ...columns, resolvedBy, resolvedAt: now } });
  return count === 1;
}

/** The reason columns under the dead letter's resolution names. */
function renameReasonColumns(columns: { reasonCode: string | null; reasonParams: string | null }) {
  return { resolutionCode: columns.reasonCode, resolutionParams: columns.reasonParams };
}

/**
 * Names the person on a dead letter that the apply resolved as `system` while that person's retry ran
 * (the apply does not know who asked). Only a row still resolved by `system` changes.
 */
export async function nameDeadLetterResolver(db: Db, organizationId: string, id: string, email: string): Promise<void> {
  await db.deadLetter.updateMany({ where: { id, organizationId, status: "resolved", resolvedBy: "system" }, data: { resolvedBy: email } });
}

/** Which of these dead letters are open, read in the caller's driver transaction. */
export async function openDeadLetterIds(session: SqlSession, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await session.all<{ id: string }>(`SELECT "id" FROM "DeadLetter" WHERE "id" IN (${ids.map(() => "?").join(", ")}) AND "status" = 'open'`, [...ids]);
  return rows.map((row) => row.id);
}

/**
 * {@link nameDeadLetterResolver} for several dead letters in the caller's driver transaction (a replay's
 * apply resolves its events' dead letters as `system`, then names the person who applied it). Only rows
 * still resolved by `system` change. Returns how many changed.
 */
export async function nameDeadLetterResolverIn(session: SqlSession, ids: readonly string[], email: string): Promise<number> {
  if (ids.length === 0) return 0;
  return session.run(`UPDATE "DeadLetter" SET "resolvedBy" = ? WHERE "id" IN (${ids.map(() => "?").join(", ")}) AND "status" = 'resolved' AND "resolvedBy" = 'system'`, [email, ...ids]);
}

/** Sets (or clears, with null) the owner of an open dead letter, with `client` (a transaction with its audit row). Returns false when it is not open. */
export async function assignDeadLetter(client: Db | Tx, organizationId: string, id: string, owner: string | null): Promise<boolean> {
  const { count } = await client.deadLetter.updateMany({ where: { id, organizationId, status: "open" }, data: { owner } });
  return count === 1;
}

/**
 * Notes on an open dead letter that `actor` re-queued its event at `now` (its next action: the worker
 * applies it), and makes `actor` its owner when it had none; in the caller's driver session.
 */
export async function noteDeadLetterRequeued(session: SqlSession, id: string, actor: string, now: Date): Promise<void> {
  await session.run(`UPDATE "DeadLetter" SET "nextAction" = ?, "owner" = COALESCE("owner", ?) WHERE "id" = ? AND "status" = 'open'`, [
    `re-queued by ${actor} at ${now.toISOString()}; the worker applies it`,
    actor,
    id,
  ]);
}

/**
 * Empties the payload of these dead letters (`payload = ""`, `purgedAt = now`), each only while it is
 * resolved, unpurged, and its last failure and resolution are before `cutoff` (one reopened meanwhile
 * keeps its payload: a retry re-runs it). Returns how many were emptied.
 */
export async function purgeDeadLetterPayloads(db: Db, ids: readonly string[], cutoff: Date, now: Date): Promise<number> {
  if (ids.length === 0) return 0;
  const { count } = await db.deadLetter.updateMany({
    where: { id: { in: [...ids] }, purgedAt: null, status: "resolved", lastFailedAt: { lt: cutoff }, OR: [{ resolvedAt: null }, { resolvedAt: { lt: cutoff } }] },
    data: { payload: "", purgedAt: now },
  });
  return count;
}
