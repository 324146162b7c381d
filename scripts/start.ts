// npm start (production) and npm run demo (demo mode): validate settings and endpoints, apply
// migrations, seed demo data and users (demo only), build if needed, serve (restarting the server
// process when it dies).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { checkServerConfiguration } from "@/lib/background/server-configuration";
import { serverProcessFlags } from "@/lib/config/server-process-flags";
import { loadEnvConfig } from "@next/env";
import { runMode, settingsOnDemoDefaults } from "@/lib/config/settings";
import { authBaseUrl } from "@/lib/auth/auth";
import { closeDb, db } from "@/lib/db/client";
import { migrateOnStart } from "@/lib/db/pending-migrations";
import { describeDatabaseUrl, isPostgresUrl, sqliteFilePath } from "@/lib/db/url";
import { DEMO_USERS, seedDemoUsers } from "@/lib/demo/demo-users";
import { describeEndpoints } from "@/lib/endpoints/endpoints";
import { databaseModeIssues } from "@/lib/demo/database-mode-check";
import { seedDemoData } from "@/lib/demo/seed";
import { secretsKeyIssues, secretsKeys } from "@/lib/secrets/secrets-key";
import { storedSecretsIssues } from "@/lib/endpoints/stored-secrets";
import { SERVER_RESTARTS_ENV, superviseServer } from "@/lib/background/server-supervisor";

const SECRET_SETTINGS = new Set(["API_TOKEN", "LAB_WEBHOOK_SECRET", "AUTH_SECRET"]);

// The same environment files Next.js loads into the server it serves (.env, .env.production, ...),
// loaded here first, so what is checked below is what the server runs with.
loadEnvConfig(process.cwd(), false, { info: () => undefined, error: (...args: unknown[]) => console.error(...args) });

// `npm run demo` passes --demo: the whole process tree (Next.js server, in-process worker) then runs
// in demo mode, with the public demo secrets, data and users. `npm start` is production, always.
const DEMO_REQUESTED = process.argv.includes("--demo");
if (!DEMO_REQUESTED && runMode() === "demo") {
  console.error("Acredita cannot start:\n  ACREDITA_MODE: is demo (from the environment or a .env file), but npm start always runs production; use npm run demo for the demo");
  process.exit(1);
}
process.env.ACREDITA_MODE = DEMO_REQUESTED ? "demo" : "production";

const DEMO_BANNER = [
  "",
  "  ##########################################################################",
  "  #  DEMO MODE: public demo secrets, demo orders and demo users with public  #",
  "  #  passwords (see README). Anyone can sign payments for this server.       #",
  "  #  Never expose it or use it for real traffic: run `npm start` instead.    #",
  "  ##########################################################################",
  "",
].join("\n");

function banner(values: Record<string, unknown>): void {
  const onDefaults = new Set(settingsOnDemoDefaults());
  console.log("Acredita settings:");
  for (const [name, value] of Object.entries(values)) {
    const shown = SECRET_SETTINGS.has(name) ? (onDefaults.has(name) ? "(PUBLIC DEMO VALUE, see README)" : value === "" ? "(set)" : String(value)) : String(value);
    console.log(`  ${name.padEnd(32)} ${shown}${onDefaults.has(name) ? "  [demo default]" : ""}`);
  }
}

function refuse(issues: string[]): never {
  console.error(`Acredita cannot start:\n${issues.map((issue) => `  ${issue}`).join("\n")}`);
  process.exit(1);
}

