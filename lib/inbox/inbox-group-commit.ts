import { randomUUID } from "node:crypto";
import { notifyWork } from "@/lib/background/signals";
import { settings } from "@/lib/config/settings";
import type { Db, Tx } from "@/lib/db/client";
import { decisionRow, logDecision, type DecisionRow } from "@/lib/decisions/record-decision";
import { decisionBaseOf, eventKeyOf, orderIdOf, storedEventData, type VerifiedDelivery } from "@/lib/events/delivery";
import { Prisma } from "@/lib/generated/prisma/client";
import { logger } from "@/lib/log/logger";

/**
 * What became of one delivery in a group commit:
 * - `stored`: its event row and its `accepted` decision row are committed (durable: synchronous=FULL);
 * - `exists`: its event key was already stored (earlier, or by an earlier delivery in the same batch):
 *   nothing was written for it; the caller tells a duplicate from a conflict;
 * - `failed`: the batch's transaction failed; nothing was written for it; the caller stores it alone.
 */
export type GroupCommitOutcome = "stored" | "exists" | "failed";

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

/** The reason of an `accepted` answer and decision row. */
export function acceptedReason(eventId: string): string {
  return `event ${eventId} stored in the inbox; a worker applies it`;
}

/**
 * Group commit for the inbox (issue 7: "find what costs the rest"): concurrent deliveries are stored
 * together, each batch in ONE transaction and ONE durable commit, instead of one transaction each. Every
 * delivery is still answered only after the commit that holds its row (a 2xx still means "stored").
 *
 * While a batch commits, deliveries that arrive queue; when it ends they form the next batch (up to
 * {@link MAX_GROUP_COMMIT_DELIVERIES}). One delivery alone is one batch of one: no timer, no added wait
 * beyond one turn of the event loop. A batch is two statements ({@link writeBatch}); the UNIQUE event
 * key stays the only guard. Every delivery of a failed batch (database busy or down) is stored alone by
 * the caller, with retries and a 503 at the end (lib/inbox/store-inbox-event.ts).
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

  /** Counts since start: committed batches, failed batches, deliveries stored and found already stored. */
  stats(): { batches: number; failedBatches: number; stored: number; existing: number } {
    return { ...this.counters };
  }

  private startFlushing(): void {
    if (this.flushing) return;
    this.flushing = true;
    this.flush()
      .catch((error: unknown) => logger.error({ err: error instanceof Error ? error.message : String(error) }, "inbox group commit loop failed"))
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
        batch.forEach((waiting, index) => waiting.settle(outcomes[index] ?? "failed"));
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
    return batch.map(() => "failed");
  }

  /** Writes one batch; never throws (a failed transaction is all `failed`). */
  private async commit(batch: Waiting[]): Promise<GroupCommitOutcome[]> {
    let written: { outcomes: GroupCommitOutcome[]; decisions: DecisionRow[] };
    try {
      written = await this.db.$transaction((tx) => writeBatch(tx, batch));
    } catch (error) {
      logger.warn({ err: error instanceof Error ? error.message : String(error), deliveries: batch.length }, "inbox group commit failed; storing its deliveries one by one");
      this.counters.failedBatches++;
      return batch.map(() => "failed");
    }
    this.counters.batches++;
    this.counters.stored += written.decisions.length;
    this.counters.existing += batch.length - written.decisions.length;
    try {
      logger.debug({ deliveries: batch.length, stored: written.decisions.length }, "inbox group commit");
      for (const row of written.decisions) logDecision(row);
      if (written.decisions.length > 0) notifyWork("inbox");
    } catch (error) {
      // The rows are committed: the answers stand even if logging or the wake-up failed.
      logger.error({ err: error instanceof Error ? error.message : String(error) }, "inbox group commit: post-commit step failed");
    }
    return written.outcomes;
  }
}

