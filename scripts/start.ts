// npm start (production) and npm run demo (demo mode): validate settings and endpoints, apply
// migrations, seed demo data and users (demo only), build if needed, serve (restarting the server
// process when it dies).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { checkServerConfiguration } from "@/lib/background/server-configuration";
import { serverArguments, serverProcessFlags } from "@/lib/config/server-process-flags";
import { loadEnvConfig } from "@next/env";
import { runMode, settingsOnDemoDefaults } from "@/lib/config/settings";
import { authBaseUrl } from "@/lib/auth/origins";
import { withOwnDb } from "@/lib/db/client";
import { migrateOnStart } from "@/lib/db/pending-migrations";
import { describeDatabaseUrl, isPostgresUrl, sqliteFilePath } from "@/lib/db/url";
import { DEMO_USERS, seedDemoUsers } from "@/lib/demo/demo-users";
import { describeEndpoints } from "@/lib/endpoints/endpoints";
import { databaseModeIssues } from "@/lib/demo/database-mode-check";
import { seedDemoData } from "@/lib/demo/seed";
import { secretsKeyIssues, secretsKeys } from "@/lib/secrets/secrets-key";
import { storedSecretsIssues } from "@/lib/endpoints/stored-secrets";
import { SERVER_RESTARTS_ENV, superviseServer } from "@/lib/background/server-supervisor";
import { childEnv, processIo, writeLine, type CliEnv, type CliIo } from "@/lib/background/cli-io";

const SECRET_SETTINGS = new Set(["API_TOKEN", "LAB_WEBHOOK_SECRET", "AUTH_SECRET"]);

// The same environment files Next.js loads into the server it serves (.env, .env.production, ...),
// loaded here first, so what is checked below is what the server runs with.
loadEnvConfig(process.cwd(), false, { info: () => undefined, error: (...args: unknown[]) => console.error(...args) });

const DEMO_BANNER = [
  "",
  "  ##########################################################################",
  "  #  DEMO MODE: public demo secrets, demo orders and demo users with public  #",
  "  #  passwords (see README). Anyone can sign payments for this server.       #",
  "  #  Never expose it or use it for real traffic: run `npm start` instead.    #",
  "  ##########################################################################",
  "",
].join("\n");

function banner(values: Record<string, unknown>, env: CliEnv, io: CliIo): void {
  const onDefaults = new Set(settingsOnDemoDefaults(env));
  writeLine(io.stdout, "Acredita settings:");
  for (const [name, value] of Object.entries(values)) {
    const shown = SECRET_SETTINGS.has(name) ? (onDefaults.has(name) ? "(PUBLIC DEMO VALUE, see README)" : value === "" ? "(set)" : String(value)) : String(value);
    writeLine(io.stdout, `  ${name.padEnd(32)} ${shown}${onDefaults.has(name) ? "  [demo default]" : ""}`);
  }
}

/** Writes every issue under "Acredita cannot start:" on stderr; returns the exit status, 1. */
function refuse(issues: string[], io: CliIo): number {
  writeLine(io.stderr, `Acredita cannot start:\n${issues.map((issue) => `  ${issue}`).join("\n")}`);
  return 1;
}

/**
 * `npm start` (and `npm run demo`, which passes `--demo`): takes the arguments after the script, the
 * environment (the settings and endpoints; its ACREDITA_MODE is set here to what runs, as the server's
 * and worker's processes inherit it) and the streams. Resolves with 1 when the settings, the endpoints or
 * the database refuse (every issue at once, on stderr), with the migration step's or the build's status
 * when those fail; otherwise serves, and resolves with the server's status once it has stopped (SIGTERM,
 * SIGINT, or the supervisor giving up on restarts).
 */
