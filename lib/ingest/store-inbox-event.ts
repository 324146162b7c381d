import { notifyWork } from "@/lib/jobs/signals";
import type { Db } from "@/lib/db/client";
import { isTransientDbError, uniqueViolationFields } from "@/lib/db/errors";
import { MAX_TRANSACTION_ATTEMPTS, transactionBackoff } from "@/lib/db/transient-retry";
import { decisionRow, insertDecisions, logDecision } from "@/lib/decisions/record-decision";
import { driverOf } from "@/lib/db/driver";
import { answerDelivery, answerStoredEvent, deadLetterDelivery, duplicateBecause, FIXED_ANSWERS, organisationMismatch } from "@/lib/ingest/answers";
import { decisionBaseOf, EventAlreadyStored, eventKeyOf, insertStoredEvent, orderIdOf, type ProcessResult, type VerifiedDelivery } from "@/lib/ingest/delivery";
import { acceptedBecause, inboxGroupCommit } from "@/lib/ingest/inbox-group-commit";
import { logger } from "@/lib/log/logger";
import { errorMessage } from "@/lib/log/error-message";

/**
 * Inbox mode's receiver step: stores a verified, validated delivery in the inbox (WebhookEvent, status
 * `received`, due now) under its UNIQUE event key, with its decision row, and only then acknowledges.
 * Stripe and Yolfi ask for a fast 2xx and slow work later; the 2xx here means "stored durably"
 * (synchronous=FULL), never "held in memory". Concurrent deliveries share one transaction and one
 * commit (lib/ingest/inbox-group-commit.ts); a delivery whose batch failed is stored alone, with retries.
 * Returns 200 `accepted`; 200 `duplicate` with the stored status when the same event and body are already
 * stored; 409 `dead_lettered` for a reused id with another body; 422 for an organisation mismatch; 503
 * when the insert fails (never acknowledge what was not stored). Never throws for expected failures.
 */
export async function storeInInbox(db: Db, delivery: VerifiedDelivery, now = new Date()): Promise<ProcessResult> {
  const key = eventKeyOf(delivery);
  const mismatch = organisationMismatch(delivery);
  if (mismatch && "ignore" in mismatch) return answerDelivery(db, delivery, mismatch.ignore, { eventId: key.eventId });
  if (mismatch) return deadLetterDelivery(db, delivery, key, mismatch.deadLetter);

  const outcome = await inboxGroupCommit(db).store(delivery, now);
  if (outcome.kind === "stored") return { httpStatus: 200, outcome: "accepted", ...acceptedBecause(key.eventId), orderId: orderIdOf(delivery.event) };
  if (outcome.kind === "duplicate") return { httpStatus: 200, outcome: "duplicate", ...duplicateBecause(key.eventId, outcome.status), orderId: outcome.orderId ?? undefined, eventStatus: outcome.status };
  if (outcome.kind === "exists") {
    const answer = await answerStoredEvent(db, delivery, key);
    if (answer) return answer;
  }
  return storeOne(db, delivery, now);
}

/** Stores one delivery in its own transaction, retrying transient failures; the fallback of a failed batch. */
async function storeOne(db: Db, delivery: VerifiedDelivery, now: Date): Promise<ProcessResult> {
  const key = eventKeyOf(delivery);
  const orderId = orderIdOf(delivery.event);
  const { reason, reasonRef } = acceptedBecause(key.eventId);

  for (let attempt = 1; ; attempt++) {
    try {
      const decision = decisionRow({ ...decisionBaseOf(delivery), orderId, outcome: "accepted", httpStatus: 200, reason, reasonRef });
      await driverOf(db).transaction(async (session) => {
        await insertStoredEvent(session, delivery, { status: "received", attempts: 0, nextAttemptAt: now }, now);
        await insertDecisions(session, [decision], now);
      });
      logDecision(decision);
      notifyWork("inbox");
      return { httpStatus: 200, outcome: "accepted", reason, reasonRef, orderId };
    } catch (error) {
      const stored = error instanceof EventAlreadyStored;
      if (stored) {
        const answer = await answerStoredEvent(db, delivery, key);
        if (answer) return answer;
      }
      if ((stored || uniqueViolationFields(error) !== undefined || isTransientDbError(error)) && attempt < MAX_TRANSACTION_ATTEMPTS) {
        await transactionBackoff(attempt);
        continue;
      }
      logger.error({ err: errorMessage(error), eventId: key.eventId, endpoint: delivery.endpoint.name }, "event not stored in the inbox");
      return answerDelivery(db, delivery, FIXED_ANSWERS.not_stored);
    }
  }
}
