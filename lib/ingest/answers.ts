import type { Db } from "@/lib/db/client";
import { recordDeadLetter } from "@/lib/dead-letters/dead-letters";
import { recordDecisionSafely } from "@/lib/decisions/record-decision";
import { decisionBaseOf, orderIdOf, type ProcessResult, type VerifiedDelivery } from "@/lib/ingest/delivery";
import type { EventKey } from "@/lib/core/event-key";
import { ApplyFailure } from "@/lib/core/failures";
import { logger } from "@/lib/log/logger";
import { errorMessage } from "@/lib/log/error-message";

/** The reason of a `duplicate` answer and decision row: the stored event's status, nothing changed. */
export function duplicateReason(eventId: string, storedStatus: string): string {
  return `event ${eventId} already stored (status ${storedStatus}); nothing changed`;
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
    const reason = "database unavailable; retry later";
    await recordDecisionSafely(db, { ...decisionBaseOf(delivery), orderId: orderIdOf(delivery.event), outcome: "rejected", httpStatus: 503, reason });
    return { httpStatus: 503, outcome: "rejected", reason };
  }
  if (!stored) return undefined;
  const orderId = stored.orderId ?? orderIdOf(delivery.event);
  if (stored.bodyHash === delivery.bodyHash) {
    const reason = duplicateReason(key.eventId, stored.status);
    await recordDecisionSafely(db, { ...decisionBaseOf(delivery), orderId, outcome: "duplicate", httpStatus: 200, reason });
    return { httpStatus: 200, outcome: "duplicate", reason, orderId: stored.orderId ?? undefined, eventStatus: stored.status };
  }
  const failure = new ApplyFailure("conflict", `event id ${key.eventId} reused with a different signed body; the stored event was kept`, orderId);
  return deadLetterDelivery(db, delivery, key, failure);
}

/**
 * Parks a delivery that cannot be applied: one dead letter row (updated on repeats) and one decision
 * row. Returns the answer (409/422 `dead_lettered`, or 503 when the dead letter could not be stored, so
 * the provider retries rather than the event being lost).
 */
export async function deadLetterDelivery(db: Db, delivery: VerifiedDelivery, key: EventKey, failure: ApplyFailure): Promise<ProcessResult> {
  const orderId = failure.orderId ?? orderIdOf(delivery.event);
  const decision = { ...decisionBaseOf(delivery), eventId: key.eventId, orderId };
  try {
    await recordDeadLetter(db, {
      key,
      endpoint: delivery.endpoint.name,
      eventType: delivery.event.type,
      bodyHash: delivery.bodyHash,
      payload: JSON.stringify(delivery.event),
      orderId,
      failure,
    });
  } catch (error) {
    logger.error({ err: errorMessage(error), eventId: key.eventId }, "dead letter not stored");
    const reason = "database unavailable, event not stored; retry later";
    await recordDecisionSafely(db, { ...decision, outcome: "rejected", httpStatus: 503, reason });
    return { httpStatus: 503, outcome: "rejected", reason };
  }
  await recordDecisionSafely(db, { ...decision, outcome: "dead_lettered", httpStatus: failure.httpStatus, reason: failure.reason });
  return { httpStatus: failure.httpStatus, outcome: "dead_lettered", reason: failure.reason, orderId };
}

/** The organisation check both modes make before storing: an event naming another account is dead-lettered (422). */
export function organisationMismatch(delivery: VerifiedDelivery): ApplyFailure | undefined {
  const { endpoint, event } = delivery;
  if (event.account === undefined || event.account === endpoint.account) return undefined;
  return new ApplyFailure("org_mismatch", `event organisation ${event.account} does not match endpoint ${endpoint.name}`, orderIdOf(event));
}
