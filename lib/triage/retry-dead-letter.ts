import { because, readStoredReason, reasonRef, type Because, type ReasonRef } from "@/lib/reasons/reason-codes";
import { notifyWork } from "@/lib/jobs/signals";
import type { Db } from "@/lib/db/client";
import { driverOf } from "@/lib/db/driver";
import { noteDeadLetterRequeued, resolveDeadLetter } from "@/lib/dead-letters/dead-letters";
import { requeueEvent } from "@/lib/events/webhook-events";
import { routeConnectEvent } from "@/lib/endpoints/connect-routing";
import { resolveAnyEndpoint } from "@/lib/endpoints/data-endpoints";
import { EndpointConfigError, type ServedEndpoint } from "@/lib/endpoints/endpoints";
import type { VerifiedDelivery } from "@/lib/ingest/delivery";
import { processInline } from "@/lib/ingest/process-inline";
import { storeInInbox } from "@/lib/ingest/store-inbox-event";
import type { NormalizedEvent } from "@/lib/core/effect";

/**
 * What a retry did:
 * - requeued: the stored inbox event is due again; a worker applies it (and resolves the dead letter);
 * - applied / duplicate / ignored: the stored normalised event went through the inline core now;
 * - dead_lettered: it failed again (the dead letter's attempts and last failure were updated);
 * - already_applied: the event had been applied meanwhile; the dead letter is now resolved;
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
  /** The English sentence (CLI, audit, logs). */
  reason: string;
  /** The reason's code and parameters, for the dashboard and the CLI in the reader's locale. */
  reasonRef?: ReasonRef;
}

/** A result with its reason's sentence and code. */
function resultOf(id: string, outcome: RetryOutcome, why: Because | { reason: string; reasonRef?: ReasonRef }): RetryResult {
  return { id, outcome, reason: why.reason, ...(why.reasonRef ? { reasonRef: why.reasonRef } : {}) };
}

/**
 * Retries one dead letter (CLI `npm run dead-letters -- retry <id>`, and the dashboard). Never applies
 * an event twice: an inbox event is re-queued under its lease rules; an inline-mode dead letter, whose
 * event row was rolled back, re-runs its stored normalised payload through the same core, where the
 * UNIQUE event key and the ledger's business keys hold. A conflict (another body under a stored id) is
 * not retryable: a person compares the bodies. `actor` names who asked (stored on the dead letter).
 * Only the organization's dead letters are found.
 */
export async function retryDeadLetter(db: Db, organizationId: string, id: string, actor: string, now = new Date()): Promise<RetryResult> {
  // Another organization's dead letter is as unknown as an id that does not exist.
  const letter = await db.deadLetter.findFirst({ where: { id, organizationId } });
  if (!letter) return resultOf(id, "not_found", because("retry_not_found", { id }));
  if (letter.status !== "open") {
    // A system resolution keeps its code; a person's note is quoted as written.
    const resolution = letter.resolution ? (readStoredReason(letter.resolutionCode, letter.resolutionParams) ?? letter.resolution) : undefined;
    return resultOf(id, "already_resolved", resolution ? because("retry_already_resolved_as", { status: letter.status, resolution }) : because("retry_already_resolved", { status: letter.status }));
  }
  if (letter.category === "conflict") return resultOf(id, "not_retryable", because("retry_conflict", {}));
  const key = { provider: letter.provider, account: letter.account, livemode: letter.livemode, eventId: letter.eventId };
  const stored = await db.webhookEvent.findUnique({ where: { provider_account_livemode_eventId: key }, select: { id: true, status: true, bodyHash: true } });

  if (stored && stored.bodyHash !== letter.bodyHash) {
    return resultOf(id, "not_retryable", because("retry_body_differs", { eventId: letter.eventId }));
  }
  if (stored && (stored.status === "processed" || stored.status === "ignored")) {
    await resolveDeadLetter(db, organizationId, id, because("event_already_done", { status: stored.status }), actor, now);
    return resultOf(id, "already_applied", because("retry_event_was_done", { eventId: letter.eventId, status: stored.status }, [reasonRef("dead_letter_resolved", {})]));
  }
  if (stored && (stored.status === "received" || stored.status === "processing")) {
    return resultOf(id, "requeued", because("retry_already_queued", { eventId: letter.eventId, status: stored.status }));
  }
  if (stored) {
    // dead or failed: due again now, with a fresh attempt budget; the dead letter stays open until it applies.
    const requeued = await driverOf(db).transaction(async (session) => {
      const done = await requeueEvent(session, stored.id, stored.status, now);
      if (done) await noteDeadLetterRequeued(session, id, actor, now);
      return done;
    });
    if (requeued) notifyWork("inbox");
    return resultOf(id, "requeued", because(requeued ? "retry_requeued" : "retry_requeued_concurrently", { eventId: letter.eventId }));
  }

  // Not stored: an inline-mode failure rolled the event back (or it was refused before storing).
  let endpoint: ServedEndpoint | undefined;
  try {
    endpoint = await resolveAnyEndpoint(db, letter.endpoint, now);
  } catch (error) {
    if (!(error instanceof EndpointConfigError)) throw error;
    return resultOf(id, "not_retryable", because("retry_endpoint_misconfigured", { endpoint: letter.endpoint }));
  }
  let event: NormalizedEvent;
  try {
    event = JSON.parse(letter.payload) as NormalizedEvent;
  } catch {
    return resultOf(id, "not_retryable", because("retry_payload_not_json", {}));
  }
  // A Connect endpoint's event is stored as its connected account's organization's (as at receipt); a
  // binding moved or removed since leaves it with another scope than the letter's: not retried here.
  if (endpoint) endpoint = routeConnectEvent(endpoint, event.account);
  if (!endpoint || endpoint.provider !== letter.provider || endpoint.account !== letter.account || endpoint.organizationId !== letter.organizationId) {
    return resultOf(id, "not_retryable", because("retry_endpoint_gone", { endpoint: letter.endpoint, provider: letter.provider, account: letter.account }));
  }
  // The original delivery's secret label goes with it: the core refuses one signed with a public demo secret outside demo mode.
  const delivery: VerifiedDelivery = { endpoint, event, bodyHash: letter.bodyHash, source: "retry", ...(letter.secretLabel ? { secretLabel: letter.secretLabel } : {}) };
  const result = endpoint.mode === "inbox" ? await storeInInbox(db, delivery, now) : await processInline(db, delivery);
  const outcome: RetryOutcome =
    result.outcome === "accepted"
      ? "requeued"
      : result.outcome === "applied" || result.outcome === "duplicate" || result.outcome === "ignored" || result.outcome === "dead_lettered"
        ? result.outcome
        : "rejected";
  if (outcome === "requeued") {
    await driverOf(db).transaction((session) => noteDeadLetterRequeued(session, id, actor, now));
  }
  return resultOf(id, outcome, result);
}
