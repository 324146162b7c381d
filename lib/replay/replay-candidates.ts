// Which events a replay filter names: stored events (any replayable status) and the events that only an
// open dead letter holds (an inline-mode failure rolls its event row back), each with its open dead
// letter when it has one. Reads only (Prisma's model API).
import type { Db } from "@/lib/db/client";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { NormalizedEvent } from "@/lib/core/effect";
import { readStoredReason, type ReasonRef } from "@/lib/reasons/reason-codes";
import { MAX_REPLAY_EVENTS, REPLAYABLE_STATUSES, type ReplayableStatus, type ReplayFilter } from "@/lib/replay/replay-filter";

/** Most rows one filter may reach before it is refused as too wide (each table's read is bounded by it). */
export const MAX_FILTER_SCAN = 5_000;

/** One event a filter names, with what a replay or a bulk retry needs of it. */
export interface ReplayCandidate {
  /** The stored event's row (WebhookEvent.id); null when only a dead letter holds the event. */
  storedEventId: string | null;
  /** Its open dead letter (same event and body), when it has one. */
  deadLetterId: string | null;
  /** The organization whose event it is (its replay's). */
  organizationId: string;
  provider: string;
  account: string;
  livemode: boolean;
  eventId: string;
  endpoint: string;
  type: string;
  bodyHash: string;
  secretLabel: string | null;
  /** The order the event names or reached, as stored. */
  orderId: string | null;
  /** The stored event's status, or `dead` for an event only a dead letter holds. */
  status: ReplayableStatus;
  /** When it arrived: the stored row's receipt, or the dead letter's first failure. */
  arrivedAt: Date;
  /** The normalised event (JSON); "" once retention purged it. */
  payload: string;
  /** The event as parsed from `payload`, or null when it was purged or is not JSON. */
  event: NormalizedEvent | null;
  /** Another body is stored under this event id: a conflict, never replayed. */
  bodyDiffers: boolean;
}

/** What a filter reached: its events in the provider's creation order (ties by arrival), or too many of them. */
export type CandidateSearch = { kind: "ok"; candidates: ReplayCandidate[] } | { kind: "too_many"; count: number; limit: number };

/** True when `ref` is reason `code`, or names it as a nested cause or a follow-up (a give-up after retries names its last error). */
export function reasonNames(ref: ReasonRef, code: string): boolean {
  if (ref.code === code) return true;
  for (const value of Object.values(ref.params)) {
    if (value && typeof value === "object" && "code" in value && "params" in value && reasonNames(value as ReasonRef, code)) return true;
  }
  return (ref.then ?? []).some((next) => reasonNames(next, code));
}

/** True when a dead letter's stored reason is `code` or names it; a row written before reason codes matches by its category. */
export function deadLetterHasReason(letter: { category: string; reasonCode: string | null; reasonParams: string | null }, code: string): boolean {
  if (letter.reasonCode === null) return letter.category === code;
  if (letter.reasonCode === code) return true;
  const ref = readStoredReason(letter.reasonCode, letter.reasonParams);
  return ref !== undefined && reasonNames(ref, code);
}

/** The normalised event a stored payload holds, or null when it was purged ("") or is not one. */
export function parsedPayload(payload: string): NormalizedEvent | null {
  if (payload === "") return null;
  try {
    const event = JSON.parse(payload) as NormalizedEvent;
    return event && typeof event === "object" && "effect" in event ? event : null;
  } catch {
    return null;
  }
}

const keyOf = (row: { provider: string; account: string; livemode: boolean; eventId: string }) => `${row.provider}\u0000${row.account}\u0000${row.livemode ? 1 : 0}\u0000${row.eventId}`;

/** What orders events for a replay or a rebuild: the normalised event (its `createdAt`), the arrival and the id. */
export interface OrderedEvent {
  event: NormalizedEvent | null;
  arrivedAt: Date;
  eventId: string;
}

/** The provider's creation time of an event in seconds, else its arrival. */
function creationSeconds(candidate: OrderedEvent): number {
  return typeof candidate.event?.createdAt === "number" ? candidate.event.createdAt : Math.floor(candidate.arrivedAt.getTime() / 1000);
}

/**
 * Orders events as the provider created them (the normalised event's `createdAt`, else its arrival),
 * ties by arrival, then by event id: the order a rebuild and a replay apply them in.
 */
export function inCreationOrder<T extends OrderedEvent>(candidates: readonly T[]): T[] {
  return [...candidates].sort(
    (a, b) => creationSeconds(a) - creationSeconds(b) || a.arrivedAt.getTime() - b.arrivedAt.getTime() || (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0),
  );
}

