// npm run worker: an inbox worker and an outbox dispatcher in their own process (as many as needed).
// Stops cleanly on SIGTERM/SIGINT: finishes the event or send in hand, claims nothing new, exits 0.
import { startBackgroundWorkers } from "@/lib/background/background-workers";
import { readSettings, SettingsError } from "@/lib/config/settings";
import { closeDb } from "@/lib/db/client";
import { logger } from "@/lib/log/logger";

function main(): void {
  try {
    readSettings();
  } catch (error) {
    if (error instanceof SettingsError) {
      console.error(`Acredita worker cannot start: ${error.issues.join("; ")}`);
      process.exit(1);
    }
    throw error;
  }
  // --inbox-only: no outbox dispatcher in this process (dispatchers run elsewhere, or a test needs the
  // outbox left alone while this worker crashes on purpose).
  const inboxOnly = process.argv.includes("--inbox-only");
  const workers = startBackgroundWorkers({ where: inboxOnly ? "worker process (inbox only)" : "worker process", ...(inboxOnly ? { outbox: false as const } : {}) });
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