export async function main(argv: string[], env: CliEnv, io: CliIo): Promise<number> {
  // `npm run demo` passes --demo: the whole process tree (Next.js server, in-process worker) then runs
  // in demo mode, with the public demo secrets, data and users. `npm start` is production, always.
  const demoRequested = argv.includes("--demo");
  if (!demoRequested && runMode(env) === "demo") {
    writeLine(io.stderr, "Acredita cannot start:\n  ACREDITA_MODE: is demo (from the environment or a .env file), but npm start always runs production; use npm run demo for the demo");
    return 1;
  }
  env.ACREDITA_MODE = demoRequested ? "demo" : "production";

  const checked = checkServerConfiguration(env);
  if (!checked.ok) return refuse(checked.issues, io);
  const keyIssues = secretsKeyIssues(env);
  if (keyIssues.length > 0) return refuse(keyIssues, io);
  const { settings: config, endpoints } = checked;
  const demo = config.ACREDITA_MODE === "demo";
  if (demo) writeLine(io.stdout, DEMO_BANNER);

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
  }, env, io);
  const database = isPostgresUrl(config.DATABASE_URL)
    ? { DATABASE: "PostgreSQL", DATABASE_POOL_SIZE: config.DATABASE_POOL_SIZE, DATABASE_POOL_TIMEOUT_MS: config.DATABASE_POOL_TIMEOUT_MS, DATABASE_STATEMENT_TIMEOUT_MS: config.DATABASE_STATEMENT_TIMEOUT_MS }
    : { DATABASE: "SQLite", DATABASE_BUSY_TIMEOUT_MS: config.DATABASE_BUSY_TIMEOUT_MS };
  for (const [name, value] of Object.entries({ ...database, DATABASE_TRANSACTION_TIMEOUT_MS: config.DATABASE_TRANSACTION_TIMEOUT_MS })) writeLine(io.stdout, `  ${name.padEnd(32)} ${value}`);
  writeLine(io.stdout, `Webhook endpoints:\n${describeEndpoints(endpoints, env).map((line) => `  ${line}`).join("\n")}`);
  if (endpoints.endpoints.length === 0) writeLine(io.stdout, "  (no endpoint is configured: every webhook answers 404 until a secrets variable is set)");
  const keys = secretsKeys(env);
  writeLine(io.stdout, `  endpoints stored as data: POST /api/endpoints (docs/endpoints.md); ACREDITA_SECRETS_KEY ${keys.length === 0 ? "not set: no data endpoint secret can be stored" : `set (key ${keys[0].id} encrypts${keys.length > 1 ? `, ${keys.length - 1} more decrypt` : ""})`}`);

  if (!isPostgresUrl(config.DATABASE_URL)) mkdirSync(path.dirname(path.resolve(sqliteFilePath(config.DATABASE_URL))), { recursive: true });
  // Runs the migration engine only when a migration is pending (lib/db/pending-migrations.ts).
  const migration = await migrateOnStart(config.DATABASE_URL);
  if (!migration.ok) {
    if (migration.output) writeLine(io.stderr, migration.output);
    writeLine(io.stderr, migration.message);
    return migration.exitCode;
  }
  writeLine(io.stdout, migration.message);

  const databaseIssues = await withOwnDb(config, async (database) => {
    // Stored signing secrets that no key of ACREDITA_SECRETS_KEY decrypts: no data endpoint could verify a delivery.
    const issues = [...(await databaseModeIssues(database, config.ACREDITA_MODE)), ...(await storedSecretsIssues(database, env))];
    if (issues.length > 0) return issues;
    if (demo) {
      const seeded = await seedDemoData(database);
      writeLine(io.stdout, seeded > 0 ? `Demo data: ${seeded} orders created.` : "Demo data: database already has orders, nothing seeded.");
      const users = await seedDemoUsers(database, { mode: "demo" });
      if (users.created > 0) {
        writeLine(io.stdout, "Demo users (public demo passwords, see README):");
        for (const user of DEMO_USERS) writeLine(io.stdout, `  ${user.role.padEnd(9)} ${user.email.padEnd(26)} ${user.password}`);
      } else {
        writeLine(io.stdout, "Demo users: database already has users, none created.");
      }
    } else if ((await database.user.count()) === 0) {
      writeLine(io.stdout, "No users yet: create the first admin with `ACREDITA_NEW_PASSWORD=... npm run create-user -- --email you@example.com --name You --role admin`.");
    }
    return [];
  });
  if (databaseIssues.length > 0) return refuse(databaseIssues, io);

  if (!existsSync(".next/BUILD_ID") || argv.includes("--build")) {
    writeLine(io.stdout, "Building the app (first start) ...");
    const build = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], { stdio: "inherit", env: childEnv(env, { NEXT_TELEMETRY_DISABLED: "1" }) });
    if (build.status !== 0) return build.status ?? 1;
  }

  const host = env.HOST ?? "127.0.0.1";
  writeLine(io.stdout, `Acredita listening on http://${host}:${config.PORT}${demo ? "  (DEMO MODE)" : ""}`);
  // The server process is Next.js's request handler in Acredita's own HTTP server (scripts/server.mjs:
  // connections bounded per address and in all, short header and body timeouts), given the settings
  // checked above. The mode, database and session secret are passed on explicitly: Next.js never lets an
  // environment file override a variable that is already set. The server's heap is capped
  // (lib/config/server-process-flags.ts). A server process that dies (crash, SIGKILL, V8's heap limit)
  // is started again with backoff (lib/background/server-supervisor.ts); SIGTERM and SIGINT stop it and
  // this process with its status.
  return new Promise<number>((resolve) => {
    const stop = superviseServer(
      (restarts) =>
        spawn(process.execPath, [...serverProcessFlags(env.NODE_OPTIONS ?? ""), ...serverArguments(config, host)], {
          stdio: "inherit",
          env: childEnv(env, { ACREDITA_MODE: config.ACREDITA_MODE, DATABASE_URL: config.DATABASE_URL, AUTH_SECRET: config.AUTH_SECRET, NEXT_TELEMETRY_DISABLED: "1", [SERVER_RESTARTS_ENV]: String(restarts) }),
        }),
      { log: (line) => writeLine(io.stderr, line), exit: resolve },
    );
    for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => stop(signal));
  });
}

if (require.main === module) void main(process.argv.slice(2), process.env, processIo()).then((code) => process.exit(code));
