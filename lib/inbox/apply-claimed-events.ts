import { applyStoredEvent, type AppliedEvent } from "@/lib/apply/apply-stored-event";
import type { EndpointScope, NormalizedEvent } from "@/lib/core/effect";
import type { EventKey } from "@/lib/core/event-key";
import { ApplyFailure, ConcurrentChange, type FailureCategory } from "@/lib/core/failures";
import type { Db } from "@/lib/db/client";
import { driverOf, type SqlSession } from "@/lib/db/driver";
import { isTransientDbError, uniqueViolationFields } from "@/lib/db/errors";
import { MAX_TRANSACTION_ATTEMPTS, transactionBackoff } from "@/lib/db/transient-retry";
import { upsertDeadLetter } from "@/lib/dead-letters/dead-letters";
import { decisionRow, insertDecisions, logDecision, type DecisionRow } from "@/lib/decisions/record-decision";
import { endpointDefinitions, type EndpointDefinition } from "@/lib/endpoints/endpoints";
import { storedEventScope } from "@/lib/endpoints/stored-event-scope";
import { guardEventLeases, markEventDead, scheduleEventRetry, type ClaimedInboxEvent } from "@/lib/events/webhook-events";
import { decideRetry, type RetryPolicy } from "@/lib/jobs/retry-policy";
import { errorMessage } from "@/lib/log/error-message";
import { logger } from "@/lib/log/logger";
import { crashAt } from "@/lib/test-hooks/crash-point";
import { because, type Because } from "@/lib/reasons/reason-codes";

/** What the worker did with one claimed event. */
export type ClaimedEventResult =
  | { kind: "applied"; applied: AppliedEvent }
  | { kind: "retry_scheduled"; nextAttemptAt: Date; delayMs: number; reason: string }
  | { kind: "dead_lettered"; category: FailureCategory; reason: string }
  | { kind: "lease_lost" }
  | { kind: "not_recorded"; reason: string };

/** Options of the worker step; `now` and `random` are injectable for tests. */
export interface ApplyClaimedOptions {
  owner: string;
  policy: RetryPolicy;
  now?: () => Date;
  random?: () => number;
}

/** A failure that is not a rule of the core (the database stayed busy, an unexpected error): retryable. */
type Failure = Pick<ApplyFailure, "retryable" | "reason" | "reasonRef"> & { category: string; orderId?: string };

function transientFailure(category: "database" | "internal", why: Because): Failure {
  return { category, reason: why.reason, reasonRef: why.reasonRef, retryable: true };
}

/** A failure's reason as the cause of a retry or a give-up: its code when it has one, else its sentence. */
const causeOf = (failure: Failure) => failure.reasonRef ?? failure.reason;

/** The dead letter of an event whose retries ran out: the limit reached and the last error, with their codes. */
function exhausted(decision: Extract<ReturnType<typeof decideRetry>, { action: "give_up" }>, failure: Failure, orderId: string | undefined): ApplyFailure {
  const limit = decision.limit;
  if (!limit) return new ApplyFailure("retries_exhausted", `${decision.reason}; last error: ${failure.reason}`, orderId);
  const why =
    limit.kind === "attempts"
      ? because("retries_exhausted_attempts", { attempts: limit.attempts, max: limit.max, cause: causeOf(failure) })
      : because("retries_exhausted_age", { attempts: limit.attempts, age: limit.age, maxAge: limit.maxAge, cause: causeOf(failure) });
  return new ApplyFailure("retries_exhausted", why, orderId);
}

function keyOf(claimed: ClaimedInboxEvent): EventKey {
  return { provider: claimed.provider, account: claimed.account, livemode: claimed.livemode, eventId: claimed.eventId };
}

/** The endpoints by name, read once per batch (not once per event: the hot path). */
type EndpointsByName = ReadonlyMap<string, Pick<EndpointDefinition, "name" | "provider" | "livemode">>;

function endpointsByName(): EndpointsByName {
  return new Map(endpointDefinitions().map((definition) => [definition.name, definition]));
}

function endpointOf(claimed: ClaimedInboxEvent, endpoints: EndpointsByName): EndpointScope {
  return storedEventScope(claimed, endpoints.get(claimed.endpoint));
}

/** What one event of a batch came to, before the commit: its result and the decision row to write. */
interface Handled {
  result: ClaimedEventResult;
  decision?: DecisionRow;
}

