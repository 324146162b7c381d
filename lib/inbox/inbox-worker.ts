import { PollLoop } from "@/lib/background/poll-loop";
import { onWork } from "@/lib/background/signals";
import { newWorkerId } from "@/lib/background/worker-id";
import { settings } from "@/lib/config/settings";
import type { Db } from "@/lib/db/client";
import { signalAfterApply } from "@/lib/events/apply-stored-event";
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
export class InboxWorker {
  readonly owner: string;
  private readonly leaseMs: number;
  private readonly policy: RetryPolicy;
  private readonly now: () => Date;
  private readonly loop: PollLoop;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly database: () => Promise<Db>,
    private readonly options: InboxWorkerOptions = {},
  ) {
    const config = settings();
    this.owner = options.owner ?? newWorkerId("inbox");
    this.leaseMs = options.leaseMs ?? config.INBOX_LEASE_MS;
    this.policy = options.policy ?? inboxRetryPolicy();
    this.now = options.now ?? (() => new Date());
    this.loop = new PollLoop("inbox-worker", async () => (await this.runOnce()) !== null, options.pollIntervalMs ?? config.INBOX_POLL_INTERVAL_MS);
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

  /** Handles due events until none is left (or `maxSteps`); returns what each step did. For tests and tools. */
  async drain(maxSteps = 100_000): Promise<ClaimedEventResult[]> {
    const results: ClaimedEventResult[] = [];
    for (let step = 0; step < maxSteps; step++) {
      const result = await this.runOnce();
      if (!result) break;
      results.push(result);
    }
    return results;
  }

  /** Starts polling (and listening for in-process wake-ups). */
  start(): void {
    this.unsubscribe ??= onWork("inbox", () => this.loop.wake());
    this.loop.start();
  }

  /** Stops: the event in hand is finished (applied or its failure recorded), nothing new is claimed. */
  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await this.loop.stop();
  }
}
