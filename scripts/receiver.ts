// npm run receiver: the dedicated webhook receiver process (lib/receiver/receiver-server.ts) on
// RECEIVER_HOST:RECEIVER_PORT (default 127.0.0.1:3001), on the same database as the dashboard.
// The database must be set up first (`npm start` applies the migrations). Stops cleanly on
// SIGTERM/SIGINT: stops accepting, answers the requests in hand (their group commits included) with
// `Connection: close`, closes every connection (all of them after 10 s), writes the refusal counts
// still in memory (lib/decisions/rejection-counter.ts), exits 0.
import { existsSync } from "node:fs";
import { checkServerConfiguration } from "@/lib/config/server-configuration";
import { databaseModeIssues } from "@/lib/demo/database-mode-check";
import { exitOnStop } from "@/lib/background/exit-on-stop";
import { db } from "@/lib/db/client";
import { flushRejectionCounts } from "@/lib/decisions/rejection-counter";
import { isPostgresUrl, sqliteFilePath } from "@/lib/db/url";
import { logger } from "@/lib/log/logger";
import { createReceiverServer } from "@/lib/receiver/receiver-server";

async function main(): Promise<void> {
  // The receiver verifies signatures: the same rules as the server (no public demo secret outside
  // demo mode, no unconfigured endpoint served), but it signs no sessions.
  const checked = checkServerConfiguration(process.env, { needsAuth: false });
  if (!checked.ok) {
    console.error(`Acredita receiver cannot start: ${checked.issues.join("; ")}`);
    process.exit(1);
  }
  const config = checked.settings;
  if (!isPostgresUrl(config.DATABASE_URL) && !existsSync(sqliteFilePath(config.DATABASE_URL))) {
    // Opening a missing SQLite file would create an empty one.
    console.error(`Acredita receiver cannot start: database not ready (no file ${sqliteFilePath(config.DATABASE_URL)}); run npm start once to apply the migrations`);
    process.exit(1);
  }
  try {
    await (await db()).webhookEvent.findFirst({ select: { id: true } });
  } catch (error) {
    console.error(`Acredita receiver cannot start: database not ready (${error instanceof Error ? error.message.split("\n").filter(Boolean).at(-1) : String(error)}); run npm start once to apply the migrations`);
    process.exit(1);
  }
  const databaseIssues = await databaseModeIssues(await db(), config.ACREDITA_MODE);
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
