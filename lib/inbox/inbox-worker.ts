import { ClaimingWorker } from "@/lib/background/claiming-worker";
import { newWorkerId } from "@/lib/background/worker-id";
import { settings } from "@/lib/config/settings";
import type { Db } from "@/lib/db/client";
import { signalAfterApply } from "@/lib/core/apply-stored-event";
import { applyClaimedEvent, type ClaimedEventResult } from "@/lib/inbox/apply-claimed-event";
import { claimNextInboxEvent } from "@/lib/inbox/claim-inbox-event";
import { inboxRetryPolicy, type RetryPolicy } from "@/lib/inbox/retry-policy";

/** Worker settings; every field defaults to the settings (INBOX_*). `now`/`random` are for tests. */
export interface InboxWorkerOptions {
  owner?: string;
  leaseMs?: number;
  pollIntervalMs?: number;
  policy?: RetryPolicy;
  now?: () => Date;
  random?: () => number;
}

/**
 * The inbox worker: claims due inbox events one at a time under a lease and applies each with the same
 * core as inline mode ({@link applyClaimedEvent}). Any number of workers, in any number of processes,
 * may run against one database: the lease makes each event one worker's at a time, and the apply
 * transaction re-checks the lease before it commits.
 */
export class InboxWorker extends ClaimingWorker<ClaimedEventResult> {
  readonly owner: string;
  private readonly leaseMs: number;
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
    this.policy = options.policy ?? inboxRetryPolicy();
    this.now = options.now ?? (() => new Date());
  }

  /** Claims and handles at most one due event. Returns what happened, or null when nothing was due. */
  async runOnce(): Promise<ClaimedEventResult | null> {
    const db = await this.database();
    const claimed = await claimNextInboxEvent(db, this.owner, this.now(), this.leaseMs);
    if (!claimed) return null;
    const result = await applyClaimedEvent(db, claimed, { owner: this.owner, policy: this.policy, now: this.now, random: this.options.random });
    if (result.kind === "applied") signalAfterApply(result.applied);
    return result;
  }
}
