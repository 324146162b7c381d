// npm run worker: an inbox worker and an outbox dispatcher in their own process (as many as needed).
// Stops cleanly on SIGTERM/SIGINT: finishes the event or send in hand, claims nothing new, exits 0.
import { startBackgroundWorkers } from "@/lib/background/background-workers";
import { readSettingsOrExit } from "@/lib/config/settings";
import { exitOnStop } from "@/lib/background/exit-on-stop";

function main(): void {
  readSettingsOrExit("Acredita worker");
  const workers = startBackgroundWorkers({ where: "worker process" });
  exitOnStop("worker", () => workers.stop());
}

main();
