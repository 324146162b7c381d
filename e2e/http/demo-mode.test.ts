// slow-test: runs npm run demo's whole start (migrations, seed, the built app) on fresh databases
// `npm run demo`, the README's first command, as a newcomer runs it: the whole start (settings,
// migrations, demo seed, the built app) on a fresh database, then what only demo mode allows: the
// public demo secrets and passwords.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { DEMO_ENDPOINT_SECRETS } from "@/lib/endpoints/endpoints";
import { freePort } from "@/lib/net/free-port";
import { ensureBuilt, waitFor } from "../support/real-server";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { yolfiEvent, yolfiSignature } from "../support/providers";
import { spawnCommand } from "../support/cli";

let child: ChildProcess;
let output = "";
let url = "";
// The README's first command runs on the embedded default: a SQLite file that does not exist yet.
const database = { url: `file:${path.join(mkdtempSync(path.join(tmpdir(), "acredita-demo-")), "acredita.db")}` };

before(async () => {
  ensureBuilt();
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  // Its own process group, so the Next.js server it spawns stops with it.
  child = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts", "--demo"], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NEXT_TELEMETRY_DISABLED: "1", PORT: String(port), DATABASE_URL: database.url, LOG_LEVEL: "warn" } as unknown as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  await waitFor("npm run demo to serve", async () => {
    if (child.exitCode !== null) throw new Error(`npm run demo exited:\n${output}`);
    return (await fetch(`${url}/api/health`).catch(() => undefined))?.status === 200;
  }, { timeoutMs: 90_000, intervalMs: 200 });
});

after(async () => {
  if (child?.exitCode === null) {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    process.kill(-child.pid!, "SIGTERM");
    await exited;
  }
});

describe("npm run demo", () => {
  test("prints the demo banner, seeds the five lab orders and the three demo users", async () => {
    assert.match(output, /DEMO MODE: public demo secrets/);
    assert.match(output, /Demo data: 5 orders created\./);
    assert.match(output, /merchant +merchant@acredita\.test +merchant-demo-2026/);
    assert.match(output, /POST \/api\/webhooks\/yolfi +yolfi +live inbox +account org_acredita_demo +YOLFI_WEBHOOK_SECRET \(PUBLIC DEMO SECRET, demo mode only\)/);
    const orders = await (await fetch(`${url}/api/orders`, { headers: { authorization: "Bearer demo-api-token" } })).json();
    assert.deepEqual(orders.data.map((order: { id: string }) => order.id).sort(), ["ord_1041", "ord_1042", "ord_1043", "ord_1044", "ord_1045"]);
    const signIn = await (await fetch(`${url}/sign-in`)).text();
    assert.ok(signIn.includes("merchant-demo-2026"), "the sign-in page shows the demo passwords in demo mode");
  });

  test("`npm run lab` against it, as the README says: no flag needed, 0 mismatches, the settlement in data/lab beside the database", async () => {
    // The README's `PORT=3105 npm run lab`: the same PORT (and DATABASE_URL) as the demo it plays against.
    // The lab's one run as its own process (its other tests call its main). Not spawnSync: a test process
    // blocked for the lab's seconds misses the server closing its idle kept-alive connection, and its next
    // fetch on that connection fails.
    const run = await spawnCommand("scripts/lab.ts", [], { PATH: process.env.PATH, HOME: process.env.HOME, LANG: "C", PORT: new URL(url).port, DATABASE_URL: database.url }, { timeoutMs: 120_000 });
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    const lines = run.stdout.split("\n");
    const csvPath = path.join(path.dirname(database.url.slice("file:".length)), "lab", "settlement.csv");
    assert.ok(lines.some((line) => line.startsWith(`Settlement written to ${csvPath}. Reconciliation (run `)), run.stdout);
    assert.ok(lines.includes("0 mismatches in 5 settlement rows and 5 orders; over-credited: ARS 0.00"), run.stdout);
    assert.equal(readFileSync(csvPath, "utf8").split("\n")[0], "order_id,provider_status,amount,currency");
  });

  test("accepts the Yolfi example of docs/providers.md signed with the public demo secret", async () => {
    const body = yolfiEvent({ id: "evt_demo_mode_1", type: "payment.confirmed", orgId: "org_acredita_demo", data: { paymentId: "ypay_demo_mode", merchantOrderId: "ord_1044", amount: "49.90", token: "USDC" } });
    const response = await fetch(`${url}/api/webhooks/yolfi`, { method: "POST", body, headers: { "content-type": "application/json", "X-Yolfi-Signature": yolfiSignature(body, DEMO_ENDPOINT_SECRETS.YOLFI_WEBHOOK_SECRET) } });
    assert.deepEqual([response.status, (await response.json()).outcome], [200, "accepted"]);
    const paid = await waitFor("ord_1044 paid by the in-process worker", async () => {
      const order = await (await fetch(`${url}/api/orders/ord_1044`, { headers: { authorization: "Bearer demo-api-token" } })).json();
      return order.status === "paid" ? order : undefined;
    });
    assert.deepEqual([paid.credited, paid.currency], [3000000, "ARS"]);
  });

  test("pages link the product's icon, and it is served", async () => {
    const html = await (await fetch(`${url}/sign-in`)).text();
    assert.match(html, /<link rel="icon" href="\/icon\.svg[^"]*"[^>]*type="image\/svg\+xml"/);
    const icon = await fetch(`${url}/icon.svg`);
    assert.deepEqual([icon.status, icon.headers.get("content-type")], [200, "image/svg+xml"]);
    assert.match(await icon.text(), /^<svg /);
  });
});
