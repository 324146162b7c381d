import "../support/test-env";
// slow-test: starts the built server in demo mode and again in production on the same database
// Red team: a demo database turned into a deployment keeps what the PUBLIC demo secrets stored.
//
// The authors already treat "a demo database that became a deployment" as a threat: `npm start`
// refuses it while demo users keep their public passwords, and tells the operator to delete them or
// change their passwords (scripts/start.ts:96-101). Do exactly that, and production starts. But
// the inbox events (and dead letters) that anyone signed with the README's demo secrets while the demo
// ran are still there, and production's worker applies them: nothing marks them, since a delivery
// accepted with a public demo secret is recorded under the same label as the operator's own secret
// (`YOLFI_WEBHOOK_SECRET[0]`, lib/endpoints/endpoints.ts:200-201 loadSecrets of the demo value).
// Here: while the demo runs, anyone posts a README-signed Yolfi `payment.confirmed` for an order the
// store has not created yet (a guessable next id); it waits in the inbox (unknown order, parked for
// 3 days). The deployment goes live, the store creates that order, the worker pays it.
// Expected: an event accepted with a public demo secret is never applied outside demo mode (labelled as
// such when stored, and `npm start` refuses or quarantines pending ones, as it does demo users).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { closeDb, db } from "@/lib/db/client";
import { applySqliteMigrations } from "@/lib/db/apply-migrations";
import { DEMO_ENDPOINT_SECRETS } from "@/lib/endpoints/endpoints";
import { claimNextInboxEvent } from "@/lib/events/webhook-events";
import { applyClaimedEvent } from "@/lib/inbox/apply-claimed-events";
import { inboxRetryPolicy } from "@/lib/jobs/retry-policy";
import { usersWithPublicDemoPasswords } from "@/lib/demo/public-demo-passwords";
import { freePort } from "@/lib/net/free-port";
import { retryDeadLetter } from "@/lib/triage/retry-dead-letter";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";
import { yolfiEvent, yolfiSignature } from "../support/providers";
import { ensureBuilt } from "../support/real-server";
import { createOrder, readOrder } from "../support/http";
const DEFAULT_ORG = "org_default";

// Migrated with its history as the test databases are (the migration engine's run is not this test's subject).
const DATABASE_FILE = path.join(mkdtempSync(path.join(tmpdir(), "acredita-rt-residue-")), "acredita.db");
applySqliteMigrations(DATABASE_FILE);
const DATABASE = `file:${DATABASE_FILE}`;
// After the demo, this process is the production deployment on the same database.
process.env.DATABASE_URL = DATABASE;
delete process.env.YOLFI_WEBHOOK_SECRET;

let demoAnswer: { status: number; outcome: string } | undefined;
let inlineAnswer: { status: number; outcome: string } | undefined;

before(async () => {
  ensureBuilt();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // `npm run demo`, its in-process worker off so the stored event waits (with it on, the event is parked
  // as unknown_order for days: the same residue).
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts", "--demo"], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NEXT_TELEMETRY_DISABLED: "1", PORT: String(port), DATABASE_URL: DATABASE, LOG_LEVEL: "warn", INBOX_WORKER_IN_PROCESS: "false" } as unknown as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  try {
    const deadline = Date.now() + 90_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`npm run demo exited:\n${output}`);
      if ((await fetch(`${url}/api/health`).catch(() => undefined))?.status === 200) break;
      if (Date.now() > deadline) throw new Error(`npm run demo not ready:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // Anyone who read the README, while the demo was reachable.
    const body = yolfiEvent({ id: "evt_rt_residue", type: "payment.confirmed", orgId: "org_acredita_demo", data: { paymentId: "ypay_rt_residue", merchantOrderId: "ord_2001", amount: "49.90", token: "USDC" } });
    const response = await fetch(`${url}/api/webhooks/yolfi`, { method: "POST", body, headers: { "content-type": "application/json", "X-Yolfi-Signature": yolfiSignature(body, DEMO_ENDPOINT_SECRETS.YOLFI_WEBHOOK_SECRET) } });
    demoAnswer = { status: response.status, outcome: (await response.json()).outcome };
    // The lab endpoint applies inline: an event for an order not created yet is a dead letter (the event row rolled back).
    const labBody = JSON.stringify({ id: "evt_rt_inline_future", type: "payment.approved", created: 1760181330, data: { payment_id: "pay_rt_inline_future", order_id: "ord_rt_inline_future", amount: 999_999, currency: "USD" } });
    const lab = await fetch(`${url}/api/webhooks/lab`, { method: "POST", body: labBody, headers: { "content-type": "application/json", "Lab-Signature": signTimestamped(DEMO_ENDPOINT_SECRETS.LAB_WEBHOOK_SECRET, Math.floor(Date.now() / 1000), labBody) } });
    inlineAnswer = { status: lab.status, outcome: (await lab.json()).outcome };
  } finally {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    if (child.exitCode === null) process.kill(-child.pid!, "SIGTERM");
    await exited;
  }
});
after(closeDb);

test("events signed with a public demo secret during the demo are never applied once the database is in production", async () => {
  assert.deepEqual(demoAnswer, { status: 200, outcome: "accepted" }, "the demo stored the README-signed event");
  const database = await db();
  // The operator follows npm start's refusal: the demo users go; nothing else tells them to clean up.
  await database.session.deleteMany({});
  await database.account.deleteMany({});
  await database.user.deleteMany({});
  assert.deepEqual(await usersWithPublicDemoPasswords(database), [], "npm start would now start in production");

  // Production: the store creates its next order; the worker runs.
  assert.equal((await createOrder("ord_2001", 3_500_000, "ARS")).status, 201);
  const claimed = await claimNextInboxEvent(database, "redteam-worker", new Date(), 30_000);
  const stored = await database.webhookEvent.findFirst({ where: { eventId: "evt_rt_residue" }, select: { secretLabel: true } });
  if (claimed) await applyClaimedEvent(database, claimed, { owner: "redteam-worker", policy: inboxRetryPolicy() });
  const order = await readOrder("ord_2001");
  assert.deepEqual(
    { order: order.status, credited: order.credited },
    { order: "created", credited: 0 },
    `production paid a real order with an event signed by the README's demo secret (stored under label ${stored?.secretLabel})`,
  );
});

test("a dead letter of an inline delivery signed with a public demo secret is never applied by a retry in production", async () => {
  assert.deepEqual(inlineAnswer, { status: 409, outcome: "dead_lettered" }, "the demo dead-lettered the README-signed lab event");
  const database = await db();
  const letter = await database.deadLetter.findFirstOrThrow({ where: { eventId: "evt_rt_inline_future" } });
  // Production: the store creates that order; support retries the dead letter.
  assert.equal((await createOrder("ord_rt_inline_future", 999_999, "USD")).status, 201);
  const retried = await retryDeadLetter(database, DEFAULT_ORG, letter.id, "support@acredita.test");
  const order = await readOrder("ord_rt_inline_future");
  assert.deepEqual({ order: order.status, credited: order.credited }, { order: "created", credited: 0 }, `the retry paid it: ${retried.reason}`);
  assert.equal(retried.outcome, "dead_lettered");
  assert.equal(retried.reasonRef?.code, "demo_secret");
  assert.equal(await database.ledgerEntry.count({ where: { orderId: "ord_rt_inline_future" } }), 0);
  const after = await database.deadLetter.findUniqueOrThrow({ where: { id: letter.id } });
  assert.deepEqual([after.status, after.category, after.secretLabel], ["open", "demo_secret", "LAB_WEBHOOK_SECRET[demo]"]);
});
