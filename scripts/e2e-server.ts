// The browser tests' server (playwright.config.ts `webServer`): a FRESH database, seeded with the demo
// orders and users, then the BUILT app on 127.0.0.1:PORT. SQLite: a new file in the OS temp folder,
// migrated here; PostgreSQL: a new `acredita_e2e_browser_*` database on 127.0.0.1 made from the migrated
// template. Refuses anything else, or a database that already has orders, so a test run can never
// touch real data.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { applySqliteMigrations } from "@/lib/db/apply-migrations";
import { closeDb, db } from "@/lib/db/client";
import { isPostgresUrl, sqliteFilePath } from "@/lib/db/url";
import { TEST_ROLE_USERS } from "@/lib/demo/demo-accounts";
import { seedDemoUsers } from "@/lib/demo/demo-users";
import { seedDemoData } from "@/lib/demo/seed";

/** A fresh PostgreSQL test database on this machine's test cluster, or a message saying why not. */
function postgresProblem(url: string): string | undefined {
  const database = new URL(url);
  if (database.hostname !== "127.0.0.1" && database.hostname !== "localhost") return "refusing a PostgreSQL database that is not on 127.0.0.1";
  if (!/^\/acredita_e2e_browser_[0-9a-f]+$/.test(database.pathname)) return "refusing a PostgreSQL database that is not a browser-test database (acredita_e2e_browser_*)";
  return undefined;
}

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL ?? "";
  if (!existsSync(".next/BUILD_ID")) {
    console.error("e2e-server: no production build; run `npm run build` (npm test builds first)");
    process.exit(2);
  }
  if (isPostgresUrl(url)) {
    // Made from the migrated template by e2e/browser/support/e2e-env.ts: migrated, and empty (checked below).
    const problem = postgresProblem(url);
    if (problem) {
      console.error(`e2e-server: ${problem}`);
      process.exit(2);
    }
  } else {
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
    mkdirSync(path.dirname(file), { recursive: true });
    applySqliteMigrations(file);
  }
  const client = await db();
  if ((await client.order.count()) > 0) {
    console.error("e2e-server: the database already has orders; the browser tests need a fresh database");
    process.exit(2);
  }
  await seedDemoData(client);
  await seedDemoUsers(client, { mode: "demo", users: TEST_ROLE_USERS });
  await closeDb();

  const port = process.env.PORT ?? "3000";
  const server = spawn(process.execPath, ["node_modules/next/dist/bin/next", "start", "-p", port, "-H", "127.0.0.1"], { stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => server.kill(signal));
  server.on("exit", (code) => process.exit(code ?? 0));
}

void main();
