// The browser tests' server (playwright.config.ts `webServer`): a FRESH SQLite database in a temporary
// folder, migrated and seeded with the demo orders and users, then the BUILT app on 127.0.0.1:PORT.
// Refuses a database outside the OS temp folder, so a test run can never touch real data.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { applySqliteMigrations } from "@/lib/db/apply-migrations";
import { closeDb, db } from "@/lib/db/client";
import { sqliteFilePath } from "@/lib/db/url";
import { seedDemoUsers } from "@/lib/demo/demo-users";
import { seedDemoData } from "@/lib/demo/seed";

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL ?? "";
  const file = path.resolve(sqliteFilePath(url));
  const temp = realpathSync(tmpdir());
  if (!url.startsWith("file:") || !path.resolve(path.dirname(file)).startsWith(temp + path.sep)) {
    console.error(`e2e-server: refusing DATABASE_URL outside ${temp} (got ${url ? "a non-temporary database" : "nothing"})`);
    process.exit(2);
  }
  if (existsSync(file)) {
    console.error(`e2e-server: ${file} already exists; the browser tests need a fresh database`);
    process.exit(2);
  }
  if (!existsSync(".next/BUILD_ID")) {
    console.error("e2e-server: no production build; run `npm run build` (npm test builds first)");
    process.exit(2);
  }
  mkdirSync(path.dirname(file), { recursive: true });
  applySqliteMigrations(file);
  const client = await db();
  await seedDemoData(client);
  await seedDemoUsers(client, { allowInProduction: true });
  await closeDb();

  const port = process.env.PORT ?? "3000";
  const server = spawn(process.execPath, ["node_modules/next/dist/bin/next", "start", "-p", port, "-H", "127.0.0.1"], { stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => server.kill(signal));
  server.on("exit", (code) => process.exit(code ?? 0));
}

void main();
