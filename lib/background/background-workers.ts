import { settings } from "@/lib/config/settings";
import { db as defaultDb, type Db } from "@/lib/db/client";
import { InboxWorker, type InboxWorkerOptions } from "@/lib/inbox/inbox-worker";
import { logger } from "@/lib/log/logger";
import { startReconciliationProcess, type ReconciliationProcess } from "@/lib/background/reconciliation-process";
import { OutboxDispatcher, type OutboxDispatcherOptions } from "@/lib/outbox/outbox-dispatcher";
import { ReconciliationWorker, reconciliationPollIntervalMs } from "@/lib/reconciliation/reconciliation-worker";
import { hasRunToClaim } from "@/lib/reconciliation/runs";
import { RetentionScheduler } from "@/lib/retention/retention-schedule";
import { BooksCheckScheduler } from "@/lib/verification/books-check-schedule";
import { BackfillRequestWorker, GapCheckScheduler } from "@/lib/backfill/gap-check";
import { pullTimeMinutes, SettlementPullScheduler } from "@/lib/settlement-pull/settlement-pull";
import { AlertScheduler } from "@/lib/alerts/alert-evaluator";
import { sendAlertMessage } from "@/lib/alerts/send-alert";

/** The background work of one process: an inbox worker, an outbox dispatcher, a reconciliation worker, the daily payload retention, the daily check of the books and the gap check. */
export interface BackgroundWorkers {
  inbox: InboxWorker;
  outbox: OutboxDispatcher;
  /** The in-process reconciliation worker (not started when the runs go to {@link reconciliationProcess}). */
  reconciliation: ReconciliationWorker;
  /** The reconciliation worker's own process, when started beside this one (`reconciliationProcess`). */
  reconciliationProcess?: ReconciliationProcess;
  retention: RetentionScheduler;
  /** The daily check of the books (rebuild and compare; lib/verification). */
  booksCheck: BooksCheckScheduler;
  /** The gap check (lib/backfill): missed events fetched from the provider's API; absent when GAP_CHECK_INTERVAL_SECONDS is 0. */
  gapCheck?: GapCheckScheduler;
  /** The backfills asked for on the Endpoints page (lib/backfill). */
  backfillRequests: BackfillRequestWorker;
  /** The daily settlement pulls (lib/settlement-pull); absent when SETTLEMENT_PULL_TIME is off. */
  settlementPull?: SettlementPullScheduler;
  /** The alert rules' evaluator (lib/alerts); absent when ALERTS_CHECK_INTERVAL_SECONDS is 0. */
  alerts?: AlertScheduler;
  /** Stops all three: what each holds is finished and recorded; resolves when done. */
  stop(): Promise<void>;
}

/**
 * Starts one inbox worker, one outbox dispatcher, one reconciliation worker, the daily payload
 * retention (lib/retention) and the daily check of the books (lib/verification) on `database` (default: the process's client); the dispatcher only when
 * OUTBOX_DISPATCHER_ENABLED, the reconciliation worker only when RECONCILIATION_WORKER_ENABLED. Used by the server process (instrumentation.ts) and by
 * `npm run worker`; run as many processes as needed (retention runs once a day across all of them).
 * With `reconciliationProcess` (the server, RECONCILIATION_WORKER_PROCESS) the reconciliation worker
 * runs in a child process beside this one (lib/background/reconciliation-process.ts) instead of on
 * this event loop; it falls back to this process when the child's entry file is missing.
 */
export function startBackgroundWorkers(
  options: { database?: () => Promise<Db>; inbox?: InboxWorkerOptions; outbox?: OutboxDispatcherOptions; where?: string; reconciliationProcess?: boolean } = {},
): BackgroundWorkers {
  const database = options.database ?? defaultDb;
  const inbox = new InboxWorker(database, options.inbox);
  // The dispatcher sends alert notices too, through lib/alerts' sender (the outbox cannot import lib/alerts, which writes it).
  const outbox = new OutboxDispatcher(database, { channelSender: (client, message) => sendAlertMessage(client, message), ...options.outbox });
  const retention = new RetentionScheduler(database);
  const booksCheck = new BooksCheckScheduler(database);
  const gapCheckSeconds = settings().GAP_CHECK_INTERVAL_SECONDS;
  const gapCheck = gapCheckSeconds > 0 ? new GapCheckScheduler(database, { intervalMs: gapCheckSeconds * 1000, apiBase: settings().STRIPE_API_BASE }) : undefined;
  const backfillRequests = new BackfillRequestWorker(database, { apiBase: settings().STRIPE_API_BASE });
  const pullMinutes = pullTimeMinutes(settings().SETTLEMENT_PULL_TIME);
  const settlementPull = pullMinutes === null ? undefined : new SettlementPullScheduler(database, { pullMinutes, apiBase: settings().STRIPE_API_BASE });
  const alertSeconds = settings().ALERTS_CHECK_INTERVAL_SECONDS;
  const alerts = alertSeconds > 0 ? new AlertScheduler(database, { intervalMs: alertSeconds * 1000 }) : undefined;
  const reconciliation = new ReconciliationWorker(database);
  inbox.start();
  if (settings().OUTBOX_DISPATCHER_ENABLED) outbox.start();
  let reconciliationProcess: ReconciliationProcess | undefined;
  if (settings().RECONCILIATION_WORKER_ENABLED) {
    // The child is started by the first run (an upload here, or one queued elsewhere): a server that never reconciles never holds it.
    reconciliationProcess = options.reconciliationProcess
      ? startReconciliationProcess({ waitForWork: { hasWork: async () => hasRunToClaim(await database()), pollIntervalMs: reconciliationPollIntervalMs() } })
      : undefined;
    if (options.reconciliationProcess && !reconciliationProcess) logger.warn("scripts/reconciliation-worker.ts not found: the reconciliation worker runs in this process");
    if (!reconciliationProcess) reconciliation.start();
  }
  retention.start();
  booksCheck.start();
  gapCheck?.start();
  backfillRequests.start();
  settlementPull?.start();
  alerts?.start();
  logger.info({ inboxWorker: inbox.owner, outboxDispatcher: outbox.owner, reconciliationWorker: reconciliationProcess ? "a process of its own, from the first run" : reconciliation.owner, where: options.where ?? "process" }, "background workers started");
  let stopping: Promise<void> | undefined;
  return {
    inbox,
    outbox,
    retention,
    booksCheck,
    gapCheck,
    backfillRequests,
    settlementPull,
    alerts,
    reconciliation,
    reconciliationProcess,
    stop() {
      stopping ??= Promise.all([inbox.stop(), outbox.stop(), reconciliation.stop(), reconciliationProcess?.stop(), retention.stop(), booksCheck.stop(), gapCheck?.stop(), backfillRequests.stop(), settlementPull?.stop(), alerts?.stop()]).then(() => {
        logger.info({ inboxWorker: inbox.owner, outboxDispatcher: outbox.owner }, "background workers stopped");
      });
      return stopping;
    },
  };
}
