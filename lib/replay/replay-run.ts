// The one way a replay applies its events, for its preview (in a transaction that is rolled back) and
// for its apply (committed): each event through the real apply entry point (lib/apply/apply-stored-event.ts)
// inside its own savepoint, the books of every order it reaches read before and after.
import { applyStoredEvent, type AppliedEvent } from "@/lib/apply/apply-stored-event";
import type { EndpointScope, NormalizedEvent } from "@/lib/core/effect";
import { ApplyFailure } from "@/lib/core/failures";
import type { SqlSession } from "@/lib/db/driver";
import type { DecisionRow } from "@/lib/decisions/record-decision";
import type { Db } from "@/lib/db/client";
import { routeConnectEvent } from "@/lib/endpoints/connect-routing";
import { resolveAnyEndpoint } from "@/lib/endpoints/data-endpoints";
import { EndpointConfigError, endpointDefinitions, type ServedEndpoint } from "@/lib/endpoints/endpoints";
import { storedEventScope } from "@/lib/endpoints/stored-event-scope";
import { organisationMismatch } from "@/lib/ingest/answers";
import { EventAlreadyStored, insertStoredEvent } from "@/lib/ingest/delivery";
import { readOrderBooks, type OrderBooks } from "@/lib/ledger/order-books";
import { because, type Because, type ReasonRef } from "@/lib/reasons/reason-codes";
import type { ReplayCandidate } from "@/lib/replay/replay-candidates";

/** What replaying one event did (or would do). `skipped`: it could not be replayed at all (said why). */
export type ReplayOutcome = "applied" | "duplicate" | "ignored" | "failed" | "skipped";

/** One event's result: its outcome, the reason (English, with its code) and the order it reached. */
export interface ReplayEventResult {
  outcome: ReplayOutcome;
  reason: string;
  reasonRef?: ReasonRef;
  orderId: string | null;
  /** The failure's category, for `failed`. */
  category?: string;
}

/** Thrown for an event that cannot be replayed in this process (its endpoint is gone, it was stored meanwhile): the event is skipped. */
class ReplaySkip extends Error {
  constructor(readonly why: Because) {
    super(why.reason);
    this.name = "ReplaySkip";
  }
}

/** Thrown inside an event's savepoint when it reached an order whose books were not read yet: rolled back, read, applied again. */
class UnseenOrder extends Error {
  constructor(readonly orderId: string) {
    super(`order ${orderId} not read yet`);
    this.name = "UnseenOrder";
  }
}

/**
 * Why a candidate cannot be replayed before anything runs: its payload was purged or is not an event,
 * or another body is stored under its id. Undefined when it can.
 */
export function skipBeforeRun(candidate: ReplayCandidate): Because | undefined {
  if (candidate.bodyDiffers) return because("retry_body_differs", { eventId: candidate.eventId });
  if (candidate.payload === "") return because("replay_payload_purged", { eventId: candidate.eventId });
  if (!candidate.event) return because("retry_payload_not_json", {});
  return undefined;
}

/** The merchant's order id an event names, when it names one. */
function namedOrder(event: NormalizedEvent): string | undefined {
  return "orderRef" in event.effect ? event.effect.orderRef.orderId : undefined;
}

/** The endpoint a stored event is applied as: the configured one of its name, else the scope it was stored with (an endpoint removed since), as the inbox worker does. */
export function endpointScopeOf(candidate: { endpoint: string; organizationId: string; provider: string; livemode: boolean }): EndpointScope {
  return storedEventScope(candidate, endpointDefinitions().find((endpoint) => endpoint.name === candidate.endpoint));
}

/** The endpoint a dead letter's event would be stored through, or why it cannot be: resolved before the transaction (a data endpoint is read with Prisma). */
export type LetterEndpoint = { kind: "ok"; endpoint: ServedEndpoint } | { kind: "skip"; why: Because };

