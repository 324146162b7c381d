// One stored event as a person inspects it (the event page, GET /api/events/<id>): what arrived (the
// payload, or when and why it was purged; the names of the headers it came with), through which
// endpoint and secret label, every decision taken about it, and what it did (ledger entries, extra
// charges, the delivery, dead letters, outbox rows). Reads only; every read uses an index.
import type { Db } from "@/lib/db/client";
import type { ReaderReasons } from "@/lib/reasons/render-reason";
import { LAB_SIGNATURE_HEADER } from "@/lib/providers/lab";
import { STANDARD_WEBHOOKS_HEADERS } from "@/lib/providers/signatures/standard-webhooks-signature";
import { STRIPE_SIGNATURE_HEADER } from "@/lib/providers/stripe";
import { YOLFI_EVENT_ID_HEADER, YOLFI_SIGNATURE_HEADER } from "@/lib/providers/yolfi";

/** Most decisions listed for one event (a hostile sender can repeat a delivery thousands of times). */
export const EVENT_DECISION_LIMIT = 500;

/** Header names that carry a signature, its timestamp or the signed id: shown marked, never with a value. */
export const SIGNATURE_HEADER_NAMES: ReadonlySet<string> = new Set(
  [STRIPE_SIGNATURE_HEADER, LAB_SIGNATURE_HEADER, YOLFI_SIGNATURE_HEADER, YOLFI_EVENT_ID_HEADER, ...Object.values(STANDARD_WEBHOOKS_HEADERS)].map((name) => name.toLowerCase()),
);

/**
 * The stored payload as a reader may see it: `kept` (the normalised event, parsed), `purged` (retention
 * emptied it: when, and the retention period in days that run used, when its audit row says), or
 * `hidden` (the reader's role may not read personal data: lib/auth/roles.ts, `payloads.read`).
 */
export type PayloadView =
  | { state: "kept"; json: unknown }
  | { state: "purged"; purgedAt: string; retentionDays: number | null }
  | { state: "hidden" };

/** A stored reason's columns (rendered in the reader's language by the caller). */
interface StoredReason {
  reason: string;
  reasonCode: string | null;
  reasonParams: string | null;
}

/** Everything about one stored event. Money in minor units of each row's currency; times ISO 8601 UTC. */
export interface EventDetail {
  id: string;
  provider: string;
  endpoint: string;
  account: string;
  livemode: boolean;
  eventId: string;
  type: string;
  /** received | processing | processed | ignored | failed | dead */
  status: string;
  attempts: number;
  orderId: string | null;
  paymentId: string | null;
  chargeId: string | null;
  /** The label of the configured secret that verified it (never its value). */
  secretLabel: string | null;
  /** SHA-256 of the signed body (hex): what tells a duplicate from a conflict. */
  bodyHash: string;
  receivedAt: string;
  processedAt: string | null;
  firstFailedAt: string | null;
  nextAttemptAt: string | null;
  /** The last failure's message (English, as the worker logged it), while it had one. */
  lastError: string | null;
  /** Header names, lower-case and sorted, each with whether it carries a signature; null when not recorded (events stored before names were kept). */
  headers: { name: string; signature: boolean }[] | null;
  payload: PayloadView;
  /** The customer's e-mail, when the payload gave one, it is still kept and the reader may see it. */
  customerEmail: string | null;
  decisions: (StoredReason & { id: string; at: string; outcome: string; httpStatus: number | null; verified: boolean; secretLabel: string | null; source: string; orderId: string | null })[];
  decisionCount: number;
  ledger: { id: string; businessKey: string; kind: string; amount: number; currency: string; orderId: string; paymentId: string; occurredAt: string | null; createdAt: string }[];
  extraCharges: { id: string; orderId: string; paymentId: string; amount: number; currency: string; status: string; createdAt: string }[];
  delivery: { orderId: string; paymentId: string; createdAt: string } | null;
  deadLetters: (StoredReason & { id: string; status: string; category: string; attempts: number; firstFailedAt: string; lastFailedAt: string; resolution: string | null; resolutionCode: string | null; resolutionParams: string | null })[];
  outbox: { id: string; target: string; status: string; attempts: number; lastStatusCode: number | null; createdAt: string; updatedAt: string }[];
}

const iso = (date: Date | null): string | null => date?.toISOString() ?? null;

/** The header names a row keeps (JSON array), or null when none were recorded or the text is not such an array. */
function headersOf(text: string | null): EventDetail["headers"] {
  if (text === null) return null;
  try {
    const names: unknown = JSON.parse(text);
    if (!Array.isArray(names)) return null;
    return names.filter((name): name is string => typeof name === "string").map((name) => ({ name, signature: SIGNATURE_HEADER_NAMES.has(name) }));
  } catch {
    return null;
  }
}

