import type { Db } from "@/lib/db/client";
import { isTransientDbError, uniqueViolationFields } from "@/lib/db/errors";
import { recordDeadLetter, resolveDeadLettersOfEvent } from "@/lib/dead-letters/dead-letters";
import { recordDecision, recordDecisionSafely, type DecisionOutcome } from "@/lib/decisions/record-decision";
import type { Endpoint } from "@/lib/endpoints/endpoints";
import { applyEffect, type EffectOutcome } from "@/lib/events/apply-effect";
import type { EventKey } from "@/lib/events/event-key";
import { ApplyFailure, ConcurrentChange } from "@/lib/events/failures";
import { logger } from "@/lib/log/logger";
import type { NormalizedEvent } from "@/lib/webhooks/types";

/** The answer to one delivery: HTTP status plus the JSON body `{outcome, reason}`. */
export interface ProcessResult {
  httpStatus: number;
  outcome: DecisionOutcome;
  reason: string;
  orderId?: string;
}

/** A verified, normalised delivery ready for the core. */
export interface VerifiedDelivery {
  endpoint: Endpoint;
  event: NormalizedEvent;
  bodyHash: string;
  secretLabel?: string;
  source?: "receiver" | "retry" | "cli";
}

const MAX_TRANSACTION_ATTEMPTS = 6;

/** The event key scoping a delivery: the endpoint's provider and account, the event's own live/test flag. */
export function eventKeyOf(delivery: VerifiedDelivery): EventKey {
  return { provider: delivery.endpoint.provider, account: delivery.endpoint.account, livemode: delivery.event.livemode, eventId: delivery.event.eventId };
}

function orderIdOf(event: NormalizedEvent): string | undefined {
  return "orderRef" in event.effect ? event.effect.orderRef.orderId : undefined;
}

