import type { Db, Tx } from "@/lib/db/client";
import { driverOf, type SqlSession } from "@/lib/db/driver";
import { isTransientDbError, uniqueViolationFields } from "@/lib/db/errors";
import { MAX_TRANSACTION_ATTEMPTS, transactionBackoff } from "@/lib/db/transient-retry";
import { recordDeadLetter } from "@/lib/dead-letters/dead-letters";
import { recordDecision } from "@/lib/decisions/record-decision";
import { endpointDefinitions, type EndpointDefinition } from "@/lib/endpoints/endpoints";
import { applyStoredEvent, type AppliedEvent } from "@/lib/core/apply-stored-event";
import type { EventKey } from "@/lib/core/event-key";
import { ApplyFailure, ConcurrentChange, type FailureCategory } from "@/lib/core/failures";
import type { ClaimedInboxEvent } from "@/lib/inbox/claim-inbox-event";
import { decideRetry, type RetryPolicy } from "@/lib/inbox/retry-policy";
import { logger } from "@/lib/log/logger";
import { crashAt } from "@/lib/test-hooks/crash-point";
import type { NormalizedEvent } from "@/lib/core/effect";
import { errorMessage } from "@/lib/log/error-message";

/** What one worker step did with a claimed event. */
export type ClaimedEventResult =
  | { kind: "applied"; applied: AppliedEvent }
  | { kind: "retry_scheduled"; nextAttemptAt: Date; delayMs: number; reason: string }
  | { kind: "dead_lettered"; category: FailureCategory; reason: string }
  | { kind: "lease_lost" }
  | { kind: "not_recorded"; reason: string };

/** Options of the worker step; `now` is injectable for tests. */
export interface ApplyClaimedOptions {
  owner: string;
  policy: RetryPolicy;
  now?: () => Date;
  random?: () => number;
}

/** Thrown inside a transaction when this worker no longer holds the event's lease: rolls everything back. */
class LeaseLost extends Error {
  constructor() {
    super("lease lost");
    this.name = "LeaseLost";
  }
}

/** A failure that is not a rule of the core: the database stayed busy, or an unexpected error. Retryable. */
function transientFailure(category: "database" | "internal", reason: string): Pick<ApplyFailure, "retryable" | "reason"> & { category: string } {
  return { category, reason, retryable: true };
}

function keyOf(claimed: ClaimedInboxEvent): EventKey {
  return { provider: claimed.provider, account: claimed.account, livemode: claimed.livemode, eventId: claimed.eventId };
}

function endpointOf(claimed: ClaimedInboxEvent): Pick<EndpointDefinition, "name" | "provider" | "livemode"> {
  const definition = endpointDefinitions().find((candidate) => candidate.name === claimed.endpoint);
  // An endpoint removed from the configuration after the event was stored: its stored scope stands in.
  return definition ?? { name: claimed.endpoint, provider: claimed.provider as EndpointDefinition["provider"], livemode: claimed.livemode };
}

/** The first write of every worker transaction: proves this worker still holds the lease (SQLite: write first). */
async function guardLeaseSql(session: SqlSession, claimed: ClaimedInboxEvent, owner: string): Promise<void> {
  const changed = await session.run(`UPDATE "WebhookEvent" SET "leaseOwner" = ? WHERE "id" = ? AND "status" = 'processing' AND "leaseOwner" = ?`, [owner, claimed.id, owner]);
  if (changed !== 1) throw new LeaseLost();
}

/** {@link guardLeaseSql} for the failure-recording transaction, which still runs on the model API. */
async function guardLease(tx: Tx, claimed: ClaimedInboxEvent, owner: string): Promise<void> {
  const { count } = await tx.webhookEvent.updateMany({ where: { id: claimed.id, status: "processing", leaseOwner: owner }, data: { leaseOwner: owner } });
  if (count !== 1) throw new LeaseLost();
}

/**
 * Applies one claimed inbox event with the same core as inline mode ({@link applyStoredEvent}), in one
 * transaction that starts by re-checking this worker's lease, so an event whose lease expired and was
 * taken over is never applied by both. Failures follow the retry policy: a retryable one
 * (transition, unknown order, busy database) parks the event with exponential backoff and jitter,
 * recording attempts, last error and next attempt; when attempts or age run out, or the failure is not
 * retryable (amount, currency, organisation, schema), the event becomes a dead letter at once. Returns
 * what happened; never throws for expected failures.
 */
