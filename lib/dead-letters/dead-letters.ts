import type { Db, Tx } from "@/lib/db/client";
import { formatEventKey, type EventKey } from "@/lib/core/event-key";
import type { ApplyFailure } from "@/lib/core/failures";

/** What a dead letter needs to be retried later through the same core. */
export interface DeadLetterInput {
  key: EventKey;
  endpoint: string;
  eventType: string;
  bodyHash: string;
  /** The normalised event (JSON), never the raw body. */
  payload: string;
  orderId?: string | null;
  failure: Pick<ApplyFailure, "category" | "reason" | "retryable" | "nextAction">;
  /** Failed attempts this record stands for (default 1; the inbox worker passes the event's attempts). */
  attempts?: number;
  /** When the first of those attempts failed (default `now`). */
  firstFailedAt?: Date;
}

/**
 * Records (or updates) the dead letter of one delivery: repeated failures of the same event and body
 * update one row (attempts + `input.attempts`, last failure, reason) and reopen it if it was resolved.
 * Returns its id.
 * Throws the database's errors.
 */
export async function recordDeadLetter(client: Db | Tx, input: DeadLetterInput, now = new Date()): Promise<string> {
  const dedupeKey = `${formatEventKey(input.key)}:${input.bodyHash}`;
  const fields = {
    category: input.failure.category,
    reason: input.failure.reason.slice(0, 500),
    retryable: input.failure.retryable,
    nextAction: input.failure.nextAction,
    orderId: input.orderId ?? null,
    lastFailedAt: now,
  };
  for (let attempt = 0; ; attempt++) {
    try {
      const row = await client.deadLetter.upsert({
        where: { dedupeKey },
        create: {
          dedupeKey,
          provider: input.key.provider,
          account: input.key.account,
          livemode: input.key.livemode,
          eventId: input.key.eventId,
          endpoint: input.endpoint,
          eventType: input.eventType,
          bodyHash: input.bodyHash,
          payload: input.payload,
          firstFailedAt: input.firstFailedAt ?? now,
          attempts: input.attempts ?? 1,
          ...fields,
        },
        update: { ...fields, attempts: { increment: input.attempts ?? 1 }, status: "open", resolution: null, resolvedAt: null, resolvedBy: null },
        select: { id: true },
      });
      return row.id;
    } catch (error) {
      // Two first failures at once: the loser's create hits the UNIQUE key; its update then succeeds.
      if (attempt >= 2) throw error;
    }
  }
}

/** Marks the open dead letters of an event resolved because a later attempt applied it (same transaction). */
export async function resolveDeadLettersOfEvent(tx: Tx, key: EventKey, bodyHash: string, resolution: string, now = new Date()): Promise<number> {
  const { count } = await tx.deadLetter.updateMany({
    where: { dedupeKey: `${formatEventKey(key)}:${bodyHash}`, status: "open" },
    data: { status: "resolved", resolution, resolvedBy: "system", resolvedAt: now },
  });
  return count;
}
