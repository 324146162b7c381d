// The reconciliation worker a server starts beside itself (lib/background/reconciliation-process.ts),
// so a large run's parsing and database work use another event loop, another core and another database
// connection than the webhooks the server answers. Not meant to be run by hand: `npm run worker` runs
// every worker, this one included. Woken by the server on an upload (an IPC message), else polls.
// Stops cleanly on SIGTERM/SIGINT or when the server goes away (the IPC channel closes): the run in hand
// goes back to the queue at its next batch, then it exits 0.
import { notifyWork } from "@/lib/background/signals";
import { readSettingsOrExit } from "@/lib/config/settings";
import { closeDb, db } from "@/lib/db/client";
import { logger } from "@/lib/log/logger";
import { ReconciliationWorker } from "@/lib/reconciliation/reconciliation-worker";

function main(): void {
  readSettingsOrExit("Acredita reconciliation worker");
  const worker = new ReconciliationWorker(db);
  worker.start();
  logger.info({ reconciliationWorker: worker.owner, where: "reconciliation process" }, "reconciliation worker started");
  process.on("message", (message) => {
    if (message === "wake") notifyWork("reconciliation");
  });
  let exiting = false;
  const stop = (why: string) => {
    if (exiting) return;
    exiting = true;
    logger.info({ why }, "reconciliation worker stopping");
    void worker
      .stop()
      .then(closeDb)
      .then(() => process.exit(0));
  };
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => stop(signal));
  process.on("disconnect", () => stop("the server went away"));
}

main();
