import type { Db } from "@/lib/db/client";
import { resolveEndpoint, type Endpoint } from "@/lib/endpoints/endpoints";
import { processInline } from "@/lib/events/process-inline";
import type { NormalizedEvent } from "@/lib/webhooks/types";

// Same contract as the inbox branch's retry (issue 4), so the dashboard calls either one unchanged.
// This version covers inline mode only: there is no inbox to re-queue into on this branch.

/**
 * What a retry did:
 * - applied / duplicate / ignored: the stored normalised event went through the inline core now;
 * - dead_lettered: it failed again (the dead letter's attempts and last failure were updated);
 * - already_applied: the event had been applied meanwhile; the dead letter is now resolved;
 * - requeued: (inbox mode) the worker will apply it;
 * - already_resolved, not_retryable, not_found, rejected (database unavailable): nothing changed.
 */
export type RetryOutcome =
  | "requeued"
  | "applied"
  | "duplicate"
  | "ignored"
  | "dead_lettered"
  | "already_applied"
  | "already_resolved"
  | "not_retryable"
  | "not_found"
  | "rejected";

export interface RetryResult {
  id: string;
  outcome: RetryOutcome;
  reason: string;
}

/**
 * Retries one dead letter by re-running its stored normalised event (DeadLetter.payload, never a raw
 * body) through the inline core, exactly like a new delivery: the UNIQUE event key is inserted first and
 * the ledger's business keys hold, so a retry can never apply twice. Applied: the core resolves the
 * dead letter in the same transaction. Failed again: the core's upsert adds one attempt and keeps it
 * open. A conflict (another body under a stored id) is not retried: a person compares the bodies.
 * `actor` names who asked (stored when the retry resolves the dead letter).
 */
export async function retryDeadLetter(db: Db, id: string, actor: string, now = new Date()): Promise<RetryResult> {
  const letter = await db.deadLetter.findUnique({ where: { id } });
  if (!letter) return { id, outcome: "not_found", reason: `no dead letter ${id}` };
  if (letter.status !== "open") return { id, outcome: "already_resolved", reason: `dead letter already ${letter.status}${letter.resolution ? `: ${letter.resolution}` : ""}` };
  if (letter.category === "conflict") {
    return { id, outcome: "not_retryable", reason: "a conflict is not retried: compare both bodies with the provider; the stored event was kept" };
  }
  const key = { provider: letter.provider, account: letter.account, livemode: letter.livemode, eventId: letter.eventId };
  const stored = await db.webhookEvent.findUnique({ where: { provider_account_livemode_eventId: key }, select: { status: true, bodyHash: true } });
  if (stored && stored.bodyHash !== letter.bodyHash) {
    return { id, outcome: "not_retryable", reason: `another body is stored under event ${letter.eventId}; compare both bodies with the provider` };
  }
  if (stored) {
    await db.deadLetter.updateMany({
      where: { id, status: "open" },
      data: { status: "resolved", resolution: `event already ${stored.status}; nothing to retry`, resolvedBy: actor, resolvedAt: now },
    });
    return { id, outcome: "already_applied", reason: `event ${letter.eventId} was already ${stored.status}; dead letter resolved` };
  }

  let endpoint: Endpoint | undefined;
  try {
    endpoint = resolveEndpoint(letter.endpoint);
  } catch {
    return { id, outcome: "not_retryable", reason: `endpoint ${letter.endpoint} is misconfigured; fix its configuration, then retry` };
  }
  if (!endpoint || endpoint.provider !== letter.provider || endpoint.account !== letter.account) {
    return { id, outcome: "not_retryable", reason: `endpoint ${letter.endpoint} is no longer configured for ${letter.provider}/${letter.account}` };
  }
  let event: NormalizedEvent;
  try {
    event = JSON.parse(letter.payload) as NormalizedEvent;
  } catch {
    return { id, outcome: "not_retryable", reason: "stored payload is not valid JSON" };
  }
  const result = await processInline(db, { endpoint, event, bodyHash: letter.bodyHash, source: "retry" });
  const outcome: RetryOutcome =
    result.outcome === "applied" || result.outcome === "duplicate" || result.outcome === "ignored" || result.outcome === "dead_lettered" ? result.outcome : "rejected";
  return { id, outcome, reason: result.reason };
}
