// Next.js calls register() once when the server starts: the inbox worker and the outbox dispatcher run
// inside the server process by default (INBOX_WORKER_IN_PROCESS), so one command starts everything.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs" || process.env.NEXT_PHASE === "phase-production-build") return;
  // Refusals before a valid signature are counted in memory and written every second: flush them on stop.
  const { flushRejectionCountsOnExit } = await import("./lib/decisions/rejection-counter");
  flushRejectionCountsOnExit();
  const { startInProcessWorkers } = await import("./lib/background/in-process-workers");
  startInProcessWorkers();
}
