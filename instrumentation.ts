// Next.js calls register() once when the server starts. It first refuses to serve a configuration
// that is unsafe or wrong (a bare `next start` gets the same checks as `npm start`), then rewrites
// X-Forwarded-For from the socket (lib/auth/client-address.ts: only TRUSTED_PROXIES may forward a client
// address), and runs the inbox worker and the outbox dispatcher inside the server process by default
// (INBOX_WORKER_IN_PROCESS), so one command starts everything; refusal counts are flushed on stop.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs" || process.env.NEXT_PHASE === "phase-production-build") return;
  const { checkServerConfiguration } = await import("./lib/config/server-configuration");
  const checked = checkServerConfiguration();
  if (!checked.ok) {
    console.error(`Acredita cannot start:\n${checked.issues.map((issue) => `  ${issue}`).join("\n")}`);
    process.exit(1);
  }
  const [{ databaseModeIssues }, { db }] = await Promise.all([import("./lib/demo/database-mode-check"), import("./lib/db/client")]);
  const databaseIssues = await databaseModeIssues(await db(), checked.settings.ACREDITA_MODE).catch((error: unknown) => {
    // An unreachable or unmigrated database is answered 503 per request (GET /api/health says so): not a reason to exit.
    console.error(`Acredita: could not check the database at start: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
    return [];
  });
  if (databaseIssues.length > 0) {
    console.error(`Acredita cannot start:\n${databaseIssues.map((issue) => `  ${issue}`).join("\n")}`);
    process.exit(1);
  }
  const { installClientAddress } = await import("./lib/auth/client-address");
  installClientAddress(checked.settings.TRUSTED_PROXIES);
  // Refusals before a valid signature are counted in memory and written every second: flush them on stop.
  const { flushRejectionCountsOnExit } = await import("./lib/decisions/rejection-counter");
  flushRejectionCountsOnExit();
  const { startInProcessWorkers } = await import("./lib/background/in-process-workers");
  startInProcessWorkers();
}