const EVENT_COLUMNS = ["id", "provider", "endpoint", "account", "livemode", "eventId", "type", "bodyHash", "orderId", "paymentKey", "payload", "secretLabel", "status", "attempts", "nextAttemptAt", "receivedAt"] as const;
const DECISION_COLUMNS = ["id", "at", "provider", "endpoint", "eventId", "verified", "eventType", "orderId", "outcome", "httpStatus", "reason", "secretLabel", "diagnosis", "source"] as const;

/** `"a", "b", ...`: quoted column names (the same spelling on SQLite and PostgreSQL). */
function columnList(columns: readonly string[]): Prisma.Sql {
  return Prisma.raw(columns.map((column) => `"${column}"`).join(", "));
}

/** `(v1, v2, ...), (...)`: rows as bound parameters (Prisma renders `?` or `$n` for the database). */
function valueRows<Row extends Record<string, unknown>>(rows: Row[], columns: readonly (keyof Row & string)[]): Prisma.Sql {
  return Prisma.join(rows.map((row) => Prisma.sql`(${Prisma.join(columns.map((column) => row[column]))})`));
}

/**
 * Writes one batch in the caller's transaction, as two parameterised statements whatever its size (the
 * model API would compile each row into its query plan: most of the receiver's CPU, lib/bench):
 * 1. `INSERT INTO WebhookEvent ... ON CONFLICT (provider, account, livemode, eventId) DO NOTHING
 *    RETURNING eventId`: the UNIQUE key decides; a key stored before (or by a concurrent transaction on
 *    PostgreSQL, which waits for it) comes back missing, so it is `exists`, never an error;
 * 2. one `accepted` decision row per event the insert returned.
 * Within the batch only the first delivery of a key is inserted. Times are written as the model API
 * writes them (the Date parameters go through the same adapter); ids are random UUIDs.
 */
async function writeBatch(tx: Tx, batch: Waiting[]): Promise<{ outcomes: GroupCommitOutcome[]; decisions: DecisionRow[] }> {
  const firstOfKey = new Map<string, number>();
  batch.forEach(({ delivery }, index) => {
    const key = keyText(delivery);
    if (!firstOfKey.has(key)) firstOfKey.set(key, index);
  });
  // Sorted by key: concurrent batches on PostgreSQL then take their unique-index locks in the same order
  // and cannot deadlock on each other.
  const candidates = [...firstOfKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, index]) => {
    const { delivery, now } = batch[index];
    return { index, row: { id: randomUUID(), ...storedEventData(delivery, { status: "received", attempts: 0, nextAttemptAt: now }), receivedAt: now } };
  });
  const inserted = await tx.$queryRaw<{ eventId: string; provider: string; account: string; livemode: boolean | number }[]>`
    INSERT INTO "WebhookEvent" (${columnList(EVENT_COLUMNS)})
    VALUES ${valueRows(candidates.map((candidate) => candidate.row), EVENT_COLUMNS)}
    ON CONFLICT ("provider", "account", "livemode", "eventId") DO NOTHING
    RETURNING "provider", "account", "livemode", "eventId"`;
  const storedNow = new Set(inserted.map((row) => JSON.stringify([row.provider, row.account, Boolean(row.livemode), row.eventId])));

  const outcomes: GroupCommitOutcome[] = batch.map(() => "exists");
  const decisions: (DecisionRow & { id: string; at: Date })[] = [];
  for (const { index } of candidates) {
    const { delivery, now } = batch[index];
    if (!storedNow.has(keyText(delivery))) continue;
    outcomes[index] = "stored";
    const row = decisionRow({ ...decisionBaseOf(delivery), orderId: orderIdOf(delivery.event), outcome: "accepted", httpStatus: 200, reason: acceptedReason(delivery.event.eventId) });
    decisions.push({ id: randomUUID(), at: now, ...row });
  }
  if (decisions.length > 0) {
    await tx.$executeRaw`INSERT INTO "Decision" (${columnList(DECISION_COLUMNS)}) VALUES ${valueRows(decisions, DECISION_COLUMNS)}`;
  }
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
