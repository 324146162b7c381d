import type { Db } from "@/lib/db/client";
import { driverOf, type SqlSession, type SqlValue } from "@/lib/db/driver";
import { newRowId } from "@/lib/db/row-id";
import { formatEventKey, type EventKey } from "@/lib/core/event-key";
import type { ApplyFailure } from "@/lib/core/failures";
import { reasonColumns, type Because } from "@/lib/reasons/reason-codes";

/** What a dead letter needs to be retried later through the same core. */
export interface DeadLetterInput {
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
    sql: `INSERT INTO "DeadLetter" ("id", "dedupeKey", "provider", "endpoint", "account", "livemode", "eventId", "eventType", "orderId", "bodyHash", "secretLabel", "payload",
       "category", "reason", "reasonCode", "reasonParams", "retryable", "attempts", "firstFailedAt", "lastFailedAt", "nextAction", "status")
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'open')
     ON CONFLICT ("dedupeKey") DO UPDATE SET "category" = excluded."category", "reason" = excluded."reason", "reasonCode" = excluded."reasonCode", "reasonParams" = excluded."reasonParams", "retryable" = excluded."retryable",
       "nextAction" = excluded."nextAction", "orderId" = excluded."orderId", "lastFailedAt" = excluded."lastFailedAt",
       "attempts" = "DeadLetter"."attempts" + excluded."attempts", "status" = 'open', "resolution" = NULL, "resolutionCode" = NULL, "resolutionParams" = NULL, "resolvedAt" = NULL, "resolvedBy" = NULL`,
    params: [
      newRowId(now),
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