/**
 * Records a failed attempt in the batch's transaction: either parks the event for a retry (status
 * `failed`, nextAttemptAt with backoff and jitter, lastError; decision `retry_scheduled`) or, when
 * attempts or age ran out or the failure is not retryable, dead-letters it (status `dead`, one
 * DeadLetter row per event and body with reason and next action; decision `dead_lettered`).
 */
async function recordFailure(session: SqlSession, claimed: ClaimedInboxEvent, failure: Failure, options: ApplyClaimedOptions, at: Date): Promise<Handled> {
  const decision = decideRetry(failure, claimed.attempts, claimed.receivedAt, at, options.policy, options.random);
  const orderId = failure.orderId ?? claimed.orderId ?? undefined;
  const base = { organizationId: claimed.organizationId, provider: claimed.provider, endpoint: claimed.endpoint, eventId: claimed.eventId, verified: true, eventType: claimed.type, orderId, secretLabel: claimed.secretLabel, source: "worker", httpStatus: null } as const;
  const firstFailedAt = claimed.firstFailedAt ?? at;
  if (decision.action === "retry") {
    await scheduleEventRetry(session, claimed.id, decision.nextAttemptAt, { lastError: failure.reason, firstFailedAt });
    const why = because("retry_scheduled", { attempt: claimed.attempts, category: failure.category, cause: causeOf(failure), seconds: Math.round(decision.delayMs / 1000) });
    return {
      result: { kind: "retry_scheduled", nextAttemptAt: decision.nextAttemptAt, delayMs: decision.delayMs, reason: failure.reason },
      decision: decisionRow({ ...base, outcome: "retry_scheduled", ...why }),
    };
  }
  const dead = failure instanceof ApplyFailure && !failure.retryable ? failure : exhausted(decision, failure, orderId);
  await markEventDead(session, claimed.id, { lastError: dead.reason, firstFailedAt });
  await upsertDeadLetter(
    session,
    { organizationId: claimed.organizationId, key: keyOf(claimed), endpoint: claimed.endpoint, eventType: claimed.type, bodyHash: claimed.bodyHash, secretLabel: claimed.secretLabel, payload: claimed.payload, orderId, failure: dead, attempts: claimed.attempts, firstFailedAt },
    at,
  );
  return { result: { kind: "dead_lettered", category: dead.category, reason: dead.reason }, decision: decisionRow({ ...base, outcome: "dead_lettered", reason: dead.reason, reasonRef: dead.reasonRef }) };
}

/** The failure an event has before any apply: a payload that is not JSON, or too many claims without an end. */
function failureBeforeApply(claimed: ClaimedInboxEvent, policy: RetryPolicy): Failure | NormalizedEvent {
  let event: NormalizedEvent;
  try {
    event = JSON.parse(claimed.payload) as NormalizedEvent;
  } catch {
    return new ApplyFailure("schema", because("payload_not_json", { eventId: claimed.eventId }));
  }
  // Its earlier workers died mid-attempt (each claim counts one): stop feeding it to new workers.
  if (claimed.attempts > policy.maxAttempts) return transientFailure("internal", because("claimed_too_often", { attempts: claimed.attempts }));
  return event;
}

/**
 * Applies one event of the batch inside its own SAVEPOINT, with the same core as inline mode
 * ({@link applyStoredEvent}): a rule's refusal ({@link ApplyFailure}) rolls back only this event and
 * is recorded by the retry policy; a concurrent writer's change or a busy database is retried a few
 * times within the savepoint, then recorded as a retryable failure; any other error is logged and
 * recorded as a retryable internal failure. The events before and after it are unaffected.
 */
