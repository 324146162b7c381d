import type { ServedEndpoint } from "@/lib/endpoints/endpoints";
import type { EventKey } from "@/lib/core/event-key";
import type { SqlSession } from "@/lib/db/driver";
import { newRowId } from "@/lib/db/row-id";
import { insertEvents, type NewEventRow } from "@/lib/events/webhook-events";

export type { ProcessResult };
import type { NormalizedEvent, ProcessResult } from "@/lib/core/effect";

/** A verified, normalised delivery ready for the core. */
export interface VerifiedDelivery {
  endpoint: ServedEndpoint;
  event: NormalizedEvent;
  bodyHash: string;
  secretLabel?: string;
  /** Where it came from: a signed request (receiver), a retry, the CLI, or the provider's API (backfill, gap-check: authentic without a signature, fetched with the endpoint's API key). */
  source?: "receiver" | "retry" | "cli" | "backfill" | "gap-check";
  /** The header names it came with, as stored ({@link headerNamesJson}); absent on a retry, which has no request. */
  headerNames?: string;
}

/**
 * The event key scoping a delivery: the endpoint's provider, account and live/test, never the payload's
 * claim. A test secret's holder can then only ever store ids in the test scope: an event claiming
 * `livemode: true` on a test endpoint is stored there and has no effect, and cannot block the real
 * live event of the same id.
 */
export function eventKeyOf(delivery: VerifiedDelivery): EventKey {
  return { provider: delivery.endpoint.provider, account: delivery.endpoint.account, livemode: delivery.endpoint.livemode, eventId: delivery.event.eventId };
}

/** The merchant's order id an event names, when it names one. */
export function orderIdOf(event: NormalizedEvent): string | undefined {
  return "orderRef" in event.effect ? event.effect.orderRef.orderId : undefined;
}

/** The provider's payment key an event names, when it names one. */
export function paymentKeyOf(event: NormalizedEvent): string | undefined {
  return "paymentKey" in event.effect ? event.effect.paymentKey : undefined;
}

/** The provider's charge id an event names (its own search fact, else its refund's or dispute's), when it names one. */
export function chargeIdOf(event: NormalizedEvent): string | undefined {
  return event.chargeId ?? ("chargeId" in event.effect ? event.effect.chargeId : undefined);
}

/** The checkout session an event names (Stripe `cs_…`, Yolfi's), when it names one: kept for search. */
export function checkoutSessionIdOf(event: NormalizedEvent): string | undefined {
  return "orderRef" in event.effect ? event.effect.orderRef.checkoutSessionId : undefined;
}

/**
 * The WebhookEvent row of a delivery (the UNIQUE key, the body hash and the normalised payload; never
 * the raw body or a signature), with the processing fields the caller chooses.
 */
export function storedEventData(delivery: VerifiedDelivery, fields: { status: string; attempts: number; nextAttemptAt?: Date | null }): Omit<NewEventRow, "id" | "receivedAt"> {
  const key = eventKeyOf(delivery);
  return {
    organizationId: delivery.endpoint.organizationId,
    provider: key.provider,
    endpoint: delivery.endpoint.name,
    account: key.account,
    livemode: key.livemode,
    eventId: key.eventId,
    type: delivery.event.type,
    bodyHash: delivery.bodyHash,
    orderId: orderIdOf(delivery.event) ?? null,
    paymentKey: paymentKeyOf(delivery.event) ?? null,
    payload: JSON.stringify(delivery.event),
    secretLabel: delivery.secretLabel ?? null,
    headerNames: delivery.headerNames ?? null,
    customerEmail: delivery.event.customerEmail ?? null,
    chargeId: chargeIdOf(delivery.event) ?? null,
    checkoutSessionId: checkoutSessionIdOf(delivery.event) ?? null,
    status: fields.status,
    attempts: fields.attempts,
    nextAttemptAt: fields.nextAttemptAt ?? null,
    // Claimable at nextAttemptAt while waiting for a worker; an event stored mid-apply (inline) is never due.
    dueAt: fields.status === "received" || fields.status === "failed" ? (fields.nextAttemptAt ?? null) : null,
  };
}

/** Decision-row fields shared by every decision about one verified delivery. */
export function decisionBaseOf(delivery: VerifiedDelivery) {
  return {
    organizationId: delivery.endpoint.organizationId,
    provider: delivery.endpoint.provider,
    endpoint: delivery.endpoint.name,
    eventId: delivery.event.eventId,
    verified: true,
    eventType: delivery.event.type,
    secretLabel: delivery.secretLabel ?? null,
    source: delivery.source ?? "receiver",
  } as const;
}

/** Thrown inside a driver transaction when the event key is already stored: the caller answers from the stored row. */
export class EventAlreadyStored extends Error {
  constructor(eventId: string) {
    super(`event ${eventId} already stored`);
    this.name = "EventAlreadyStored";
  }
}

/**
 * The new WebhookEvent row of a delivery at `now`: {@link storedEventData} with a fresh ULID id
 * ({@link newRowId}) and `receivedAt = now`.
 */
export function newEventRow(delivery: VerifiedDelivery, fields: { status: string; attempts: number; nextAttemptAt?: Date | null }, now: Date): NewEventRow {
  return { id: newRowId(now), ...storedEventData(delivery, fields), receivedAt: now };
}

/**
 * Inserts a delivery's WebhookEvent row in the caller's driver transaction under its UNIQUE event key
 * ({@link insertEvents}: the key decides, never a read first). Returns the row's id, or throws
 * {@link EventAlreadyStored} when the key is taken (so the transaction rolls back).
 */
export async function insertStoredEvent(session: SqlSession, delivery: VerifiedDelivery, fields: { status: string; attempts: number; nextAttemptAt?: Date | null }, now: Date): Promise<string> {
  const [inserted] = await insertEvents(session, [newEventRow(delivery, fields, now)]);
  if (!inserted) throw new EventAlreadyStored(delivery.event.eventId);
  return inserted.id;
}
