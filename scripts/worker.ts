// npm run worker: an inbox worker and an outbox dispatcher in their own process (as many as needed).
// Stops cleanly on SIGTERM/SIGINT: finishes the event or send in hand, claims nothing new, exits 0.
import { startBackgroundWorkers } from "@/lib/background/background-workers";
import { readSettingsOrExit } from "@/lib/config/settings";
import { closeDb } from "@/lib/db/client";
import { logger } from "@/lib/log/logger";

function main(): void {
  readSettingsOrExit("Acredita worker");
  const workers = startBackgroundWorkers({ where: "worker process" });
  let exiting = false;
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      if (exiting) return;
      exiting = true;
      logger.info({ signal }, "worker stopping");
      void workers
        .stop()
        .then(closeDb)
        .then(() => process.exit(0));
    });
  }
}

main();