function paymentKeyOf(event: NormalizedEvent): string | undefined {
  return "paymentKey" in event.effect ? event.effect.paymentKey : undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Stores the event under its UNIQUE key and applies its effect in ONE transaction (seed article,
 * controls 2-5): the insert comes first, so a concurrent or later delivery of the same event fails on the
 * key and is answered `duplicate`; a rule violation rolls back the event mark too and dead-letters it.
 * Returns the answer (200 applied/duplicate/ignored, 409/422 dead_lettered, 503 on database failure so
 * the provider retries). Never throws for expected failures.
 */
export async function processInline(db: Db, delivery: VerifiedDelivery): Promise<ProcessResult> {
  const { endpoint, event } = delivery;
  const key = eventKeyOf(delivery);
  const base = {
    provider: endpoint.provider,
    endpoint: endpoint.name,
    eventId: event.eventId,
    verified: true,
    eventType: event.type,
    secretLabel: delivery.secretLabel ?? null,
    source: delivery.source ?? "receiver",
  } as const;

  if (event.account !== undefined && event.account !== endpoint.account) {
    const failure = new ApplyFailure("org_mismatch", `event organisation ${event.account} does not match endpoint ${endpoint.name}`, orderIdOf(event));
    return deadLetter(db, delivery, key, failure);
  }

  for (let attempt = 1; ; attempt++) {
    try {
      const result = await db.$transaction(async (tx) => {
        const stored = await tx.webhookEvent.create({
          data: {
            provider: key.provider,
            endpoint: endpoint.name,
            account: key.account,
            livemode: key.livemode,
            eventId: key.eventId,
            type: event.type,
            bodyHash: delivery.bodyHash,
            orderId: orderIdOf(event) ?? null,
            paymentKey: paymentKeyOf(event) ?? null,
            status: "processing",
            payload: JSON.stringify(event),
            secretLabel: delivery.secretLabel ?? null,
            attempts: 1,
          },
          select: { id: true },
        });
        const effect: EffectOutcome =
          event.livemode !== endpoint.livemode
            ? { outcome: "ignored", reason: `${event.livemode ? "live" : "test"} event on a ${endpoint.livemode ? "live" : "test"} endpoint: stored, no effect` }
            : await applyEffect(tx, { provider: endpoint.provider, eventId: event.eventId, eventType: event.type, livemode: event.livemode }, event.effect);
        await tx.webhookEvent.update({
          where: { id: stored.id },
          data: { status: effect.outcome === "ignored" ? "ignored" : "processed", processedAt: new Date(), orderId: effect.orderId ?? orderIdOf(event) ?? null },
        });
        const resolved = await resolveDeadLettersOfEvent(tx, key, delivery.bodyHash, `applied on a later attempt (${effect.outcome})`);
        const reason = resolved > 0 ? `${effect.reason}; dead letter resolved` : effect.reason;
        await recordDecision(tx, { ...base, orderId: effect.orderId ?? orderIdOf(event), outcome: effect.outcome, httpStatus: 200, reason });
        return { httpStatus: 200, outcome: effect.outcome, reason, orderId: effect.orderId } satisfies ProcessResult;
      });
      return result;
    } catch (error) {
      if (error instanceof ApplyFailure) return deadLetter(db, delivery, key, error);
      const fields = uniqueViolationFields(error);
      if (fields?.includes("eventId")) {
        const answer = await duplicateOrConflict(db, delivery, key);
        if (answer) return answer;
      }
      const retryable = fields !== undefined || error instanceof ConcurrentChange || isTransientDbError(error);
      if (retryable && attempt < MAX_TRANSACTION_ATTEMPTS) {
        await sleep(Math.min(200, 5 * 2 ** attempt) * Math.random());
        continue;
      }
      logger.error({ err: error instanceof Error ? error.message : String(error), eventId: event.eventId, endpoint: endpoint.name }, "event not applied");
      const reason = "database unavailable, event not stored; retry later";
      await recordDecisionSafely(db, { ...base, orderId: orderIdOf(event), outcome: "rejected", httpStatus: 503, reason });
      return { httpStatus: 503, outcome: "rejected", reason };
    }
  }
}

/**
 * Answers a delivery whose event key is already stored: the same body is a duplicate (200, nothing
 * changes); another body under the same id is a conflict (409, dead-lettered, the stored event kept).
 * Returns undefined when the stored row vanished (its writer rolled back): the caller retries.
 */
async function duplicateOrConflict(db: Db, delivery: VerifiedDelivery, key: EventKey): Promise<ProcessResult | undefined> {
  const stored = await db.webhookEvent.findUnique({
    where: { provider_account_livemode_eventId: key },
    select: { bodyHash: true, status: true, orderId: true },
  });
  if (!stored) return undefined;
  const base = {
    provider: delivery.endpoint.provider,
    endpoint: delivery.endpoint.name,
    eventId: key.eventId,
    verified: true,
    eventType: delivery.event.type,
    orderId: stored.orderId ?? orderIdOf(delivery.event),
    secretLabel: delivery.secretLabel ?? null,
    source: delivery.source ?? "receiver",
  } as const;
  if (stored.bodyHash === delivery.bodyHash) {
    const reason = `event ${key.eventId} already stored (status ${stored.status}); nothing changed`;
    await recordDecisionSafely(db, { ...base, outcome: "duplicate", httpStatus: 200, reason });
    return { httpStatus: 200, outcome: "duplicate", reason, orderId: stored.orderId ?? undefined };
  }
  const failure = new ApplyFailure("conflict", `event id ${key.eventId} reused with a different signed body; the stored event was kept`, base.orderId ?? undefined);
  return deadLetter(db, delivery, key, failure);
}

/** Parks a delivery that cannot be applied: one dead letter row (updated on repeats) and one decision row. */
async function deadLetter(db: Db, delivery: VerifiedDelivery, key: EventKey, failure: ApplyFailure): Promise<ProcessResult> {
  const orderId = failure.orderId ?? orderIdOf(delivery.event);
  const decision = {
    provider: delivery.endpoint.provider,
    endpoint: delivery.endpoint.name,
    eventId: key.eventId,
    verified: true,
    eventType: delivery.event.type,
    orderId,
    secretLabel: delivery.secretLabel ?? null,
    source: delivery.source ?? "receiver",
  } as const;
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
    logger.error({ err: error instanceof Error ? error.message : String(error), eventId: key.eventId }, "dead letter not stored");
    const reason = "database unavailable, event not stored; retry later";
    await recordDecisionSafely(db, { ...decision, outcome: "rejected", httpStatus: 503, reason });
    return { httpStatus: 503, outcome: "rejected", reason };
  }
  await recordDecisionSafely(db, { ...decision, outcome: "dead_lettered", httpStatus: failure.httpStatus, reason: failure.reason });
  return { httpStatus: failure.httpStatus, outcome: "dead_lettered", reason: failure.reason, orderId };
}
