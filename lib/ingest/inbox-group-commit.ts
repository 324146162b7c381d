import { notifyWork } from "@/lib/jobs/signals";
import { settings } from "@/lib/config/settings";
import type { Db } from "@/lib/db/client";
import { isSameEvent } from "@/lib/core/event-key";
import { driverOf, type SqlSession } from "@/lib/db/driver";
import { decisionRow, insertDecisions, logDecision, type DecisionRow } from "@/lib/decisions/record-decision";
import { insertEvents } from "@/lib/events/webhook-events";
import { decisionBaseOf, eventKeyOf, newEventRow, orderIdOf, type VerifiedDelivery } from "@/lib/ingest/delivery";
import { duplicateBecause } from "@/lib/ingest/answers";
import { because, type Because } from "@/lib/reasons/reason-codes";
import { logger } from "@/lib/log/logger";
import { errorMessage } from "@/lib/log/error-message";

/**
 * What became of one delivery in a group commit:
 * - `stored`: its event row and its `accepted` decision row are committed (durable: synchronous=FULL);
 * - `duplicate`: the same event with the same body was already stored (earlier, or by an earlier
 *   delivery of the same batch): its `duplicate` decision row is committed; `status` and `orderId` are
 *   the stored event's;
 * - `exists`: its event key is stored with ANOTHER body (or the row could not be read): nothing was
 *   written for it; the caller answers it (a conflict is dead-lettered);
 * - `failed`: the batch's transaction failed; nothing was written for it; the caller stores it alone.
 */
export type GroupCommitOutcome = { kind: "stored" } | { kind: "duplicate"; status: string; orderId: string | null } | { kind: "exists" } | { kind: "failed" };

const FAILED: GroupCommitOutcome = { kind: "failed" };

interface Waiting {
  delivery: VerifiedDelivery;
  now: Date;
  settle: (outcome: GroupCommitOutcome) => void;
}

/** The largest batch one transaction takes: 64 events x 16 columns = 1,024 bound values per insert (SQLite allows 32,766). */
export const MAX_GROUP_COMMIT_DELIVERIES = 64;

/** `provider account livemode eventId`, the UNIQUE event key as one string. */
function keyText(delivery: VerifiedDelivery): string {
  const key = eventKeyOf(delivery);
  return JSON.stringify([key.provider, key.account, key.livemode, key.eventId]);
}

/** The reason of an `accepted` answer and decision row, with its code. */
export function acceptedBecause(eventId: string): Because {
  return because("accepted", { eventId });
}

/**
 * Group commit for the inbox: concurrent deliveries are stored
 * together, each batch in ONE transaction and ONE durable commit, instead of one transaction each. Every
 * delivery is still answered only after the commit that holds its row (a 2xx still means "stored").
 *
 * While a batch commits, deliveries that arrive queue; when it ends they form the next batch (up to
 * {@link MAX_GROUP_COMMIT_DELIVERIES}). One delivery alone is one batch of one: no timer, no added wait
 * beyond one turn of the event loop. A batch is two statements ({@link writeBatch}); the UNIQUE event
 * key stays the only guard. Every delivery of a failed batch (database busy or down) is stored alone by
 * the caller, with retries and a 503 at the end (lib/ingest/store-inbox-event.ts).
 */
export class InboxGroupCommit {
  private readonly queue: Waiting[] = [];
  private flushing = false;
  private readonly counters = { batches: 0, failedBatches: 0, stored: 0, existing: 0 };

  /**
   * @param maxBatch deliveries per transaction at most
   * @param stallMs how long one batch may take before its deliveries are answered `failed` (and stored
   *   one by one) while the batch finishes, or not, in the background: a connection that hangs must not
   *   hold every later delivery of the process. Default: the transaction timeout + 5 s.
   */
  constructor(
    private readonly db: Db,
    private readonly maxBatch = MAX_GROUP_COMMIT_DELIVERIES,
    private readonly stallMs = settings().DATABASE_TRANSACTION_TIMEOUT_MS + 5_000,
  ) {}

