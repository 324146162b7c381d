// npm run worker: an inbox worker and an outbox dispatcher in their own process (as many as needed).
// Stops cleanly on SIGTERM/SIGINT: finishes the event or send in hand, claims nothing new, exits 0.
import "@/lib/config/env-files";
import { startBackgroundWorkers } from "@/lib/background/background-workers";
import { readSettingsOrExit } from "@/lib/config/settings";
import { exitOnStop } from "@/lib/background/exit-on-stop";
import { cliSchemaExitCode } from "@/lib/db/cli-schema";

async function main(): Promise<void> {
  readSettingsOrExit("Acredita worker");
  // A worker runs beside a server, which applies the migrations (docs/operations.md): it applies none itself.
  const schemaExit = await cliSchemaExitCode("Acredita worker cannot start", { apply: false });
  if (schemaExit !== undefined) process.exit(schemaExit);
  const workers = startBackgroundWorkers({ where: "worker process" });
  exitOnStop("worker", () => workers.stop());
}

void main();
