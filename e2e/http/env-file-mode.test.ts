// Red team: `npm start` checks one environment and serves another.
//
// scripts/start.ts:46-56 validates process.env, prints "ACREDITA_MODE production", skips the demo seed
// and checks for demo passwords, then spawns `next start` (start.ts:116). Next.js loads the project's
// `.env*` files (`.env`, `.env.local`, `.env.production[.local]`) into the SERVER's environment before
// instrumentation.ts runs, and instrumentation.ts:7 re-checks that environment, which now says
// ACREDITA_MODE=demo: every check passes, because demo mode allows everything. `.env` is even listed in
// .gitignore (the natural place an operator, or a developer's leftover, keeps settings). Result: a server
// announced as production accepts the README's public demo secrets and the demo API token.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { applySqliteMigrations } from "@/lib/db/apply-migrations";
import { DEMO_ENDPOINT_SECRETS } from "@/lib/endpoints/endpoints";
import { freePort } from "@/lib/net/free-port";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";
import { ensureBuilt } from "../support/real-server";

// A copy of this checkout made of symlinks (the build included), so the `.env` written below is seen by
// this test's server only, never by another test running at the same time.
const project = mkdtempSync(path.join(tmpdir(), "acredita-rt-project-"));
let child: ChildProcess | undefined;
let output = "";
let url = "";
let exitCode: number | null = null;

before(async () => {
  ensureBuilt();
  for (const entry of readdirSync(process.cwd())) if (!entry.startsWith(".env") && entry !== ".git") symlinkSync(path.join(process.cwd(), entry), path.join(project, entry));
  // A leftover from trying the demo (or an operator's settings file): one line.
  writeFileSync(path.join(project, ".env"), "ACREDITA_MODE=demo\n");
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  // Already migrated: the subject is the mode .env sets, not npm start's migration run (restart-under-load's).
  const databaseFile = path.join(mkdtempSync(path.join(tmpdir(), "acredita-rt-dotenv-")), "prod.db");
  applySqliteMigrations(databaseFile);
  const database = `file:${databaseFile}`;
  // The operator's production start: own AUTH_SECRET, nothing else, ACREDITA_MODE unset.
  child = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NEXT_TELEMETRY_DISABLED: "1", PORT: String(port), DATABASE_URL: database, LOG_LEVEL: "warn", AUTH_SECRET: "redteam-auth-secret-0123456789abcdef-0123" } as unknown as NodeJS.ProcessEnv,
    cwd: project,
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
  rmSync(project, { recursive: true, force: true });
});

test("a server that `npm start` announced as production never takes the public demo secrets or token", async () => {
  if (exitCode !== null) {
    assert.notEqual(exitCode, 0, output); // refusing to start on a mode it did not check is a fix
    return;
  }
  assert.match(output, /ACREDITA_MODE\s+production/, "npm start announced production");
  const token = await fetch(`${url}/api/orders`, { method: "POST", body: JSON.stringify({ id: "ord_rt_dotenv", amount: 5000, currency: "USD" }), headers: { "content-type": "application/json", authorization: "Bearer demo-api-token" } });
  const body = JSON.stringify({ id: "evt_rt_dotenv", type: "payment.approved", created: 1760181330, data: { payment_id: "pay_rt_dotenv", order_id: "ord_rt_dotenv", amount: 5000, currency: "USD" } });
  const lab = await fetch(`${url}/api/webhooks/lab`, { method: "POST", body, headers: { "content-type": "application/json", "Lab-Signature": signTimestamped(DEMO_ENDPOINT_SECRETS.LAB_WEBHOOK_SECRET, Math.floor(Date.now() / 1000), body) } });
  assert.deepEqual(
    { demoToken: token.status, demoLabSecret: lab.status, labAnswer: (await lab.json()).outcome },
    { demoToken: 401, demoLabSecret: 404, labAnswer: "rejected" },
    "the production server took the public demo token and lab secret",
  );
});
