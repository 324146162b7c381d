import { startBackgroundWorkers, type BackgroundWorkers } from "@/lib/background/background-workers";
import { settings } from "@/lib/config/settings";
import { logger } from "@/lib/log/logger";

const globalForWorkers = globalThis as unknown as { acreditaInProcessWorkers?: BackgroundWorkers };

/**
 * Starts the inbox worker and outbox dispatcher inside the server process (called once from
 * instrumentation.ts), unless INBOX_WORKER_IN_PROCESS=false. On SIGTERM/SIGINT it stops claiming and
 * finishes what it holds while Next.js closes its server; should the process exit first, the open
 * transaction rolls back and the event's lease expires, so another worker applies it once.
 * Returns the workers, or undefined when disabled.
 */
export function startInProcessWorkers(): BackgroundWorkers | undefined {
  if (!settings().INBOX_WORKER_IN_PROCESS) {
    logger.info("in-process inbox worker disabled (INBOX_WORKER_IN_PROCESS=false): run `npm run worker`");
    return undefined;
  }
  if (globalForWorkers.acreditaInProcessWorkers) return globalForWorkers.acreditaInProcessWorkers;
  const workers = startBackgroundWorkers({ where: "server", reconciliationProcess: settings().RECONCILIATION_WORKER_PROCESS });
  globalForWorkers.acreditaInProcessWorkers = workers;
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      void workers.stop();
    });
  }
  return workers;
}