/**
 * The endpoints the events that only a dead letter holds are stored through, by name, as a dead letter's
 * retry resolves them (lib/triage/retry-dead-letter.ts): configured in the environment or stored as
 * data, for the same provider and account; otherwise why the event cannot be replayed here. Read
 * before any transaction. Throws the database's errors.
 */
export async function letterEndpoints(db: Db, candidates: readonly ReplayCandidate[], now: Date): Promise<Map<string, LetterEndpoint>> {
  const endpoints = new Map<string, LetterEndpoint>();
  for (const candidate of candidates) {
    if (candidate.storedEventId || endpoints.has(`${candidate.endpoint}\u0000${candidate.provider}\u0000${candidate.account}`)) continue;
    let endpoint: ServedEndpoint | undefined;
    let resolved: LetterEndpoint;
    try {
      endpoint = await resolveAnyEndpoint(db, candidate.endpoint, now);
      // A Connect endpoint's connected account is routed as at receipt, by its binding today.
      if (endpoint) endpoint = routeConnectEvent(endpoint, candidate.account);
      resolved =
        endpoint && endpoint.provider === candidate.provider && endpoint.account === candidate.account && endpoint.organizationId === candidate.organizationId
          ? { kind: "ok", endpoint }
          : { kind: "skip", why: because("retry_endpoint_gone", { endpoint: candidate.endpoint, provider: candidate.provider, account: candidate.account }) };
    } catch (error) {
      if (!(error instanceof EndpointConfigError)) throw error;
      resolved = { kind: "skip", why: because("retry_endpoint_misconfigured", { endpoint: candidate.endpoint }) };
    }
    endpoints.set(`${candidate.endpoint}\u0000${candidate.provider}\u0000${candidate.account}`, resolved);
  }
  return endpoints;
}

function endpointOfLetter(candidate: ReplayCandidate, endpoints: ReadonlyMap<string, LetterEndpoint>): ServedEndpoint {
  const resolved = endpoints.get(`${candidate.endpoint}\u0000${candidate.provider}\u0000${candidate.account}`);
  if (!resolved) throw new ReplaySkip(because("retry_endpoint_gone", { endpoint: candidate.endpoint, provider: candidate.provider, account: candidate.account }));
  if (resolved.kind === "skip") throw new ReplaySkip(resolved.why);
  return resolved.endpoint;
}

/**
 * Applies one candidate in `session` through {@link applyStoredEvent}: a stored event on its own row; an
 * event only a dead letter holds is first stored (its UNIQUE key, as a retry stores it) after the same
 * organisation check a delivery gets. Its decision row goes to `decisions`. Throws ApplyFailure when a
 * rule refuses it, ReplaySkip when it cannot run here, and the database's errors.
 */
async function applyCandidate(session: SqlSession, candidate: ReplayCandidate, now: Date, decisions: DecisionRow[], endpoints: ReadonlyMap<string, LetterEndpoint>): Promise<AppliedEvent> {
  const event = candidate.event!;
  const key = { provider: candidate.provider, account: candidate.account, livemode: candidate.livemode, eventId: candidate.eventId };
  const common = { key, event, bodyHash: candidate.bodyHash, secretLabel: candidate.secretLabel, source: "replay", httpStatus: null } as const;
  if (candidate.storedEventId) return applyStoredEvent(session, { ...common, rowId: candidate.storedEventId, endpoint: endpointScopeOf(candidate) }, now, decisions);
  const endpoint = endpointOfLetter(candidate, endpoints);
  const delivery = { endpoint, event, bodyHash: candidate.bodyHash, ...(candidate.secretLabel ? { secretLabel: candidate.secretLabel } : {}) };
  const mismatch = organisationMismatch(delivery);
  if (mismatch && "deadLetter" in mismatch) throw mismatch.deadLetter;
  if (mismatch) throw new ReplaySkip({ reason: mismatch.ignore.reason, reasonRef: mismatch.ignore.reasonRef! });
  let rowId: string;
  try {
    rowId = await insertStoredEvent(session, delivery, { status: "processing", attempts: 1 }, now);
  } catch (error) {
    if (error instanceof EventAlreadyStored) throw new ReplaySkip(because("replay_stored_meanwhile", { eventId: candidate.eventId }));
    throw error;
  }
  return applyStoredEvent(session, { ...common, rowId, endpoint }, now, decisions);
}

