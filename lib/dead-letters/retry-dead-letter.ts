import type { Db } from "@/lib/db/client";
import { resolveEndpoint } from "@/lib/endpoints/endpoints";
import { processInline } from "@/lib/events/process-inline";
import type { NormalizedEvent } from "@/lib/webhooks/types";

/** What a retry did: applied (resolved), already_applied (the event was stored meanwhile: resolved), failed_again (still open), or could not run. */
export type RetryOutcome =
  | { kind: "applied" | "already_applied" | "failed_again"; httpStatus: number; reason: string }
  | { kind: "not_found" | "not_open" | "unavailable"; reason: string };

/**
 * Re-runs a dead letter's stored normalised event (DeadLetter.payload, never a raw body) through the
 * inline core, exactly as a new delivery of it: the event key is inserted first, so a retry can never
 * apply twice. Applied: the core resolves the dead letter in the same transaction. Failed again: the
 * core's dead-letter upsert adds one attempt and keeps it open with the new reason. Already stored with
 * this body (a duplicate): the effect exists, so the dead letter is resolved as such. 503: left as is.
 */
export async function retryDeadLetter(db: Db, id: string): Promise<RetryOutcome> {
  const letter = await db.deadLetter.findUnique({ where: { id } });
  if (!letter) return { kind: "not_found", reason: `dead letter ${id} not found` };
  if (letter.status !== "open") return { kind: "not_open", reason: `dead letter ${id} is ${letter.status}` };
  const endpoint = resolveEndpoint(letter.endpoint);
  if (!endpoint) return { kind: "unavailable", reason: `endpoint ${letter.endpoint} is no longer configured` };
  const event = JSON.parse(letter.payload) as NormalizedEvent;
  const result = await processInline(db, { endpoint, event, bodyHash: letter.bodyHash, source: "retry" });
  if (result.httpStatus === 503) return { kind: "unavailable", reason: result.reason };
  if (result.outcome === "duplicate") {
    await db.deadLetter.updateMany({
      where: { id, status: "open" },
      data: { status: "resolved", resolution: `retry found the event already stored: ${result.reason}`.slice(0, 500), resolvedBy: "system", resolvedAt: new Date() },
    });
    return { kind: "already_applied", httpStatus: result.httpStatus, reason: result.reason };
  }
  if (result.httpStatus === 200) return { kind: "applied", httpStatus: 200, reason: result.reason };
  return { kind: "failed_again", httpStatus: result.httpStatus, reason: result.reason };
}