  /** Queues `delivery` for the next batch; resolves once that batch committed or failed. Never rejects. */
  store(delivery: VerifiedDelivery, now: Date): Promise<GroupCommitOutcome> {
    return new Promise((settle) => {
      this.queue.push({ delivery, now, settle });
      this.startFlushing();
    });
  }

  /** Counts since start: committed batches, failed batches, deliveries stored, deliveries whose event was already stored. */
  stats(): { batches: number; failedBatches: number; stored: number; existing: number } {
    return { ...this.counters };
  }

  private startFlushing(): void {
    if (this.flushing) return;
    this.flushing = true;
    this.flush()
      .catch((error: unknown) => logger.error({ err: errorMessage(error) }, "inbox group commit loop failed"))
      .finally(() => {
        this.flushing = false;
        if (this.queue.length > 0) this.startFlushing();
      });
  }

  private async flush(): Promise<void> {
    // Deliveries read in the same turn of the event loop join the first batch.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      let outcomes: GroupCommitOutcome[] = [];
      try {
        outcomes = await this.commitWithin(batch);
      } finally {
        // Every delivery taken from the queue is answered, whatever happened above.
        batch.forEach((waiting, index) => waiting.settle(outcomes[index] ?? FAILED));
      }
    }
  }

  /** {@link commit}, or all `failed` once it has taken `stallMs` (it may still commit later: see the constructor). */
  private async commitWithin(batch: Waiting[]): Promise<GroupCommitOutcome[]> {
    let timer: NodeJS.Timeout | undefined;
    const stalled = new Promise<"stalled">((resolve) => {
      timer = setTimeout(() => resolve("stalled"), this.stallMs);
    });
    const committing = this.commit(batch);
    const first = await Promise.race([committing, stalled]);
    clearTimeout(timer);
    if (first !== "stalled") return first;
    this.counters.failedBatches++;
    logger.warn({ deliveries: batch.length, stallMs: this.stallMs }, "inbox group commit stalled; storing its deliveries one by one");
    return batch.map(() => FAILED);
  }

  /** Writes one batch; never throws (a failed transaction is all `failed`). */
  private async commit(batch: Waiting[]): Promise<GroupCommitOutcome[]> {
    let written: { outcomes: GroupCommitOutcome[]; decisions: DecisionRow[] };
    try {
      written = await driverOf(this.db).transaction((session) => writeBatch(session, batch));
    } catch (error) {
      logger.warn({ err: errorMessage(error), deliveries: batch.length }, "inbox group commit failed; storing its deliveries one by one");
      this.counters.failedBatches++;
      return batch.map(() => FAILED);
    }
    const stored = written.outcomes.filter((outcome) => outcome.kind === "stored").length;
    this.counters.batches++;
    this.counters.stored += stored;
    this.counters.existing += batch.length - stored;
    try {
      logger.debug({ deliveries: batch.length, stored }, "inbox group commit");
      for (const row of written.decisions) logDecision(row);
      if (stored > 0) notifyWork("inbox");
    } catch (error) {
      // The rows are committed: the answers stand even if logging or the wake-up failed.
      logger.error({ err: errorMessage(error) }, "inbox group commit: post-commit step failed");
    }
    return written.outcomes;
  }
}

/** `(provider, account, livemode)` groups of a batch's deliveries, with their event ids: one indexed query each. */
function scopesOf(deliveries: VerifiedDelivery[]): { provider: string; account: string; livemode: boolean; eventIds: string[] }[] {
  const scopes = new Map<string, { provider: string; account: string; livemode: boolean; eventIds: string[] }>();
  for (const delivery of deliveries) {
    const key = eventKeyOf(delivery);
    const scope = JSON.stringify([key.provider, key.account, key.livemode]);
    const entry = scopes.get(scope) ?? { provider: key.provider, account: key.account, livemode: key.livemode, eventIds: [] };
    entry.eventIds.push(key.eventId);
    scopes.set(scope, entry);
  }
  return [...scopes.values()];
}