async function applyOne(session: SqlSession, claimed: ClaimedInboxEvent, options: ApplyClaimedOptions, at: Date, endpoints: EndpointsByName): Promise<Handled> {
  const prepared = failureBeforeApply(claimed, options.policy);
  if (!("effect" in prepared)) return recordFailure(session, claimed, prepared, options, at);
  const decisions: DecisionRow[] = [];
  let raced = false;
  for (let attempt = 1; attempt <= MAX_TRANSACTION_ATTEMPTS; attempt++) {
    decisions.length = 0;
    try {
      const applied = await session.savepoint(() =>
        applyStoredEvent(
          session,
          { rowId: claimed.id, key: keyOf(claimed), endpoint: endpointOf(claimed, endpoints), event: prepared, bodyHash: claimed.bodyHash, secretLabel: claimed.secretLabel, source: "worker", httpStatus: null },
          at,
          decisions,
        ),
      );
      return { result: { kind: "applied", applied }, decision: decisions[0] };
    } catch (error) {
      if (error instanceof ApplyFailure) return recordFailure(session, claimed, error, options, at);
      raced = uniqueViolationFields(error) !== undefined || error instanceof ConcurrentChange;
      if (raced || isTransientDbError(error)) continue;
      logger.error({ err: errorMessage(error), eventId: claimed.eventId }, "inbox event failed unexpectedly");
      return recordFailure(session, claimed, transientFailure("internal", because("unexpected_apply_error", {})), options, at);
    }
  }
  return recordFailure(session, claimed, transientFailure("database", raced ? because("concurrent_writer_tries", { tries: MAX_TRANSACTION_ATTEMPTS }) : because("database_busy_tries", { tries: MAX_TRANSACTION_ATTEMPTS })), options, at);
}

/**
 * Applies a batch of claimed inbox events in ONE driver transaction and one durable commit: the first
 * write re-asserts the batch's leases ({@link guardEventLeases}), then each event applies in its order
 * (events of one order keep their arrival order) inside its own SAVEPOINT ({@link applyOne}), its
 * failure recorded in the same transaction; the batch's decision rows are one multi-row insert. An
 * event whose lease was taken over is `lease_lost` and untouched. When the transaction itself fails
 * (database busy, connection lost), a batch of several is applied again one event per transaction;
 * a single event is retried a few times, and if nothing could be recorded it is `not_recorded` (its
 * lease expires and it is claimed again). Exactly once holds because every effect commits with its
 * event's mark and its business keys. Returns one result per claimed event, in the order given.
 */
export async function applyClaimedEvents(db: Db, claimed: ClaimedInboxEvent[], options: ApplyClaimedOptions): Promise<ClaimedEventResult[]> {
  if (claimed.length === 0) return [];
  const now = options.now ?? (() => new Date());
  for (let attempt = 1; attempt <= MAX_TRANSACTION_ATTEMPTS; attempt++) {
    try {
      const handled = await driverOf(db).transaction(async (session) => {
        const held = await guardEventLeases(session, claimed.map((event) => event.id), options.owner);
        const at = now();
        const endpoints = endpointsByName();
        const outcomes: Handled[] = [];
        for (const event of claimed) outcomes.push(held.has(event.id) ? await applyOne(session, event, options, at, endpoints) : { result: { kind: "lease_lost" } });
        await insertDecisions(session, outcomes.flatMap((outcome) => (outcome.decision ? [outcome.decision] : [])), at);
        return outcomes;
      });
      crashAt("after-commit-before-done");
      for (const outcome of handled) {
        if (outcome.decision) logDecision(outcome.decision);
        if (outcome.result.kind === "lease_lost") logger.warn({ owner: options.owner }, "inbox lease lost; another worker has the event");
      }
      return handled.map((outcome) => outcome.result);
    } catch (error) {
      if (claimed.length > 1) {
        logger.warn({ err: errorMessage(error), events: claimed.length }, "inbox batch failed; applying its events one by one");
        const results: ClaimedEventResult[] = [];
        for (const event of claimed) results.push(...(await applyClaimedEvents(db, [event], options)));
        return results;
      }
      if (!isTransientDbError(error) || attempt === MAX_TRANSACTION_ATTEMPTS) {
        // Nothing could be recorded (database unavailable): the lease expires and the event is tried again.
        logger.error({ err: errorMessage(error), eventId: claimed[0].eventId }, "inbox event not recorded");
        return [{ kind: "not_recorded", reason: errorMessage(error).slice(0, 200) }];
      }
      await transactionBackoff(attempt);
    }
  }
  return [{ kind: "not_recorded", reason: "database busy" }];
}

/** {@link applyClaimedEvents} for one event. */
export async function applyClaimedEvent(db: Db, claimed: ClaimedInboxEvent, options: ApplyClaimedOptions): Promise<ClaimedEventResult> {
  return (await applyClaimedEvents(db, [claimed], options))[0];
}
