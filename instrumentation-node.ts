// The Node.js half of instrumentation.ts, in a module of its own: Next.js compiles instrumentation.ts
// for the Edge runtime too, and warned at every build about the process.exit calls this file makes.
/** The server start in Node.js: see instrumentation.ts. Exits 1 on an unsafe configuration or database. */
export async function registerNode(): Promise<void> {
  const { checkServerConfiguration } = await import("@/lib/background/server-configuration");
  const checked = checkServerConfiguration();
  if (!checked.ok) {
    console.error(`Acredita cannot start:\n${checked.issues.map((issue) => `  ${issue}`).join("\n")}`);
    process.exit(1);
  }
  const [{ databaseModeIssues }, { db }, { secretsKeyIssues }, { storedSecretsIssues }] = await Promise.all([
    import("@/lib/demo/database-mode-check"),
    import("@/lib/db/client"),
    import("@/lib/secrets/secrets-key"),
    import("@/lib/endpoints/stored-secrets"),
  ]);
  const keyIssues = secretsKeyIssues();
  const databaseIssues =
    keyIssues.length > 0
      ? keyIssues
      : await (async () => {
          const database = await db();
          // Stored signing secrets that no key of ACREDITA_SECRETS_KEY decrypts: no data endpoint could verify a delivery.
          return [...(await databaseModeIssues(database, checked.settings.ACREDITA_MODE)), ...(await storedSecretsIssues(database))];
        })().catch((error: unknown) => {
          // An unreachable or unmigrated database is answered 503 per request (GET /api/health says so): not a reason to exit.
          console.error(`Acredita: could not check the database at start: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
          return [];
        });
  if (databaseIssues.length > 0) {
    console.error(`Acredita cannot start:\n${databaseIssues.map((issue) => `  ${issue}`).join("\n")}`);
    process.exit(1);
  }
  // npm start's server (scripts/server.mjs) refuses connections past its bounds: say so in the log, once a second.
  const { logConnectionRefusals } = await import("@/lib/net/connection-refusal-log");
  logConnectionRefusals();
  const { installClientAddress } = await import("@/lib/auth/client-address");
  installClientAddress(checked.settings.TRUSTED_PROXIES);
  // Refusals before a valid signature are counted in memory and written every second: flush them on stop.
  const { flushRejectionCountsOnExit } = await import("@/lib/decisions/rejection-counter");
  flushRejectionCountsOnExit();
  const { startInProcessWorkers } = await import("@/lib/background/in-process-workers");
  startInProcessWorkers();
}