export async function applyClaimedEvent(db: Db, claimed: ClaimedInboxEvent, options: ApplyClaimedOptions): Promise<ClaimedEventResult> {
  const now = options.now ?? (() => new Date());
  let event: NormalizedEvent;
  try {
    event = JSON.parse(claimed.payload) as NormalizedEvent;
  } catch {
    return recordFailure(db, claimed, new ApplyFailure("schema", `stored payload of event ${claimed.eventId} is not valid JSON`), options);
  }
  if (claimed.attempts > options.policy.maxAttempts) {
    // Its earlier workers died mid-attempt (each claim counts one): stop feeding it to new workers.
    const failure = transientFailure("internal", `claimed ${claimed.attempts} times without finishing (workers stopped mid-attempt)`);
    return recordFailure(db, claimed, failure, options);
  }
  const endpoint = endpointOf(claimed);
  let lastError = "";
  for (let attempt = 1; attempt <= MAX_TRANSACTION_ATTEMPTS; attempt++) {
    try {
      const applied = await driverOf(db).transaction(async (tx) => {
        await guardLeaseSql(tx, claimed, options.owner);
        return applyStoredEvent(
          tx,
          { rowId: claimed.id, key: keyOf(claimed), endpoint, event, bodyHash: claimed.bodyHash, secretLabel: claimed.secretLabel, source: "worker", httpStatus: null },
          now(),
        );
      });
      crashAt("after-commit-before-done");
      return { kind: "applied", applied };
    } catch (error) {
      if (error instanceof LeaseLost) {
        logger.warn({ eventId: claimed.eventId, owner: options.owner }, "inbox lease lost; another worker has the event");
        return { kind: "lease_lost" };
      }
      if (error instanceof ApplyFailure) return recordFailure(db, claimed, error, options);
      const raced = uniqueViolationFields(error) !== undefined || error instanceof ConcurrentChange;
      if (raced || isTransientDbError(error)) {
        lastError = raced ? "a concurrent writer changed the order" : "database busy";
        await transactionBackoff(attempt);
        continue;
      }
      logger.error({ err: errorMessage(error), eventId: claimed.eventId }, "inbox event failed unexpectedly");
      return recordFailure(db, claimed, transientFailure("internal", "unexpected error while applying (see the worker's log)"), options);
    }
  }
  return recordFailure(db, claimed, transientFailure("database", `${lastError} after ${MAX_TRANSACTION_ATTEMPTS} tries`), options);
}

/**
 * Records a failed attempt in one transaction (lease re-checked first): either parks the event for a
 * retry (status `failed`, nextAttemptAt, lastError, decision `retry_scheduled`) or dead-letters it
 * (status `dead`, a DeadLetter row with reason and next action, decision `dead_lettered`).
 */
async function recordFailure(
  db: Db,
  claimed: ClaimedInboxEvent,
  failure: Pick<ApplyFailure, "retryable" | "reason"> & { category: string; orderId?: string },
  options: ApplyClaimedOptions,
): Promise<ClaimedEventResult> {
  const at = (options.now ?? (() => new Date()))();
  const decision = decideRetry(failure, claimed.attempts, claimed.receivedAt, at, options.policy, options.random);
  const deadFailure =
    decision.action === "retry"
      ? undefined
      : failure instanceof ApplyFailure && !failure.retryable
        ? failure
        : new ApplyFailure("retries_exhausted", `${decision.reason}; last error: ${failure.reason}`, failure.orderId ?? claimed.orderId ?? undefined);
  const orderId = failure.orderId ?? claimed.orderId ?? undefined;
  const decisionRow = {
    provider: claimed.provider,
    endpoint: claimed.endpoint,
    eventId: claimed.eventId,
    verified: true,
    eventType: claimed.type,
    orderId,
    secretLabel: claimed.secretLabel,
    source: "worker",
    httpStatus: null,
  } as const;
  try {
    await db.$transaction(async (tx) => {
      await guardLease(tx, claimed, options.owner);
      if (decision.action === "retry") {
        await tx.webhookEvent.update({
          where: { id: claimed.id },
          data: {
            status: "failed",
            nextAttemptAt: decision.nextAttemptAt,
            dueAt: decision.nextAttemptAt,
            lastError: failure.reason.slice(0, 500),
            firstFailedAt: claimed.firstFailedAt ?? at,
            leaseOwner: null,
            leaseExpiresAt: null,
          },
        });
        await recordDecision(tx, {
          ...decisionRow,
          outcome: "retry_scheduled",
          reason: `attempt ${claimed.attempts} failed (${failure.category}): ${failure.reason}; next attempt in ${Math.round(decision.delayMs / 1000)} s`,
        });
        return;
      }
      const dead = deadFailure!;
      await tx.webhookEvent.update({
        where: { id: claimed.id },
        data: { status: "dead", nextAttemptAt: null, dueAt: null, lastError: dead.reason.slice(0, 500), firstFailedAt: claimed.firstFailedAt ?? at, leaseOwner: null, leaseExpiresAt: null },
      });
      await recordDeadLetter(
        tx,
        {
          key: keyOf(claimed),
          endpoint: claimed.endpoint,
          eventType: claimed.type,
          bodyHash: claimed.bodyHash,
          payload: claimed.payload,
          orderId,
          failure: dead,
          attempts: claimed.attempts,
          firstFailedAt: claimed.firstFailedAt ?? at,
        },
        at,
      );
      await recordDecision(tx, { ...decisionRow, outcome: "dead_lettered", reason: dead.reason });
    });
  } catch (error) {
    if (error instanceof LeaseLost) return { kind: "lease_lost" };
    // The failure could not be recorded (database unavailable): the lease expires and the event is tried again.
    logger.error({ err: errorMessage(error), eventId: claimed.eventId }, "inbox failure not recorded");
    return { kind: "not_recorded", reason: failure.reason };
  }
  if (decision.action === "retry") return { kind: "retry_scheduled", nextAttemptAt: decision.nextAttemptAt, delayMs: decision.delayMs, reason: failure.reason };
  return { kind: "dead_lettered", category: deadFailure!.category, reason: deadFailure!.reason };
}