const STORED_SELECT = {
  id: true,
  organizationId: true,
  provider: true,
  account: true,
  livemode: true,
  eventId: true,
  endpoint: true,
  type: true,
  bodyHash: true,
  secretLabel: true,
  orderId: true,
  status: true,
  receivedAt: true,
  payload: true,
} as const;

const LETTER_SELECT = {
  id: true,
  organizationId: true,
  provider: true,
  account: true,
  livemode: true,
  eventId: true,
  endpoint: true,
  eventType: true,
  bodyHash: true,
  secretLabel: true,
  orderId: true,
  firstFailedAt: true,
  payload: true,
  status: true,
  category: true,
  reasonCode: true,
  reasonParams: true,
} as const;

type StoredRow = Prisma.WebhookEventGetPayload<{ select: typeof STORED_SELECT }>;
type LetterRow = Prisma.DeadLetterGetPayload<{ select: typeof LETTER_SELECT }>;

function fromStored(row: StoredRow, letter: LetterRow | undefined): ReplayCandidate {
  return {
    storedEventId: row.id,
    deadLetterId: letter?.id ?? null,
    organizationId: row.organizationId,
    provider: row.provider,
    account: row.account,
    livemode: row.livemode,
    eventId: row.eventId,
    endpoint: row.endpoint,
    type: row.type,
    bodyHash: row.bodyHash,
    secretLabel: row.secretLabel,
    orderId: row.orderId ?? letter?.orderId ?? null,
    status: row.status as ReplayableStatus,
    arrivedAt: row.receivedAt,
    payload: row.payload,
    event: parsedPayload(row.payload),
    bodyDiffers: false,
  };
}

function fromLetter(letter: LetterRow, stored: StoredRow | undefined): ReplayCandidate {
  return {
    storedEventId: null,
    deadLetterId: letter.id,
    organizationId: letter.organizationId,
    provider: letter.provider,
    account: letter.account,
    livemode: letter.livemode,
    eventId: letter.eventId,
    endpoint: letter.endpoint,
    type: letter.eventType,
    bodyHash: letter.bodyHash,
    secretLabel: letter.secretLabel,
    orderId: letter.orderId,
    status: "dead",
    arrivedAt: letter.firstFailedAt,
    payload: letter.payload,
    event: parsedPayload(letter.payload),
    bodyDiffers: stored !== undefined && stored.bodyHash !== letter.bodyHash,
  };
}

/**
 * The events `filter` names (see {@link replayFilterSchema} for each field), at most `limit` (default
 * {@link MAX_REPLAY_EVENTS}), in the provider's creation order. A stored event whose status is not
 * replayable (received, processing: the worker's) is never among them. An open dead letter whose event
 * is stored under another body is a candidate marked `bodyDiffers` (a conflict: the replay skips it).
 * Returns `too_many` with the count when more match (counted up to {@link MAX_FILTER_SCAN}).
 * Throws the database's errors.
 */
