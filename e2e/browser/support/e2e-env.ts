// The browser tests' environment: a free port and a fresh temporary database, chosen ONCE in the
// Playwright runner process (which loads the config first) and inherited by its workers through the env.
// SQLite by default (a file in a new temporary folder); with TEST_DATABASE=postgres and TEST_POSTGRES_URL
// (the test cluster's admin URL, as `npm test` sets them) a new migrated database on that local cluster.
import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const FREE_PORT = 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{process.stdout.write(String(s.address().port));s.close()})';
process.env.E2E_PORT ??= execFileSync(process.execPath, ["-e", FREE_PORT]).toString();
// Where the servers' STRIPE_API_BASE points: the backfill spec starts a fake of Stripe's API there.
process.env.E2E_STRIPE_API_PORT ??= execFileSync(process.execPath, ["-e", FREE_PORT]).toString();
process.env.E2E_DB_DIR ??= mkdtempSync(path.join(tmpdir(), "acredita-e2e-"));
if (process.env.TEST_DATABASE === "postgres" && process.env.TEST_POSTGRES_URL) {
  process.env.E2E_DATABASE_URL ??= execFileSync(process.execPath, ["--import", "tsx", "e2e/support/postgres-test-database.ts", process.env.TEST_POSTGRES_URL, "e2e_browser"], { encoding: "utf8" }).trim();
}

const databaseFile = path.join(process.env.E2E_DB_DIR, "acredita.db");

export const E2E = {
  port: Number(process.env.E2E_PORT),
  baseURL: `http://127.0.0.1:${process.env.E2E_PORT}`,
  /** The port of the fake Stripe API the servers call (STRIPE_API_BASE); started by the specs that need it. */
  stripeApiPort: Number(process.env.E2E_STRIPE_API_PORT),
  /** The server's database: a postgresql:// URL on the PostgreSQL pass, else `file:` + {@link E2E.databaseFile}. */
  databaseUrl: process.env.E2E_DATABASE_URL ?? `file:${databaseFile}`,
  /** The SQLite file (on the PostgreSQL pass it is never created). */
  databaseFile,
  apiToken: "e2e-api-token-0123456789abcdef-0001",
  labSecret: "lab_e2e_secret_0001",
  /** The lab's second active secret (LAB_WEBHOOK_SECRET[1]): the "old" one of a rotation in the Endpoints spec. */
  labOldSecret: "lab_e2e_secret_old_0002",
  /** The lab's retired secret (LAB_WEBHOOK_RETIRED_SECRETS[0]): refused, and named in the diagnosis. */
  labRetiredSecret: "lab_e2e_retired_0000",
  authSecret: "e2e-auth-secret-0123456789abcdef0123456789",
  /** ACREDITA_SECRETS_KEY of the browser server: 32 bytes in base64 (the data endpoints' secrets are encrypted under it). */
  secretsKey: "ZTJlLXNlY3JldHMta2V5LTAxMjM0NTY3ODlhYmNkZWY=",
} as const;

/**
 * The environment of a browser-test server on `port` with `databaseUrl` (besides the runner's own): the
 * shared server of playwright.config.ts and a spec's own (support/own-server.ts) are configured alike.
 */
export function serverEnvironment(port: number, databaseUrl: string): Record<string, string> {
  return {
    PORT: String(port),
    DATABASE_URL: databaseUrl,
    AUTH_BASE_URL: `http://127.0.0.1:${port}`,
    AUTH_SECRET: E2E.authSecret,
    AUTH_LOGIN_MAX_ATTEMPTS: "5",
    AUTH_LOGIN_WINDOW_SECONDS: "60",
    // The specs stand in for several clients behind a proxy on 127.0.0.1: each sends its own X-Forwarded-For.
    TRUSTED_PROXIES: "127.0.0.1",
    API_TOKEN: E2E.apiToken,
    ACREDITA_SECRETS_KEY: E2E.secretsKey,
    STRIPE_API_BASE: `http://127.0.0.1:${E2E.stripeApiPort}`,
    // Two active secrets and a retired one, so the Endpoints page has a rotation to show.
    LAB_WEBHOOK_SECRET: `${E2E.labSecret},${E2E.labOldSecret}`,
    LAB_WEBHOOK_RETIRED_SECRETS: E2E.labRetiredSecret,
    // Above the reconciliation spec's 1.4 MB report, and small enough for it to go over with a file of
    // 2 MB and a byte (the default is 200 MB).
    RECONCILIATION_UPLOAD_MAX_BYTES: "2097152",
    LOG_LEVEL: "warn",
    NEXT_TELEMETRY_DISABLED: "1",
  };
}

/**
 * Refuses to run against anything but the local throwaway server: the base URL must be 127.0.0.1 or
 * localhost, and the database a file under the OS temp folder, or a PostgreSQL test database
 * (`acredita_e2e_browser_*`) on 127.0.0.1 (dub's assert-local-database idea).
 */
export function assertLocalTarget(baseURL: string = E2E.baseURL, databaseUrl: string = E2E.databaseUrl): void {
  const host = new URL(baseURL).hostname;
  if (host !== "127.0.0.1" && host !== "localhost") throw new Error(`refusing to run browser tests against ${host}: local servers only`);
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    const database = new URL(databaseUrl);
    if ((database.hostname !== "127.0.0.1" && database.hostname !== "localhost") || !/^\/acredita_e2e_browser_[0-9a-f]+$/.test(database.pathname)) {
      throw new Error("refusing to run browser tests on a PostgreSQL database outside the local test cluster");
    }
    return;
  }
  const temp = realpathSync(tmpdir());
  if (!path.resolve(databaseUrl.replace(/^file:/, "")).startsWith(temp + path.sep)) throw new Error(`refusing to run browser tests on a database outside ${temp}`);
}
