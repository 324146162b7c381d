import "../support/test-env";
// Red team: `npm run demo` pointed at a production database.
//
// The demo is meant to be an embedded SQLite toy (the README: "npm run demo ... embedded SQLite, demo
// data, demo users, public demo secrets"). But scripts/start.ts takes DATABASE_URL as it finds it in
// demo mode too, and only skips the seed when the database "already has orders" (start.ts:84-93). An
// operator who runs `npm run demo` in a shell where the production DATABASE_URL is exported (a prod
// box, a CI runner, a .env) serves the PRODUCTION database with every public demo secret: anyone who
// read the README credits real orders (and the production servers' outbox ships them).
// Expected: demo mode refuses a database that holds non-demo orders or users (or any PostgreSQL URL /
// a database it did not create), naming DATABASE_URL.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { after, before, test } from "node:test";
import { createUserWithPassword } from "@/lib/auth/users";
import { closeDb, db } from "@/lib/db/client";
import { DEMO_ENDPOINT_SECRETS } from "@/lib/endpoints/endpoints";
import { freePort } from "@/lib/net/free-port";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";
import { ensureBuilt } from "../support/real-server";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { applySqliteMigrations } from "@/lib/db/apply-migrations";

// A production database as `npm start` left it: migrated with its migration history (as the test
// databases are, without a run of the migration engine: npm start's own run is restart-under-load's).
const PRODUCTION_FILE = path.join(mkdtempSync(path.join(tmpdir(), "acredita-rt-prod-")), "prod.db");
applySqliteMigrations(PRODUCTION_FILE);
const PRODUCTION_DB = `file:${PRODUCTION_FILE}`;
process.env.DATABASE_URL = PRODUCTION_DB;

let child: ChildProcess | undefined;
let output = "";
let url = "";
let exitCode: number | null = null;

before(async () => {
  ensureBuilt();
  // The production database: a real order, a real admin.
  const database = await db();
  await database.order.create({ data: { id: "ord_rt_real_customer", amount: 1_990_000, currency: "ARS" } });
  assert.equal((await createUserWithPassword(database, { email: "ana@merchant.example", name: "Ana", role: "admin", password: "a-private-passphrase-2026" })).kind, "created");
  await closeDb();

  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  child = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts", "--demo"], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NEXT_TELEMETRY_DISABLED: "1", PORT: String(port), DATABASE_URL: PRODUCTION_DB, LOG_LEVEL: "warn" } as unknown as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  child.once("exit", (code) => (exitCode = code));
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline && exitCode === null) {
    if ((await fetch(`${url}/api/health`).catch(() => undefined))?.status === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
});

after(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child!.once("exit", resolve));
    process.kill(-child.pid!, "SIGTERM");
    await exited;
  }
});

test("npm run demo refuses a database that holds real orders and users; the public lab secret never pays a real order", async () => {
  if (exitCode !== null) {
    assert.notEqual(exitCode, 0, output);
    assert.match(output, /cannot start:[^\n]*\n?[^\n]*DATABASE_URL/);
    return;
  }
  const body = JSON.stringify({ id: "evt_rt_demo_on_prod", type: "payment.approved", created: 1760181330, data: { payment_id: "pay_rt_demo_on_prod", order_id: "ord_rt_real_customer", amount: 1_990_000, currency: "ARS" } });
  const lab = await fetch(`${url}/api/webhooks/lab`, { method: "POST", body, headers: { "content-type": "application/json", "Lab-Signature": signTimestamped(DEMO_ENDPOINT_SECRETS.LAB_WEBHOOK_SECRET, Math.floor(Date.now() / 1000), body) } });
  const order = await (await db()).order.findUniqueOrThrow({ where: { organizationId_id: { organizationId: "org_default", id: "ord_rt_real_customer" } } });
  await closeDb();
  assert.deepEqual(
    { served: true, lab: lab.status, order: order.status },
    { served: false, lab: 404, order: "created" },
    `npm run demo served the production database: ${JSON.stringify(await lab.json())}`,
  );
});
