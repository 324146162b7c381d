import { ClaimingWorker } from "@/lib/jobs/claiming-worker";
import { newWorkerId } from "@/lib/jobs/worker-id";
import { settings } from "@/lib/config/settings";
import type { Db } from "@/lib/db/client";
import { signalAfterApply } from "@/lib/apply/apply-stored-event";
import { applyClaimedEvents, type ClaimedEventResult } from "@/lib/inbox/apply-claimed-events";
import { claimDueInboxEvents } from "@/lib/events/webhook-events";
import { inboxRetryPolicy, type RetryPolicy } from "@/lib/jobs/retry-policy";

/** Worker settings; every field defaults to the settings (INBOX_*). `now`/`random` are for tests. */
export interface InboxWorkerOptions {
  owner?: string;
  leaseMs?: number;
  /** Due events claimed and applied per transaction (default INBOX_CLAIM_BATCH). */
  batchSize?: number;
  pollIntervalMs?: number;
  policy?: RetryPolicy;
  now?: () => Date;
  random?: () => number;
}

/**
 * The inbox worker: claims due inbox events in batches under a lease (one statement, in index order)
 * and applies each batch in one transaction with the same core as inline mode ({@link applyClaimedEvents}). Any number of workers, in any number of processes,
 * may run against one database: the lease makes each event one worker's at a time, and the apply
 * transaction re-checks the lease before it commits.
 */
export class InboxWorker extends ClaimingWorker<ClaimedEventResult> {
  readonly owner: string;
  private readonly leaseMs: number;
  private readonly batchSize: number;
  private readonly policy: RetryPolicy;
  private readonly now: () => Date;

  constructor(
    private readonly database: () => Promise<Db>,
    private readonly options: InboxWorkerOptions = {},
  ) {
    super("inbox-worker", "inbox", options.pollIntervalMs ?? settings().INBOX_POLL_INTERVAL_MS);
    const config = settings();
    this.owner = options.owner ?? newWorkerId("inbox");
    this.leaseMs = options.leaseMs ?? config.INBOX_LEASE_MS;
    this.batchSize = options.batchSize ?? config.INBOX_CLAIM_BATCH;
    this.policy = options.policy ?? inboxRetryPolicy();
    this.now = options.now ?? (() => new Date());
  }

  /** Claims and handles at most one due event. Returns what happened, or null when nothing was due. */
  async runOnce(): Promise<ClaimedEventResult | null> {
    return (await this.runBatch(1))[0] ?? null;
  }

  /**
   * Claims up to `limit` due events (default the batch size) in one statement and applies them in one
   * transaction ({@link applyClaimedEvents}). Returns one result per claimed event; empty when nothing was due.
   */
  async runBatch(limit = this.batchSize): Promise<ClaimedEventResult[]> {
    const db = await this.database();
    const claimed = await claimDueInboxEvents(db, this.owner, this.now(), this.leaseMs, limit);
    if (claimed.length === 0) return [];
    const results = await applyClaimedEvents(db, claimed, { owner: this.owner, policy: this.policy, now: this.now, random: this.options.random });
    for (const result of results) if (result.kind === "applied") signalAfterApply(result.applied);
    return results;
  }

  /** The poll loop's step: one batch. */
  protected override async step(): Promise<boolean> {
    return (await this.runBatch()).length > 0;
  }

  /** Handles due events batch by batch until none is left (or `maxSteps` events); returns what each did. */
  override async drain(maxSteps = 100_000): Promise<ClaimedEventResult[]> {
    const results: ClaimedEventResult[] = [];
    while (results.length < maxSteps) {
      const batch = await this.runBatch(Math.min(this.batchSize, maxSteps - results.length));
      if (batch.length === 0) break;
      results.push(...batch);
    }
    return results;
  }
}