/** The retention period a purge used: the `retention.purge` audit row written right after it (its note's `payloadDays`). */
async function retentionDaysAt(db: Db, purgedAt: Date): Promise<number | null> {
  const audit = await db.auditEntry.findFirst({
    where: { action: "retention.purge", targetType: "payloads", at: { gte: purgedAt } },
    orderBy: { at: "asc" },
    select: { noteParams: true },
  });
  try {
    const days = audit?.noteParams ? (JSON.parse(audit.noteParams) as { payloadDays?: unknown }).payloadDays : undefined;
    return typeof days === "number" && Number.isInteger(days) ? days : null;
  } catch {
    return null;
  }
}

/** The outbox rows an event queued: its order's messages whose body names this event (the fulfilment body's `event_id`). */
function queuedBy<Message extends { body: string }>(messages: Message[], event: { eventId: string; provider: string }): Message[] {
  return messages.filter((message) => {
    try {
      const body = JSON.parse(message.body) as { event_id?: unknown; provider?: unknown };
      return body.event_id === event.eventId && body.provider === event.provider;
    } catch {
      return false;
    }
  });
}

/**
 * The stored event `id` (Acredita's WebhookEvent id) with everything a person needs to understand it,
 * or null when there is none. `payloads`: the reader may read personal data (the payload and the
 * customer's e-mail); otherwise the payload is `hidden` and the e-mail null. Decisions are those of the
 * same endpoint and provider event id, oldest first (at most {@link EVENT_DECISION_LIMIT}; unverified
 * ones included and marked: their id came from an unsigned body); ledger entries, extra charges and the
 * delivery are those this event booked (same event id and payment scope); dead letters those of its
 * event key; outbox rows those its order's messages name it in.
 */
