// slow-test: two built servers, the lab played against each in process, one run waiting for its time-out on purpose
// `npm run lab` as a new user meets it: it waits only for its own events (another provider's event
// retried for minutes on the same server does not hold it up), a wait that times out names the events
// it waited for, it refuses a production server unless told --allow-production, and it writes the
// settlement next to the target's own data. The lab's main runs in this process, against built servers.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { isPostgresUrl, sqliteFilePath } from "@/lib/db/url";
import { paymentIntent, stripeEvent, stripeHeader } from "../support/providers";
import { waitFor } from "../support/real-server";
import { freshDatabaseUrl, startServer, type RunningServer } from "../support/server";
import { runMain } from "../support/cli";
import { main as labCli } from "@/scripts/lab";

const SECRET = "lab_own_events_secret_0001";
const TOKEN = "lab-own-events-token-0123456789abcdef-01";
const STRIPE_SECRET = "whsec_lab_own_events_stripe_0001";
const auth = { authorization: `Bearer ${TOKEN}` };

/** A production server whose lab endpoint runs in inbox mode, with its worker in process or not. */
async function inboxServer(worker: boolean): Promise<{ server: RunningServer; databaseUrl: string }> {
  const databaseUrl = freshDatabaseUrl();
  const server = await startServer({
    DATABASE_URL: databaseUrl,
    LAB_WEBHOOK_SECRET: SECRET,
    API_TOKEN: TOKEN,
    STRIPE_WEBHOOK_SECRET: STRIPE_SECRET,
    STRIPE_ACCOUNT_ID: "acct_lab_own",
    LAB_PROCESSING_MODE: "inbox",
    INBOX_POLL_INTERVAL_MS: "50",
    INBOX_WORKER_IN_PROCESS: worker ? "true" : "false",
  });
  return { server, databaseUrl };
}

let working: { server: RunningServer; databaseUrl: string };
let stalled: { server: RunningServer; databaseUrl: string };

before(async () => {
  [working, stalled] = await Promise.all([inboxServer(true), inboxServer(false)]);
});
after(async () => {
  await Promise.all([working?.server.stop(), stalled?.server.stop()]);
});

/** Runs the lab's main as `npm run lab` does against `target`, with this environment's PORT and DATABASE_URL those of the target. */
async function lab(target: { server: RunningServer; databaseUrl: string }, args: string[], env: Record<string, string> = {}) {
  const result = await runMain(labCli, args, { ...process.env, LAB_WEBHOOK_SECRET: SECRET, API_TOKEN: TOKEN, PORT: String(target.server.port), DATABASE_URL: target.databaseUrl, LANG: "C", ...env });
  return { ...result, lines: result.stdout.split("\n") };
}

/** Where the lab must write its settlement for a target on `databaseUrl`: beside its SQLite file, else data/lab. */
function settlementBeside(databaseUrl: string): string {
  return isPostgresUrl(databaseUrl) ? path.join("data", "lab", "settlement.csv") : path.join(path.dirname(sqliteFilePath(databaseUrl)), "lab", "settlement.csv");
}

test("a production server is refused without --allow-production, in one sentence, exit 2, before anything is sent (English and es-AR)", async () => {
  const url = `http://127.0.0.1:${working.server.port}`;
  const english = await lab(working, []);
  assert.equal(english.code, 2);
  assert.equal(english.stdout, "");
  assert.equal(
    english.stderr,
    `lab: ${url} runs in production mode: the lab would create its five demo orders and pay them in that server's real database. Play it against \`npm run demo\`, or pass --allow-production to play it there anyway.\n`,
  );
  const spanish = await lab(working, ["--locale", "es-AR"]);
  assert.equal(spanish.code, 2);
  assert.equal(
    spanish.stderr,
    `lab: ${url} corre en modo producción: el laboratorio crearía sus cinco órdenes de demostración y las pagaría en la base de datos real de ese servidor. Jugalo contra \`npm run demo\`, o pasá --allow-production para jugarlo ahí de todos modos.\n`,
  );
  // Nothing reached the server: not even the lab's orders.
  assert.equal((await fetch(`${working.server.url}/api/orders/ord_1041`, { headers: auth })).status, 404);
});

test("another provider's event retried for minutes does not hold the lab up: 0 mismatches, the settlement beside the target's database", async () => {
  // A Stripe payment for an order the server does not know: the worker parks it and retries it for minutes.
  const body = JSON.stringify(stripeEvent("evt_own_unknown", "payment_intent.succeeded", paymentIntent({ id: "pi_own_unknown", orderId: "ord_nobody_knows", amount: 2500, currency: "usd" }), { account: "acct_lab_own" }));
  const delivered = await fetch(`${working.server.url}/api/webhooks/stripe`, { method: "POST", body, headers: { "content-type": "application/json", "stripe-signature": stripeHeader(body, STRIPE_SECRET) } });
  assert.equal(delivered.status, 200);
  const pending = async () => (await (await fetch(`${working.server.url}/api/metrics`, { headers: auth })).json()).inbox as { pending: number; parked: number };
  await waitFor("the Stripe event parked for a retry", async () => ((await pending()).parked === 1 ? true : undefined));

  const run = await lab(working, ["--allow-production", "--wait", "20"]);
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  assert.ok(run.lines.includes("0 mismatches in 5 settlement rows and 5 orders; over-credited: ARS 0.00"), run.stdout);
  const csvPath = settlementBeside(working.databaseUrl);
  assert.ok(run.lines.some((line) => line.startsWith(`Settlement written to ${csvPath}. Reconciliation (run `)), run.stdout);
  assert.equal(readFileSync(csvPath, "utf8").split("\n")[1], "ord_1041,approved,2500000,ARS");
  // The other provider's event is still pending: the lab did not wait for it, nor touch it.
  assert.equal((await pending()).pending, 1);
});

test("when its own events are not applied in time, the lab names each of them (English and es-AR), exit 2", async () => {
  const names = "evt_0001 (order ord_1041, received), evt_0002 (order ord_1042, received), evt_0003 (order ord_1043, received), evt_0004 (order ord_1045, received), evt_0005 (order ord_1045, received)";
  const english = await lab(stalled, ["--allow-production", "--wait", "1"]);
  assert.equal(english.code, 2, english.stdout);
  assert.equal(english.stderr, `lab: the server did not apply 5 of the lab's events within 1 s: ${names}\n`);
  // No reconciliation of a half-applied lab: it would report mismatches that are only a wait.
  assert.ok(!english.stdout.includes("Settlement written"), english.stdout);
  const spanish = await lab(stalled, ["--allow-production", "--wait", "1", "--locale", "es-AR"]);
  assert.equal(spanish.code, 2, spanish.stdout);
  assert.equal(spanish.stderr, `lab: el servidor no aplicó 5 eventos del laboratorio en 1 s: ${names.replaceAll("(order", "(orden")}\n`);
  // Nothing written beside the target's database (on PostgreSQL data/lab/ is shared with other runs: not checked).
  if (!isPostgresUrl(stalled.databaseUrl)) assert.equal(existsSync(settlementBeside(stalled.databaseUrl)), false);
});

test("a bad --wait is refused before anything is sent", async () => {
  const run = await lab(stalled, ["--wait", "0"]);
  assert.equal(run.code, 2);
  assert.equal(run.stderr, "lab: --wait needs a number of seconds from 1 to 3600 (got 0)\n");
});
