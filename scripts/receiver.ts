// npm run receiver: the dedicated webhook receiver process (lib/receiver/receiver-server.ts) on
// RECEIVER_HOST:RECEIVER_PORT (default 127.0.0.1:3001), on the same database as the dashboard.
// The database must be set up first (`npm start` applies the migrations; the receiver says so in one line). Stops cleanly on
// SIGTERM/SIGINT: stops accepting, answers the requests in hand (their group commits included) with
// `Connection: close`, closes every connection (all of them after 10 s), writes the refusal counts
// still in memory (lib/decisions/rejection-counter.ts), exits 0.
import "@/lib/config/env-files";
import { checkServerConfiguration } from "@/lib/background/server-configuration";
import { databaseModeIssues } from "@/lib/demo/database-mode-check";
import { exitOnStop } from "@/lib/background/exit-on-stop";
import { cliSchemaExitCode } from "@/lib/db/cli-schema";
import { db } from "@/lib/db/client";
import { flushRejectionCounts } from "@/lib/decisions/rejection-counter";
import { logger } from "@/lib/log/logger";
import { createReceiverServer } from "@/lib/receiver/receiver-server";
import { secretsKeyIssues } from "@/lib/secrets/secrets-key";
import { storedSecretsIssues } from "@/lib/endpoints/stored-secrets";

async function main(): Promise<void> {
  // The receiver verifies signatures: the same rules as the server (no public demo secret outside
  // demo mode, no unconfigured endpoint served), but it signs no sessions.
  const checked = checkServerConfiguration(process.env, { needsAuth: false });
  if (!checked.ok || secretsKeyIssues().length > 0) {
    console.error(`Acredita receiver cannot start: ${[...(checked.ok ? [] : checked.issues), ...secretsKeyIssues()].join("; ")}`);
    process.exit(1);
  }
  const config = checked.settings;
  // The receiver runs beside a server, which applies the migrations (docs/operations.md): it applies
  // none itself, and opens no client before they are there (a missing SQLite file would be created empty).
  const schemaExit = await cliSchemaExitCode("Acredita receiver cannot start", { apply: false });
  if (schemaExit !== undefined) process.exit(schemaExit);
  // Stored signing secrets that no key of ACREDITA_SECRETS_KEY decrypts: no data endpoint could verify a delivery.
  const databaseIssues = [...(await databaseModeIssues(await db(), config.ACREDITA_MODE)), ...(await storedSecretsIssues(await db()))];
  if (databaseIssues.length > 0) {
    console.error(`Acredita receiver cannot start: ${databaseIssues.join("; ")}`);
    process.exit(1);
  }
  const receiver = createReceiverServer();
  receiver.server.once("error", (error: NodeJS.ErrnoException) => {
    const reason = error.code === "EADDRINUSE" ? `${config.RECEIVER_HOST}:${config.RECEIVER_PORT} is already in use (RECEIVER_PORT)` : error.message;
    console.error(`Acredita receiver cannot start: ${reason}`);
    process.exit(1);
  });
  receiver.server.listen(config.RECEIVER_PORT, config.RECEIVER_HOST, () => {
    logger.info({ host: config.RECEIVER_HOST, port: config.RECEIVER_PORT }, "webhook receiver listening");
    console.log(`Acredita webhook receiver on http://${config.RECEIVER_HOST}:${config.RECEIVER_PORT}/api/webhooks/{endpoint}`);
  });
  exitOnStop("receiver", () => receiver.close().then(flushRejectionCounts));
}

void main();