/** What running a replay's events in one transaction came to: each event's result, and the books of every order they reached, before and after. */
export interface ReplayRun {
  results: ReplayEventResult[];
  /** Every order the events named or reached, read before the first event that touched it (null: no such order). */
  before: Map<string, OrderBooks | null>;
  /** The same orders after the last event. */
  after: Map<string, OrderBooks | null>;
  /** What the applies did besides their answer (parked events woken, outbox messages queued): signalled after a commit. */
  applied: AppliedEvent[];
}

/**
 * Runs `candidates` in order in `session`'s transaction (with the endpoints {@link letterEndpoints}
 * resolved for those only a dead letter holds), each in its own SAVEPOINT through the real
 * apply entry point: a rule's refusal (ApplyFailure) rolls back only that event and is its result
 * (`failed`); an event that cannot run is `skipped`. Each order's books are read before the first
 * event that touches it: an event that reaches an order it did not name (a checkout session, a
 * payment's credit) is rolled back to its savepoint, the order read, and the event applied again, so
 * "before" is always the books as they stood. Decision rows go to `decisions` (the caller writes them,
 * or drops them for a preview). Throws ConcurrentChange, a unique violation or the database's errors.
 */
export async function runReplayEvents(session: SqlSession, organizationId: string, candidates: readonly ReplayCandidate[], now: Date, decisions: DecisionRow[], endpoints: ReadonlyMap<string, LetterEndpoint>): Promise<ReplayRun> {
  const before = new Map<string, OrderBooks | null>();
  const learn = async (orderId: string | null | undefined) => {
    if (orderId && !before.has(orderId)) before.set(orderId, await readOrderBooks(session, organizationId, orderId));
  };
  const results: ReplayEventResult[] = [];
  const applied: AppliedEvent[] = [];
  for (const candidate of candidates) {
    const skip = skipBeforeRun(candidate);
    if (skip) {
      results.push({ outcome: "skipped", ...skip, orderId: candidate.orderId });
      continue;
    }
    await learn(candidate.orderId);
    await learn(namedOrder(candidate.event!));
    for (;;) {
      try {
        const done = await session.savepoint(async () => {
          const own: DecisionRow[] = [];
          const result = await applyCandidate(session, candidate, now, own, endpoints);
          if (result.orderId && !before.has(result.orderId)) throw new UnseenOrder(result.orderId);
          decisions.push(...own);
          return result;
        });
        applied.push(done);
        const outcome = done.outcome === "applied" || done.outcome === "duplicate" || done.outcome === "ignored" ? done.outcome : "failed";
        results.push({ outcome, reason: done.reason, ...(done.reasonRef ? { reasonRef: done.reasonRef } : {}), orderId: done.orderId ?? candidate.orderId });
        break;
      } catch (error) {
        if (error instanceof UnseenOrder) {
          await learn(error.orderId);
          continue;
        }
        if (error instanceof ApplyFailure) {
          await learn(error.orderId);
          results.push({ outcome: "failed", reason: error.reason, ...(error.reasonRef ? { reasonRef: error.reasonRef } : {}), orderId: error.orderId ?? candidate.orderId, category: error.category });
          break;
        }
        if (error instanceof ReplaySkip) {
          results.push({ outcome: "skipped", ...error.why, orderId: candidate.orderId });
          break;
        }
        throw error;
      }
    }
  }
  const after = new Map<string, OrderBooks | null>();
  for (const orderId of before.keys()) after.set(orderId, await readOrderBooks(session, organizationId, orderId));
  return { results, before, after, applied };
}