export async function findReplayCandidates(db: Db, organizationId: string, filter: ReplayFilter, limit = MAX_REPLAY_EVENTS): Promise<CandidateSearch> {
  const from = filter.from ? new Date(filter.from) : undefined;
  const to = filter.to ? new Date(filter.to) : undefined;
  const arrived = (at: Date) => (!from || at >= from) && (!to || at < to);
  const statuses = filter.status ? [filter.status] : [...REPLAYABLE_STATUSES];
  const common = {
    organizationId,
    ...(filter.eventIds ? { eventId: { in: filter.eventIds } } : {}),
    ...(filter.endpoint ? { endpoint: filter.endpoint } : {}),
    ...(filter.orderId ? { orderId: filter.orderId } : {}),
  };
  const letterWhere: Prisma.DeadLetterWhereInput = {
    status: "open",
    ...common,
    ...(filter.type ? { eventType: filter.type } : {}),
    // The exact match on the code or a nested cause is checked below; this narrows the read.
    ...(filter.reason ? { OR: [{ reasonCode: filter.reason }, { reasonParams: { contains: `"${filter.reason}"` } }, { reasonCode: null, category: filter.reason }] } : {}),
  };

  // Stored events the filter names (none when it names a reason: those start from their dead letters).
  const stored = filter.reason
    ? []
    : await db.webhookEvent.findMany({
        where: { ...common, ...(filter.type ? { type: filter.type } : {}), status: { in: statuses }, ...(from || to ? { receivedAt: { ...(from ? { gte: from } : {}), ...(to ? { lt: to } : {}) } } : {}) },
        select: STORED_SELECT,
        orderBy: [{ receivedAt: "asc" }, { id: "asc" }],
        take: MAX_FILTER_SCAN + 1,
      });
  if (stored.length > MAX_FILTER_SCAN) return { kind: "too_many", count: stored.length, limit };
  // Open dead letters: those of the stored events found, and those the filter names itself (by reason,
  // or as events that only a dead letter may hold).
  const ofStored = stored.length === 0 ? [] : await db.deadLetter.findMany({ where: { organizationId, status: "open", eventId: { in: [...new Set(stored.map((row) => row.eventId))] } }, select: LETTER_SELECT });
  const named =
    filter.reason || statuses.includes("dead")
      ? (
          await db.deadLetter.findMany({
            where: { ...letterWhere, ...(!filter.reason && (from || to) ? { firstFailedAt: { ...(from ? { gte: from } : {}), ...(to ? { lt: to } : {}) } } : {}) },
            select: LETTER_SELECT,
            orderBy: [{ firstFailedAt: "asc" }, { id: "asc" }],
            take: MAX_FILTER_SCAN + 1,
          })
        ).filter((letter) => !filter.reason || deadLetterHasReason(letter, filter.reason))
      : [];
  if (named.length > MAX_FILTER_SCAN) return { kind: "too_many", count: named.length, limit };
  // The stored rows of the named dead letters' events, whatever their status: a row of the same body is
  // the event to replay (or outside the filter); a row of another body makes the dead letter a conflict.
  const storedKeys = new Set(stored.map(keyOf));
  const unknownIds = [...new Set(named.filter((letter) => !storedKeys.has(keyOf(letter))).map((letter) => letter.eventId))];
  const rowsOfLetters = unknownIds.length === 0 ? [] : await db.webhookEvent.findMany({ where: { organizationId, eventId: { in: unknownIds } }, select: STORED_SELECT });
  const rowByKey = new Map([...rowsOfLetters, ...stored].map((row) => [keyOf(row), row]));

  const candidates: ReplayCandidate[] = [];
  const used = new Set<string>();
  const letterOf = (row: StoredRow) => [...ofStored, ...named].find((letter) => keyOf(letter) === keyOf(row) && letter.bodyHash === row.bodyHash);
  for (const row of stored) {
    const letter = letterOf(row);
    if (letter) used.add(letter.id);
    candidates.push(fromStored(row, letter));
  }
  for (const letter of named) {
    if (used.has(letter.id)) continue;
    used.add(letter.id);
    const row = rowByKey.get(keyOf(letter));
    if (row && row.bodyHash === letter.bodyHash) {
      // Named by its reason: its stored event is the one to replay, when the rest of the filter holds.
      const replayable = statuses.includes(row.status as ReplayableStatus) && arrived(row.receivedAt);
      if (filter.reason && replayable && !storedKeys.has(keyOf(row))) candidates.push(fromStored(row, letter));
      continue;
    }
    if (statuses.includes("dead") && arrived(letter.firstFailedAt)) candidates.push(fromLetter(letter, row));
  }
  if (candidates.length > limit) return { kind: "too_many", count: candidates.length, limit };
  return { kind: "ok", candidates: inCreationOrder(candidates) };
}

/** A replay's event as stored with it: its key, body and the rows it was found in. */
export interface ReplayedEventRef {
  webhookEventId: string | null;
  deadLetterId: string | null;
  provider: string;
  account: string;
  livemode: boolean;
  eventId: string;
  bodyHash: string;
}

/**
 * The events of a stored replay as they stand now, in the order given: the stored row of the same key
 * and body (with its dead letter when that is still open), else the dead letter that holds the event
 * (marked `bodyDiffers` when another body was stored meanwhile); null for an event neither holds any
 * more. Only the organization's rows are read. Throws the database's errors.
 */
export async function candidatesOf(db: Db, organizationId: string, events: readonly ReplayedEventRef[]): Promise<(ReplayCandidate | null)[]> {
  if (events.length === 0) return [];
  const rows = await db.webhookEvent.findMany({ where: { organizationId, eventId: { in: [...new Set(events.map((event) => event.eventId))] } }, select: STORED_SELECT });
  const letterIds = events.flatMap((event) => (event.deadLetterId ? [event.deadLetterId] : []));
  const letters = letterIds.length === 0 ? [] : await db.deadLetter.findMany({ where: { organizationId, id: { in: letterIds } }, select: LETTER_SELECT });
  const rowByKey = new Map(rows.map((row) => [keyOf(row), row]));
  const letterById = new Map(letters.map((letter) => [letter.id, letter]));
  return events.map((event) => {
    const row = rowByKey.get(keyOf(event));
    const letter = event.deadLetterId ? letterById.get(event.deadLetterId) : undefined;
    if (row && row.bodyHash === event.bodyHash) return fromStored(row, letter?.status === "open" && letter.bodyHash === row.bodyHash ? letter : undefined);
    if (letter) return fromLetter(letter, row);
    return null;
  });
}