async function main(): Promise<void> {
  const checked = checkServerConfiguration();
  if (!checked.ok) refuse(checked.issues);
  const keyIssues = secretsKeyIssues();
  if (keyIssues.length > 0) refuse(keyIssues);
  const { settings: config, endpoints } = checked;
  const demo = config.ACREDITA_MODE === "demo";
  if (demo) console.log(DEMO_BANNER);

  banner({
    ACREDITA_MODE: demo ? "demo" : "production",
    PORT: config.PORT,
    DATABASE_URL: describeDatabaseUrl(config.DATABASE_URL),
    API_TOKEN: config.API_TOKEN ? "" : "(not set: no operator token)",
    LAB_WEBHOOK_SECRET: config.LAB_WEBHOOK_SECRET ? "" : "(not set: no lab endpoint)",
    AUTH_SECRET: "",
    AUTH_BASE_URL: authBaseUrl(config),
    WEBHOOK_TOLERANCE_SECONDS: config.WEBHOOK_TOLERANCE_SECONDS,
    LOG_LEVEL: config.LOG_LEVEL,
    INBOX_WORKER_IN_PROCESS: config.INBOX_WORKER_IN_PROCESS,
    FULFILMENT_WEBHOOK_URL: config.FULFILMENT_WEBHOOK_URL ? "(set)" : "(not set: no fulfilment webhook)",
  });
  const database = isPostgresUrl(config.DATABASE_URL)
    ? { DATABASE: "PostgreSQL", DATABASE_POOL_SIZE: config.DATABASE_POOL_SIZE, DATABASE_POOL_TIMEOUT_MS: config.DATABASE_POOL_TIMEOUT_MS, DATABASE_STATEMENT_TIMEOUT_MS: config.DATABASE_STATEMENT_TIMEOUT_MS }
    : { DATABASE: "SQLite", DATABASE_BUSY_TIMEOUT_MS: config.DATABASE_BUSY_TIMEOUT_MS };
  for (const [name, value] of Object.entries({ ...database, DATABASE_TRANSACTION_TIMEOUT_MS: config.DATABASE_TRANSACTION_TIMEOUT_MS })) console.log(`  ${name.padEnd(32)} ${value}`);
  console.log(`Webhook endpoints:\n${describeEndpoints(endpoints).map((line) => `  ${line}`).join("\n")}`);
  if (endpoints.endpoints.length === 0) console.log("  (no endpoint is configured: every webhook answers 404 until a secrets variable is set)");
  const keys = secretsKeys();
  console.log(`  endpoints stored as data: POST /api/endpoints (docs/endpoints.md); ACREDITA_SECRETS_KEY ${keys.length === 0 ? "not set: no data endpoint secret can be stored" : `set (key ${keys[0].id} encrypts${keys.length > 1 ? `, ${keys.length - 1} more decrypt` : ""})`}`);

  if (!isPostgresUrl(config.DATABASE_URL)) mkdirSync(path.dirname(path.resolve(sqliteFilePath(config.DATABASE_URL))), { recursive: true });
  // Runs the migration engine only when a migration is pending (lib/db/pending-migrations.ts).
  const migration = await migrateOnStart(config.DATABASE_URL);
  if (!migration.ok) {
    if (migration.output) console.error(migration.output);
    console.error(migration.message);
    process.exit(migration.exitCode);
  }
  console.log(migration.message);

  // Stored signing secrets that no key of ACREDITA_SECRETS_KEY decrypts: no data endpoint could verify a delivery.
  const databaseIssues = [...(await databaseModeIssues(await db(), config.ACREDITA_MODE)), ...(await storedSecretsIssues(await db()))];
  if (databaseIssues.length > 0) {
    await closeDb();
    refuse(databaseIssues);
  }
  if (demo) {
    const seeded = await seedDemoData(await db());
    console.log(seeded > 0 ? `Demo data: ${seeded} orders created.` : "Demo data: database already has orders, nothing seeded.");
    const users = await seedDemoUsers(await db(), { mode: "demo" });
    if (users.created > 0) {
      console.log("Demo users (public demo passwords, see README):");
      for (const user of DEMO_USERS) console.log(`  ${user.role.padEnd(9)} ${user.email.padEnd(26)} ${user.password}`);
    } else {
      console.log("Demo users: database already has users, none created.");
    }
  } else {
    if ((await (await db()).user.count()) === 0) {
      console.log("No users yet: create the first admin with `ACREDITA_NEW_PASSWORD=... npm run create-user -- --email you@example.com --name You --role admin`.");
    }
  }
  await closeDb();

  if (!existsSync(".next/BUILD_ID") || process.argv.includes("--build")) {
    console.log("Building the app (first start) ...");
    const build = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], { stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
    if (build.status !== 0) process.exit(build.status ?? 1);
  }

  const host = process.env.HOST ?? "127.0.0.1";
  console.log(`Acredita listening on http://${host}:${config.PORT}${demo ? "  (DEMO MODE)" : ""}`);
  // The mode and database checked above are passed on explicitly: Next.js never lets an environment
  // file override a variable that is already set. The server's heap is capped (lib/config/server-process-flags.ts).
  // A server process that dies (crash, SIGKILL, V8's heap limit) is started again with backoff
  // (lib/background/server-supervisor.ts); SIGTERM and SIGINT stop it and this process with its status.
  const stop = superviseServer(
    (restarts) =>
      spawn(process.execPath, [...serverProcessFlags(), "node_modules/next/dist/bin/next", "start", "-p", String(config.PORT), "-H", host], {
        stdio: "inherit",
        env: { ...process.env, ACREDITA_MODE: config.ACREDITA_MODE, DATABASE_URL: config.DATABASE_URL, NEXT_TELEMETRY_DISABLED: "1", [SERVER_RESTARTS_ENV]: String(restarts) },
      }),
    { log: (line) => console.error(line), exit: (status) => process.exit(status) },
  );
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => stop(signal));
}

void main();
