// npm run receiver: the dedicated webhook receiver process (lib/receiver/receiver-server.ts) on
// RECEIVER_HOST:RECEIVER_PORT (default 127.0.0.1:3001), on the same database as the dashboard.
// The database must be set up first (`npm start` applies the migrations; the receiver says so in one line). Stops cleanly on
// SIGTERM/SIGINT: stops accepting, answers the requests in hand (their group commits included) with
// `Connection: close`, closes every connection (all of them after 10 s), writes the refusal counts
// still in memory (lib/decisions/rejection-counter.ts), exits 0.
import "@/lib/config/env-files";
import { processIo, writeLine, type CliEnv, type CliIo } from "@/lib/background/cli-io";
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

/**
 * `npm run receiver`: takes the arguments after the script (none), the environment its start is checked
 * against (settings, endpoints, DATABASE_URL's schema) and the streams. Resolves with 1 when it cannot
 * start (a wrong setting or endpoint, an unmigrated database, a demo mode on a real database, its port
 * taken: one line on stderr, `Acredita receiver cannot start: ...`). From the database's mode on it runs
 * on this process's settings and database (settings(), db(), as the server's modules read them; `env` is
 * process.env when run), serves, and resolves once SIGTERM or SIGINT has stopped it (0, or 1 when
 * stopping failed).
 */
export async function main(_argv: string[], env: CliEnv, io: CliIo): Promise<number> {
  const refuse = (reason: string) => {
    writeLine(io.stderr, `Acredita receiver cannot start: ${reason}`);
    return 1;
  };
  // The receiver verifies signatures: the same rules as the server (no public demo secret outside
  // demo mode, no unconfigured endpoint served), but it signs no sessions.
  const checked = checkServerConfiguration(env, { needsAuth: false });
  const keyIssues = secretsKeyIssues(env);
  if (!checked.ok || keyIssues.length > 0) return refuse([...(checked.ok ? [] : checked.issues), ...keyIssues].join("; "));
  const config = checked.settings;
  // The receiver runs beside a server, which applies the migrations (docs/operations.md): it applies
  // none itself, and opens no client before they are there (a missing SQLite file would be created empty).
  const schemaExit = await cliSchemaExitCode("Acredita receiver cannot start", config.DATABASE_URL, { apply: false, stderr: io.stderr });
  if (schemaExit !== undefined) return schemaExit;
  // Stored signing secrets that no key of ACREDITA_SECRETS_KEY decrypts: no data endpoint could verify a delivery.
  const databaseIssues = [...(await databaseModeIssues(await db(), config.ACREDITA_MODE)), ...(await storedSecretsIssues(await db(), env))];
  if (databaseIssues.length > 0) return refuse(databaseIssues.join("; "));
  const receiver = createReceiverServer();
  return new Promise<number>((resolve) => {
    receiver.server.once("error", (error: NodeJS.ErrnoException) => {
      resolve(refuse(error.code === "EADDRINUSE" ? `${config.RECEIVER_HOST}:${config.RECEIVER_PORT} is already in use (RECEIVER_PORT)` : error.message));
    });
    receiver.server.listen(config.RECEIVER_PORT, config.RECEIVER_HOST, () => {
      logger.info({ host: config.RECEIVER_HOST, port: config.RECEIVER_PORT }, "webhook receiver listening");
      writeLine(io.stdout, `Acredita webhook receiver on http://${config.RECEIVER_HOST}:${config.RECEIVER_PORT}/api/webhooks/{endpoint}`);
    });
    exitOnStop("receiver", () => receiver.close().then(flushRejectionCounts), { exit: resolve });
  });
}

if (require.main === module) void main(process.argv.slice(2), process.env, processIo()).then((code) => process.exit(code));
