import type { Db } from "@/lib/db/client";
import { isTransientDbError, uniqueViolationFields } from "@/lib/db/errors";
import { MAX_TRANSACTION_ATTEMPTS, transactionBackoff } from "@/lib/db/transient-retry";
import { signalAfterApply, type AppliedEvent } from "@/lib/apply/apply-stored-event";
import { answerDelivery, answerStoredEvent, deadLetterDelivery, FIXED_ANSWERS, organisationMismatch } from "@/lib/ingest/answers";
import { EventAlreadyStored, eventKeyOf, type ProcessResult, type VerifiedDelivery } from "@/lib/ingest/delivery";
import { driverOf } from "@/lib/db/driver";
import { inlineGroupApply, storeAndApply } from "@/lib/ingest/inline-group-apply";
import { ApplyFailure, ConcurrentChange } from "@/lib/core/failures";
import { logger } from "@/lib/log/logger";
import { errorMessage } from "@/lib/log/error-message";

export { eventKeyOf, type ProcessResult, type VerifiedDelivery };

/**
 * Stores the event under its UNIQUE key and applies its effect in ONE transaction (seed article,
 * controls 2-5): the insert comes first, so a concurrent or later delivery of the same event fails on the
 * key and is answered `duplicate`; a rule violation rolls back the event mark too and dead-letters it.
 * The apply step itself is {@link applyStoredEvent}, shared with the inbox worker. Deliveries that
 * arrive together share one transaction, a savepoint each, and one commit ({@link inlineGroupApply}).
 * Returns the answer (200 applied/duplicate/ignored, 409/422 dead_lettered, 503 on database failure so
 * the provider retries). Never throws for expected failures.
 */
export async function processInline(db: Db, delivery: VerifiedDelivery): Promise<ProcessResult> {
  const key = eventKeyOf(delivery);
  const mismatch = organisationMismatch(delivery);
  if (mismatch && "ignore" in mismatch) return answerDelivery(db, delivery, mismatch.ignore, { eventId: key.eventId });
  if (mismatch) return deadLetterDelivery(db, delivery, key, mismatch.deadLetter);

  const grouped = await inlineGroupApply(db).apply(delivery);
  if (grouped.kind === "applied") {
    signalAfterApply(grouped.applied);
    return answerOf(grouped.applied);
  }
  if (grouped.kind === "refused") return deadLetterDelivery(db, delivery, key, grouped.failure);
  if (grouped.kind === "timed_out") return answerDelivery(db, delivery, FIXED_ANSWERS.not_stored);
  if (grouped.kind === "exists") {
    const answer = await answerStoredEvent(db, delivery, key);
    if (answer) return answer;
  }
  // Alone, with retries: a concurrent writer changed the order, the database was busy, or the group failed.
  return processAlone(db, delivery);
}

/** The answer of an applied event: its status, outcome, reason (with its code) and order, nothing internal. */
function answerOf(applied: AppliedEvent): ProcessResult {
  return { httpStatus: applied.httpStatus, outcome: applied.outcome, reason: applied.reason, ...(applied.reasonRef ? { reasonRef: applied.reasonRef } : {}), orderId: applied.orderId };
}

/** One delivery in a transaction of its own, retrying what a retry may cure; the fallback of a group. */
async function processAlone(db: Db, delivery: VerifiedDelivery): Promise<ProcessResult> {
  const { endpoint, event } = delivery;
  const key = eventKeyOf(delivery);
  for (let attempt = 1; ; attempt++) {
    try {
      const applied = await driverOf(db).transaction((session) => storeAndApply(session, delivery, new Date()));
      signalAfterApply(applied);
      return answerOf(applied);
    } catch (error) {
      if (error instanceof ApplyFailure) return deadLetterDelivery(db, delivery, key, error);
      const stored = error instanceof EventAlreadyStored;
      if (stored) {
        const answer = await answerStoredEvent(db, delivery, key);
        if (answer) return answer;
      }
      const retryable = stored || uniqueViolationFields(error) !== undefined || error instanceof ConcurrentChange || isTransientDbError(error);
      if (retryable && attempt < MAX_TRANSACTION_ATTEMPTS) {
        await transactionBackoff(attempt);
        continue;
      }
      logger.error({ err: errorMessage(error), eventId: event.eventId, endpoint: endpoint.name }, "event not applied");
      return answerDelivery(db, delivery, FIXED_ANSWERS.not_stored);
    }
  }
}
