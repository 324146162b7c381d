// npm start: validate settings, apply migrations, seed demo data, build if needed, serve.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { readSettingsOrExit, settingsOnDemoDefaults } from "@/lib/config/settings";
import { authBaseUrl } from "@/lib/auth/auth";
import { closeDb, db } from "@/lib/db/client";
import { migrateOnStart } from "@/lib/db/pending-migrations";
import { describeDatabaseUrl, isPostgresUrl, sqliteFilePath } from "@/lib/db/url";
import { DEMO_USERS, seedDemoUsers } from "@/lib/demo/demo-users";
import { describeEndpoints, EndpointConfigError, loadEndpoints } from "@/lib/endpoints/endpoints";
import { seedDemoData } from "@/lib/demo/seed";

const SECRET_SETTINGS = new Set(["API_TOKEN", "LAB_WEBHOOK_SECRET", "AUTH_SECRET"]);

function banner(values: Record<string, unknown>): void {
  const onDefaults = new Set(settingsOnDemoDefaults());
  console.log("Acredita settings:");
  for (const [name, value] of Object.entries(values)) {
    const shown = SECRET_SETTINGS.has(name) ? (onDefaults.has(name) ? "(public demo value, see README)" : "(set)") : String(value);
    console.log(`  ${name.padEnd(32)} ${shown}${onDefaults.has(name) ? "  [demo default]" : ""}`);
  }
}

async function main(): Promise<void> {
  const config = readSettingsOrExit("Acredita");
  banner({ PORT: config.PORT, DATABASE_URL: describeDatabaseUrl(config.DATABASE_URL), API_TOKEN: "", LAB_WEBHOOK_SECRET: "", AUTH_SECRET: "", AUTH_BASE_URL: authBaseUrl(config), WEBHOOK_TOLERANCE_SECONDS: config.WEBHOOK_TOLERANCE_SECONDS, LOG_LEVEL: config.LOG_LEVEL, INBOX_WORKER_IN_PROCESS: config.INBOX_WORKER_IN_PROCESS, FULFILMENT_WEBHOOK_URL: config.FULFILMENT_WEBHOOK_URL ? "(set)" : "(not set: no fulfilment webhook)" });
  const database = isPostgresUrl(config.DATABASE_URL)
    ? { DATABASE: "PostgreSQL", DATABASE_POOL_SIZE: config.DATABASE_POOL_SIZE, DATABASE_POOL_TIMEOUT_MS: config.DATABASE_POOL_TIMEOUT_MS, DATABASE_STATEMENT_TIMEOUT_MS: config.DATABASE_STATEMENT_TIMEOUT_MS }
    : { DATABASE: "SQLite", DATABASE_BUSY_TIMEOUT_MS: config.DATABASE_BUSY_TIMEOUT_MS };
  for (const [name, value] of Object.entries({ ...database, DATABASE_TRANSACTION_TIMEOUT_MS: config.DATABASE_TRANSACTION_TIMEOUT_MS })) console.log(`  ${name.padEnd(32)} ${value}`);
  try {
    console.log(`Webhook endpoints:\n${describeEndpoints(loadEndpoints()).map((line) => `  ${line}`).join("\n")}`);
  } catch (error) {
    if (error instanceof EndpointConfigError) {
      console.error(`Acredita cannot start: ${error.issues.join("; ")}`);
      process.exit(1);
    }
    throw error;
  }

  if (!isPostgresUrl(config.DATABASE_URL)) mkdirSync(path.dirname(path.resolve(sqliteFilePath(config.DATABASE_URL))), { recursive: true });
  // Runs the migration engine only when a migration is pending (lib/db/pending-migrations.ts).
  const migration = await migrateOnStart(config.DATABASE_URL);
  if (!migration.ok) {
    if (migration.output) console.error(migration.output);
    console.error(migration.message);
    process.exit(migration.exitCode);
  }
  console.log(migration.message);

  const seeded = await seedDemoData(await db());
  console.log(seeded > 0 ? `Demo data: ${seeded} orders created.` : "Demo data: database already has orders, nothing seeded.");
  const users = await seedDemoUsers(await db(), { allowInProduction: config.DEMO_USERS_IN_PRODUCTION });
  if (users.created > 0) {
    console.log("Demo users (public demo passwords, see README):");
    for (const user of DEMO_USERS) console.log(`  ${user.role.padEnd(9)} ${user.email.padEnd(26)} ${user.password}`);
  } else if ("skipped" in users && users.skipped === "production") {
    console.log("Demo users: not created (NODE_ENV=production; set DEMO_USERS_IN_PRODUCTION=true to opt in, or run npm run create-user).");
  } else {
    console.log("Demo users: database already has users, none created.");
  }
  await closeDb();

  if (!existsSync(".next/BUILD_ID") || process.argv.includes("--build")) {
    console.log("Building the app (first start) ...");
    const build = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], { stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
    if (build.status !== 0) process.exit(build.status ?? 1);
  }

  const host = process.env.HOST ?? "127.0.0.1";
  console.log(`Acredita listening on http://${host}:${config.PORT}`);
  const server = spawn(process.execPath, ["node_modules/next/dist/bin/next", "start", "-p", String(config.PORT), "-H", host], { stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => server.kill(signal));
  server.on("exit", (code) => process.exit(code ?? 0));
}

void main();
