import { ClaimingWorker } from "@/lib/jobs/claiming-worker";
import { newWorkerId } from "@/lib/jobs/worker-id";
import { settings } from "@/lib/config/settings";
import type { Db } from "@/lib/db/client";
import { logger } from "@/lib/log/logger";
import type { RunPacing } from "@/lib/reconciliation/payment-run";
import { claimNextRun, executeRun, type RunOutcome } from "@/lib/reconciliation/runs";

/** How often a reconciliation worker looks for queued runs when nothing woke it (ms): the inbox's poll interval, at least 1 s. */
export function reconciliationPollIntervalMs(): number {
  return Math.max(settings().INBOX_POLL_INTERVAL_MS, 1_000);
}

/** What one step of the worker did: the run it took and how it ended. */
export interface ReconciliationStep {
  runId: string;
  outcome: RunOutcome;
}

/**
 * Processes queued reconciliation runs, one at a time per worker and at most one per scope across all
 * workers (claimNextRun: the UNIQUE activeScope): claims the oldest run whose scope is free, reads its
 * spooled report in batches with its progress recorded (executeRun), and takes the next. Runs in the
 * server process beside the inbox worker (RECONCILIATION_WORKER_ENABLED) and in `npm run worker`;
 * woken at once by an upload in the same process, else finds queued runs by polling.
 */
export class ReconciliationWorker extends ClaimingWorker<ReconciliationStep> {
  readonly owner: string;
  private stopping = new AbortController();
  private readonly pacing: RunPacing | undefined;

  /** `pacing`: what a run does after each transaction (default: yield to the event loop; see payment-run.ts's shareWriteLock). */
  constructor(
    private readonly database: () => Promise<Db>,
    options: { owner?: string; pollIntervalMs?: number; pacing?: RunPacing } = {},
  ) {
    super("reconciliation-worker", "reconciliation", options.pollIntervalMs ?? reconciliationPollIntervalMs());
    this.owner = options.owner ?? newWorkerId("reconciliation");
    this.pacing = options.pacing;
  }

  async runOnce(): Promise<ReconciliationStep | null> {
    const db = await this.database();
    const run = await claimNextRun(db, this.owner);
    if (!run) return null;
    logger.info({ runId: run.id, format: run.format, scope: `${run.scope.provider}:${run.scope.account}:${run.scope.livemode ? "live" : "test"}`, worker: this.owner }, "reconciliation run claimed");
    const outcome = await executeRun(db, run, { signal: this.stopping.signal, pacing: this.pacing });
    logger.info({ runId: run.id, status: outcome.status, worker: this.owner }, "reconciliation run ended");
    return { runId: run.id, outcome };
  }

  /** Starts polling; a worker stopped before may start again. */
  override start(): void {
    if (this.stopping.signal.aborted) this.stopping = new AbortController();
    super.start();
  }

  /** Stops: the run in hand goes back to the queue at its next batch (a large run would otherwise hold the stop for minutes). */
  override async stop(): Promise<void> {
    this.stopping.abort();
    await super.stop();
  }
}
