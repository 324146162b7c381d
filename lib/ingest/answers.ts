import type { Db } from "@/lib/db/client";
import { recordDeadLetter } from "@/lib/dead-letters/dead-letters";
import { recordDecisionSafely } from "@/lib/decisions/record-decision";
import { decisionBaseOf, orderIdOf, type ProcessResult, type VerifiedDelivery } from "@/lib/ingest/delivery";
import { isSameEvent, type EventKey } from "@/lib/core/event-key";
import { ApplyFailure } from "@/lib/core/failures";
import { logger } from "@/lib/log/logger";
import { errorMessage } from "@/lib/log/error-message";
import { because, type Because } from "@/lib/reasons/reason-codes";

/**
 * The fixed answers of the delivery path, by code: HTTP status, outcome and reason. A sender retries
 * on 5xx (Stripe, Standard Webhooks), so every failure of ours is a 5xx and never looks permanent.
 */
export const FIXED_ANSWERS = {
  /** The database could not be reached before anything was decided. */
  database_unavailable: { httpStatus: 503, outcome: "rejected", ...because("database_unavailable", {}) },
  /** The event could not be stored (or its stored copy read): nothing was acknowledged. */
  not_stored: { httpStatus: 503, outcome: "rejected", ...because("not_stored", {}) },
  endpoint_misconfigured: { httpStatus: 500, outcome: "rejected", ...because("endpoint_misconfigured", {}) },
  unknown_endpoint: { httpStatus: 404, outcome: "rejected", ...because("unknown_endpoint", {}) },
  /** A data endpoint its organization disabled: a temporary refusal, so the provider keeps the event and retries. */
  endpoint_disabled: { httpStatus: 503, outcome: "rejected", ...because("endpoint_disabled", {}) },
} as const satisfies Record<string, ProcessResult>;

/** A delivery's answer as the provider sees it: the status and the JSON body `{outcome, reason}`. */
export function webhookAnswer(result: Pick<ProcessResult, "httpStatus" | "outcome" | "reason">): { status: number; body: { outcome: string; reason: string } } {
  return { status: result.httpStatus, body: { outcome: result.outcome, reason: result.reason } };
}

/**
 * Answers a verified delivery outside any apply transaction and writes its one decision row (the
 * delivery's provider, endpoint, event, secret label and source; `orderId` when known). A database
 * failure while writing the row is logged, never turned into another answer. Returns `answer`.
 */
export async function answerDelivery(db: Db, delivery: VerifiedDelivery, answer: ProcessResult, decision: { eventId?: string; orderId?: string } = {}): Promise<ProcessResult> {
  await recordDecisionSafely(db, {
    ...decisionBaseOf(delivery),
    ...(decision.eventId ? { eventId: decision.eventId } : {}),
    orderId: decision.orderId ?? answer.orderId ?? orderIdOf(delivery.event),
    outcome: answer.outcome,
    httpStatus: answer.httpStatus,
    reason: answer.reason,
    reasonRef: answer.reasonRef,
  });
  return answer;
}

/** The reason of a `duplicate` answer and decision row: the stored event's status, nothing changed. */
export function duplicateBecause(eventId: string, storedStatus: string): Because {
  return because("duplicate_event", { eventId, status: storedStatus });
}

/**
 * Answers a delivery whose event key is already stored (inline and inbox modes alike): the same body is
 * a duplicate (200, nothing changes, the stored status in the answer); another body under the same id
 * is a conflict (409, dead-lettered for review, the stored event kept). Returns undefined when the
 * stored row vanished (its writer rolled back): the caller retries its insert. 503 when the stored row
 * cannot be read (database busy or down): the provider's retry gets the real answer.
 */
export async function answerStoredEvent(db: Db, delivery: VerifiedDelivery, key: EventKey): Promise<ProcessResult | undefined> {
  let stored;
  try {
    stored = await db.webhookEvent.findUnique({
      where: { provider_account_livemode_eventId: key },
      select: { bodyHash: true, status: true, orderId: true },
    });
  } catch (error) {
    // The event is stored (its insert hit the key), but we cannot read it to tell duplicate from conflict.
    logger.error({ err: errorMessage(error), eventId: key.eventId }, "stored event not readable");
    return answerDelivery(db, delivery, FIXED_ANSWERS.database_unavailable);
  }
  if (!stored) return undefined;
  const orderId = stored.orderId ?? orderIdOf(delivery.event);
  if (isSameEvent(stored.bodyHash, delivery.bodyHash)) {
    const answer: ProcessResult = { httpStatus: 200, outcome: "duplicate", ...duplicateBecause(key.eventId, stored.status), orderId: stored.orderId ?? undefined, eventStatus: stored.status };
    return answerDelivery(db, delivery, answer, { orderId });
  }
  const failure = new ApplyFailure("conflict", because("event_conflict", { eventId: key.eventId }), orderId);
  return deadLetterDelivery(db, delivery, key, failure);
}

/**
 * Parks a delivery that cannot be applied: one dead letter row (updated on repeats) and one decision
 * row. Returns the answer (409/422 `dead_lettered`, or 503 when the dead letter could not be stored, so
 * the provider retries rather than the event being lost).
 */
export async function deadLetterDelivery(db: Db, delivery: VerifiedDelivery, key: EventKey, failure: ApplyFailure): Promise<ProcessResult> {
  const orderId = failure.orderId ?? orderIdOf(delivery.event);
  const decision = { eventId: key.eventId, orderId };
  try {
    await recordDeadLetter(db, {
      organizationId: delivery.endpoint.organizationId,
      key,
      endpoint: delivery.endpoint.name,
      eventType: delivery.event.type,
      bodyHash: delivery.bodyHash,
      secretLabel: delivery.secretLabel,
      payload: JSON.stringify(delivery.event),
      orderId,
      failure,
    });
  } catch (error) {
    logger.error({ err: errorMessage(error), eventId: key.eventId }, "dead letter not stored");
    return answerDelivery(db, delivery, FIXED_ANSWERS.not_stored, decision);
  }
  return answerDelivery(db, delivery, { httpStatus: failure.httpStatus, outcome: "dead_lettered", reason: failure.reason, reasonRef: failure.reasonRef, orderId }, decision);
}

/**
 * The organisation check both modes make before storing. A Stripe Connect event of an account the
 * endpoint is not bound to is answered 200 `ignored` (`account_not_bound`) and recorded: a 4xx would be
 * retried for three days and count toward Stripe disabling the endpoint (docs.stripe.com/webhooks#retries),
 * and such an event is not ours to apply. Any other provider's event naming another organisation is
 * dead-lettered (422): the seed guide's rule that a payload's organisation never decides authorization.
 */
export function organisationMismatch(delivery: VerifiedDelivery): { ignore: ProcessResult } | { deadLetter: ApplyFailure } | undefined {
  const { endpoint, event } = delivery;
  if (event.account === undefined || event.account === endpoint.account) return undefined;
  if (endpoint.provider === "stripe") {
    return { ignore: { httpStatus: 200, outcome: "ignored", ...because("account_not_bound", { account: event.account, endpoint: endpoint.name }) } };
  }
  return { deadLetter: new ApplyFailure("org_mismatch", because("org_mismatch", { account: event.account, endpoint: endpoint.name }), orderIdOf(event)) };
}