export async function getEventDetail(db: Db, organizationId: string, id: string, options: { payloads: boolean }): Promise<EventDetail | null> {
  // Another organization's event is as unknown as an id that does not exist.
  const event = await db.webhookEvent.findFirst({ where: { id: id.slice(0, 100), organizationId } });
  if (!event) return null;
  const scope = { provider: event.provider, account: event.account, livemode: event.livemode, eventId: event.eventId };
  // What it booked is found through its order (or, with none, its payment's scope): both indexed.
  const booked = event.orderId ? { orderId: event.orderId } : event.paymentKey ? { paymentKey: event.paymentKey } : undefined;
  const [decisions, decisionCount, ledger, extraCharges, delivery, deadLetters, outbox, retentionDays] = await Promise.all([
    db.decision.findMany({
      where: { organizationId, eventId: event.eventId, endpoint: event.endpoint },
      orderBy: [{ at: "asc" }, { id: "asc" }],
      take: EVENT_DECISION_LIMIT,
      select: { id: true, at: true, outcome: true, httpStatus: true, verified: true, reason: true, reasonCode: true, reasonParams: true, secretLabel: true, source: true, orderId: true },
    }),
    db.decision.count({ where: { organizationId, eventId: event.eventId, endpoint: event.endpoint } }),
    booked ? db.ledgerEntry.findMany({ where: { ...booked, ...scope, organizationId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }) : [],
    booked ? db.extraCharge.findMany({ where: { ...booked, ...scope, organizationId }, orderBy: { createdAt: "asc" } }) : [],
    event.orderId ? db.delivery.findFirst({ where: { organizationId, orderId: event.orderId, eventId: event.eventId, provider: event.provider } }) : null,
    db.deadLetter.findMany({ where: { ...scope, organizationId }, orderBy: { firstFailedAt: "asc" } }),
    event.orderId ? db.outboxMessage.findMany({ where: { organizationId, orderId: event.orderId }, orderBy: { createdAt: "asc" } }) : [],
    event.purgedAt ? retentionDaysAt(db, event.purgedAt) : null,
  ]);
  let payload: PayloadView;
  if (event.purgedAt) payload = { state: "purged", purgedAt: event.purgedAt.toISOString(), retentionDays };
  else if (!options.payloads) payload = { state: "hidden" };
  else {
    try {
      payload = { state: "kept", json: JSON.parse(event.payload) };
    } catch {
      payload = { state: "kept", json: event.payload };
    }
  }
  return {
    id: event.id,
    provider: event.provider,
    endpoint: event.endpoint,
    account: event.account,
    livemode: event.livemode,
    eventId: event.eventId,
    type: event.type,
    status: event.status,
    attempts: event.attempts,
    orderId: event.orderId,
    paymentId: event.paymentKey,
    chargeId: event.chargeId,
    secretLabel: event.secretLabel,
    bodyHash: event.bodyHash,
    receivedAt: event.receivedAt.toISOString(),
    processedAt: iso(event.processedAt),
    firstFailedAt: iso(event.firstFailedAt),
    nextAttemptAt: iso(event.nextAttemptAt),
    lastError: event.lastError,
    headers: headersOf(event.headerNames),
    payload,
    customerEmail: options.payloads && !event.purgedAt ? event.customerEmail : null,
    decisions: decisions.map((decision) => ({ ...decision, at: decision.at.toISOString() })),
    decisionCount,
    ledger: ledger.map((entry) => ({
      id: entry.id,
      businessKey: entry.businessKey,
      kind: entry.kind,
      amount: entry.amount,
      currency: entry.currency,
      orderId: entry.orderId,
      paymentId: entry.paymentKey,
      occurredAt: iso(entry.occurredAt),
      createdAt: entry.createdAt.toISOString(),
    })),
    extraCharges: extraCharges.map((extra) => ({ id: extra.id, orderId: extra.orderId, paymentId: extra.paymentKey, amount: extra.amount, currency: extra.currency, status: extra.status, createdAt: extra.createdAt.toISOString() })),
    delivery: delivery ? { orderId: delivery.orderId, paymentId: delivery.paymentKey, createdAt: delivery.createdAt.toISOString() } : null,
    deadLetters: deadLetters.map((letter) => ({
      id: letter.id,
      status: letter.status,
      category: letter.category,
      reason: letter.reason,
      reasonCode: letter.reasonCode,
      reasonParams: letter.reasonParams,
      attempts: letter.attempts,
      firstFailedAt: letter.firstFailedAt.toISOString(),
      lastFailedAt: letter.lastFailedAt.toISOString(),
      resolution: letter.resolution,
      resolutionCode: letter.resolutionCode,
      resolutionParams: letter.resolutionParams,
    })),
    // The body is the merchant's fulfilment payload: read to tell which event queued it, never returned.
    outbox: queuedBy(outbox, event).map(({ id, target, status, attempts, lastStatusCode, createdAt, updatedAt }) => ({ id, target, status, attempts, lastStatusCode, createdAt: createdAt.toISOString(), updatedAt: updatedAt.toISOString() })),
  };
}

/**
 * {@link EventDetail} as `GET /api/events/<id>` answers it: each decision's and dead letter's reason
 * also as a sentence in the reader's language (`reasonText`, `resolutionText`), beside its code and
 * parameters.
 */
export function eventDetailJson(detail: EventDetail, reasons: ReaderReasons) {
  return {
    ...detail,
    decisions: detail.decisions.map((decision) => ({ ...decision, reasonText: reasons.describe(decision) })),
    deadLetters: detail.deadLetters.map((letter) => ({
      ...letter,
      reasonText: reasons.describe(letter),
      resolutionText: letter.resolution === null ? null : reasons.describe({ reason: letter.resolution, reasonCode: letter.resolutionCode, reasonParams: letter.resolutionParams }),
    })),
  };
}

/** A stored event as a lookup lists it. */
export interface StoredEventSummary {
  id: string;
  provider: string;
  endpoint: string;
  account: string;
  livemode: boolean;
  eventId: string;
  type: string;
  status: string;
  orderId: string | null;
  receivedAt: string;
}

/** Most stored events one lookup lists (one per provider, account and live/test: a handful in practice). */
export const EVENT_LOOKUP_LIMIT = 100;

/**
 * The stored events with provider event id `eventId` (of `provider` and `endpoint` when given), newest
 * first: live and test, or two accounts, may each hold the same id. One seek on WebhookEvent(eventId).
 * Returns at most {@link EVENT_LOOKUP_LIMIT} and how many there are.
 */
export async function findStoredEvents(db: Db, organizationId: string, filter: { eventId: string; provider?: string; endpoint?: string }): Promise<{ data: StoredEventSummary[]; count: number }> {
  const where = { organizationId, eventId: filter.eventId, ...(filter.provider ? { provider: filter.provider } : {}), ...(filter.endpoint ? { endpoint: filter.endpoint } : {}) };
  const [rows, count] = await Promise.all([
    db.webhookEvent.findMany({
      where,
      orderBy: [{ receivedAt: "desc" }, { id: "desc" }],
      take: EVENT_LOOKUP_LIMIT,
      select: { id: true, provider: true, endpoint: true, account: true, livemode: true, eventId: true, type: true, status: true, orderId: true, receivedAt: true },
    }),
    db.webhookEvent.count({ where }),
  ]);
  return { data: rows.map((row) => ({ ...row, receivedAt: row.receivedAt.toISOString() })), count };
}

/** The dead letters of a provider's event id (of `provider` when given), oldest first, at most 20: what a lookup shows when no stored event has the id. */
export async function deadLettersOfEventId(db: Db, organizationId: string, eventId: string, provider?: string) {
  return db.deadLetter.findMany({
    where: { organizationId, eventId, ...(provider ? { provider } : {}) },
    orderBy: { firstFailedAt: "asc" },
    take: 20,
    select: { id: true, status: true, category: true, reason: true, reasonCode: true, reasonParams: true, orderId: true },
  });
}
