import { applyStoredEvent, type AppliedEvent, type StoredEvent } from "@/lib/apply/apply-stored-event";
import { ApplyFailure } from "@/lib/core/failures";
import type { Db } from "@/lib/db/client";
import { driverOf, type SqlSession } from "@/lib/db/driver";
import { isTimeoutDbError } from "@/lib/db/errors";
import { insertDecisions, logDecision, type DecisionRow } from "@/lib/decisions/record-decision";
import { EventAlreadyStored, eventKeyOf, insertStoredEvent, type VerifiedDelivery } from "@/lib/ingest/delivery";
import { errorMessage } from "@/lib/log/error-message";
import { logger } from "@/lib/log/logger";

/**
 * What a delivery's turn in a group came to, once the group's transaction committed (or failed):
 * applied (its effect is committed); `exists` (its event key was already stored); `refused` (a rule
 * refused it: nothing of it was kept); `alone` (it must be tried again in a transaction of its own: a
 * concurrent writer, a busy database, the group's commit failed); `timed_out` (the group's transaction
 * ran past DATABASE_TRANSACTION_TIMEOUT_MS and was rolled back: the database is overloaded or blocked,
 * so it is answered 503 at once rather than tried again inside the request).
 */
export type GroupApplyOutcome =
  | { kind: "applied"; applied: AppliedEvent }
  | { kind: "exists" }
  | { kind: "refused"; failure: ApplyFailure }
  | { kind: "alone" }
  | { kind: "timed_out" };

/** Deliveries applied per transaction at most. */
export const MAX_INLINE_GROUP = 64;

interface Waiting {
  delivery: VerifiedDelivery;
  settle: (outcome: GroupApplyOutcome) => void;
}

/**
 * Stores an inline delivery's event (status `processing`, attempt 1: its UNIQUE key first) and applies
 * it ({@link applyStoredEvent}) in `session`'s transaction, at `now`. The decision rows go to
 * `decisions` when given (the group writes them in one insert), else they are written here. Returns
 * the applied event; throws EventAlreadyStored when the key is taken, ApplyFailure when a rule refuses
 * it, and the database's errors.
 */
export async function storeAndApply(session: SqlSession, delivery: VerifiedDelivery, now: Date, decisions?: DecisionRow[]): Promise<AppliedEvent> {
  const rowId = await insertStoredEvent(session, delivery, { status: "processing", attempts: 1 }, now);
  return applyStoredEvent(session, storedOf(delivery, rowId), now, decisions);
}

/** The stored event of an inline delivery: its row was inserted first in the same transaction. */
function storedOf(delivery: VerifiedDelivery, rowId: string): StoredEvent {
  return {
    rowId,
    key: eventKeyOf(delivery),
    endpoint: delivery.endpoint,
    event: delivery.event,
    bodyHash: delivery.bodyHash,
    secretLabel: delivery.secretLabel,
    source: delivery.source ?? "receiver",
    httpStatus: 200,
  };
}

/**
 * Group commit of inline applies: deliveries that arrive together (read in the same turn of the event
 * loop, or while a group commits) are stored and applied in ONE driver transaction, each inside its own
 * SAVEPOINT, and one durable commit answers them all; each is answered only after the commit that holds
 * its effect. Within a group each delivery is its own unit: its UNIQUE event insert first, then its
 * apply ({@link applyStoredEvent}); a refusal or a taken key rolls back only that delivery. The group's
 * decision rows are one insert. A group of one is exactly the single-delivery transaction.
 */
export class InlineGroupApply {
  private readonly queue: Waiting[] = [];
  private flushing = false;

  constructor(
    private readonly db: Db,
    private readonly maxGroup = MAX_INLINE_GROUP,
  ) {}

  /** Queues `delivery` for the next group; resolves once that group committed or failed. Never rejects. */
  apply(delivery: VerifiedDelivery): Promise<GroupApplyOutcome> {
    return new Promise((settle) => {
      this.queue.push({ delivery, settle });
      if (!this.flushing) {
        this.flushing = true;
        void this.flush().finally(() => {
          this.flushing = false;
        });
      }
    });
  }

  private async flush(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    while (this.queue.length > 0) {
      const group = this.queue.splice(0, this.maxGroup);
      let outcomes: GroupApplyOutcome[] = [];
      try {
        outcomes = await this.commit(group);
      } finally {
        group.forEach((waiting, index) => waiting.settle(outcomes[index] ?? { kind: "alone" }));
      }
    }
  }

  private async commit(group: Waiting[]): Promise<GroupApplyOutcome[]> {
    const decisions: DecisionRow[] = [];
    try {
      const outcomes = await driverOf(this.db).transaction(async (session) => {
        const now = new Date();
        const results: GroupApplyOutcome[] = [];
        for (const { delivery } of group) results.push(await applyInGroup(session, delivery, now, decisions));
        await insertDecisions(session, decisions, now);
        return results;
      });
      for (const row of decisions) logDecision(row);
      return outcomes;
    } catch (error) {
      if (isTimeoutDbError(error)) {
        logger.error({ err: errorMessage(error), deliveries: group.length }, "inline group timed out; rolled back");
        return group.map(() => ({ kind: "timed_out" }));
      }
      if (group.length > 1) logger.warn({ err: errorMessage(error), deliveries: group.length }, "inline group failed; applying its deliveries one by one");
      return group.map(() => ({ kind: "alone" }));
    }
  }
}

/** One delivery's unit in a group: its event row and its apply inside a savepoint. */
async function applyInGroup(session: SqlSession, delivery: VerifiedDelivery, now: Date, decisions: DecisionRow[]): Promise<GroupApplyOutcome> {
  const own: DecisionRow[] = [];
  try {
    const applied = await session.savepoint(() => storeAndApply(session, delivery, now, own));
    decisions.push(...own);
    return { kind: "applied", applied };
  } catch (error) {
    if (error instanceof EventAlreadyStored) return { kind: "exists" };
    if (error instanceof ApplyFailure) return { kind: "refused", failure: error };
    return { kind: "alone" };
  }
}

const groups = new WeakMap<Db, InlineGroupApply>();

/** The process's inline group for `db` (one per client). */
export function inlineGroupApply(db: Db): InlineGroupApply {
  let group = groups.get(db);
  if (!group) {
    group = new InlineGroupApply(db);
    groups.set(db, group);
  }
  return group;
}