/**
 * Writes one batch in the caller's driver transaction, in a few prepared statements whatever its size
 * (the model API would compile each row into its query plan: most of the receiver's CPU, bench/):
 * 1. the event rows ({@link insertEvents}: `ON CONFLICT (provider, account, livemode, eventId) DO
 *    NOTHING RETURNING`): the UNIQUE key decides; a key stored before (or by a concurrent transaction on
 *    PostgreSQL, which waits for it) comes back missing, never an error. Within the batch only the
 *    first delivery of a key is inserted, in key order (concurrent batches on PostgreSQL then take
 *    their unique-index locks in the same order and cannot deadlock on each other);
 * 2. for the deliveries whose key was not inserted: one read of the stored rows per provider/account/
 *    mode: the same body hash is a `duplicate` (answered here), another one `exists` (the caller
 *    dead-letters the conflict);
 * 3. one insert of every `accepted` and `duplicate` decision row ({@link insertDecisions}), each at
 *    its delivery's arrival time.
 * Times are written as the model API writes them (lib/db/driver.ts); ids are ULIDs in write order.
 */
async function writeBatch(session: SqlSession, batch: Waiting[]): Promise<{ outcomes: GroupCommitOutcome[]; decisions: DecisionRow[] }> {
  const firstOfKey = new Map<string, number>();
  batch.forEach(({ delivery }, index) => {
    const key = keyText(delivery);
    if (!firstOfKey.has(key)) firstOfKey.set(key, index);
  });
  const candidates = [...firstOfKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, index]) => {
    const { delivery, now } = batch[index];
    return newEventRow(delivery, { status: "received", attempts: 0, nextAttemptAt: now }, now);
  });
  const inserted = await insertEvents(session, candidates);
  const insertedKeys = new Set(inserted.map((row) => JSON.stringify([row.provider, row.account, row.livemode, row.eventId])));

  const outcomes: GroupCommitOutcome[] = batch.map(() => ({ kind: "exists" }));
  const decisions: (DecisionRow & { at: Date })[] = [];
  const decide = (index: number, row: DecisionRow) => decisions.push({ ...row, at: batch[index].now });
  const repeats: number[] = [];
  batch.forEach(({ delivery }, index) => {
    const key = keyText(delivery);
    if (firstOfKey.get(key) !== index || !insertedKeys.has(key)) return void repeats.push(index);
    outcomes[index] = { kind: "stored" };
    decide(index, decisionRow({ ...decisionBaseOf(delivery), orderId: orderIdOf(delivery.event), outcome: "accepted", httpStatus: 200, ...acceptedBecause(delivery.event.eventId) }));
  });

  if (repeats.length > 0) {
    const stored = new Map<string, { bodyHash: string; status: string; orderId: string | null }>();
    for (const { provider, account, livemode, eventIds } of scopesOf(repeats.map((index) => batch[index].delivery))) {
      const unique = [...new Set(eventIds)];
      const rows = await session.all<{ eventId: string; bodyHash: string; status: string; orderId: string | null }>(
        `SELECT "eventId", "bodyHash", "status", "orderId" FROM "WebhookEvent" WHERE "provider" = ? AND "account" = ? AND "livemode" = ? AND "eventId" IN (${unique.map(() => "?").join(", ")})`,
        [provider, account, livemode, ...unique],
      );
      for (const row of rows) stored.set(JSON.stringify([provider, account, livemode, row.eventId]), row);
    }
    for (const index of repeats) {
      const { delivery } = batch[index];
      const row = stored.get(keyText(delivery));
      if (!row || !isSameEvent(row.bodyHash, delivery.bodyHash)) continue;
      outcomes[index] = { kind: "duplicate", status: row.status, orderId: row.orderId };
      decide(index, decisionRow({ ...decisionBaseOf(delivery), orderId: row.orderId ?? orderIdOf(delivery.event), outcome: "duplicate", httpStatus: 200, ...duplicateBecause(delivery.event.eventId, row.status) }));
    }
  }
  await insertDecisions(session, decisions, batch[0].now);
  return { outcomes, decisions };
}

const batchers = new WeakMap<Db, InboxGroupCommit>();

/** The group commit of `db` (one per client: each client has its own connection or pool). */
export function inboxGroupCommit(db: Db): InboxGroupCommit {
  let batcher = batchers.get(db);
  if (!batcher) {
    batcher = new InboxGroupCommit(db);
    batchers.set(db, batcher);
  }
  return batcher;
}
