import { TEST_DB } from "../support/test-env";
// slow-test: the hostile-input suite against the built server over real HTTP
// The hostile-input suite, against the BUILT server over real HTTP, as an attacker holding each secret
// (or none) would try it: public demo secrets in production, endpoints nobody configured, a test
// secret poisoning live event ids, one provider's events touching another provider's payments, and
// payments without the amount their provider always signs.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { Webhook } from "standardwebhooks";
import { closeDb, db } from "@/lib/db/client";
import { hashPassword } from "better-auth/crypto";
import { usersWithPublicDemoPasswords } from "@/lib/demo/public-demo-passwords";
import { seedDemoUsers } from "@/lib/demo/demo-users";
import { DEMO_ENDPOINT_SECRETS } from "@/lib/endpoints/endpoints";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";
import { freePort } from "@/lib/net/free-port";
import { checkoutSession, paymentIntent, stripeEvent, stripeHeader, yolfiEvent, yolfiSignature } from "../support/providers";
import { startServer, type RunningServer } from "../support/server";

const TOKEN = "hostile-operator-token-0123456789abcdef";
const AUTH_SECRET = "hostile-auth-secret-0123456789abcdef-0123";
const LAB_SECRET = "hostile_lab_secret_0001";
const STRIPE_SECRET = "whsec_hostile_stripe_live_0001";
const STRIPE_TEST_SECRET = "whsec_hostile_stripe_test_0001";
const SW_SECRET = `whsec_${Buffer.from("hostile-standard-webhooks-key-01").toString("base64")}`;
const STRIPE_ACCOUNT = "acct_hostile_operator";

/** A production server as an operator configures it: own secrets for lab, Stripe (live and test) and Standard Webhooks; Yolfi not configured. */
const PRODUCTION_ENV = {
  DATABASE_URL: TEST_DB.url,
  API_TOKEN: TOKEN,
  AUTH_SECRET,
  LAB_WEBHOOK_SECRET: LAB_SECRET,
  STRIPE_WEBHOOK_SECRET: STRIPE_SECRET,
  STRIPE_TEST_WEBHOOK_SECRET: STRIPE_TEST_SECRET,
  STANDARD_WEBHOOKS_SECRET: SW_SECRET,
  // Production serves a provider's endpoint only with the operator's own account.
  STRIPE_ACCOUNT_ID: STRIPE_ACCOUNT,
  STANDARD_WEBHOOKS_ACCOUNT: "hostile-shop",
  // Set empty so the test runner's own environment cannot configure them.
  YOLFI_WEBHOOK_SECRET: "",
  YOLFI_TEST_WEBHOOK_SECRET: "",
  ACREDITA_MODE: "",
  WEBHOOK_PROCESSING_MODE: "inline",
};

let server: RunningServer;

async function post(path: string, body: string, headers: Record<string, string>): Promise<{ status: number; json: { outcome: string; reason: string } }> {
  const response = await fetch(`${server.url}${path}`, { method: "POST", body, headers: { "content-type": "application/json", ...headers } });
  return { status: response.status, json: await response.json() };
}

async function order(id: string): Promise<{ status: string; credited: number; refunded: number; ledger: { businessKey: string; amount: number }[] }> {
  const response = await fetch(`${server.url}/api/orders/${id}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(response.status, 200, `GET /api/orders/${id}`);
  return response.json();
}

function postStripe(endpoint: "stripe" | "stripe-test", event: Record<string, unknown>, secret: string) {
  const body = JSON.stringify(event);
  return post(`/api/webhooks/${endpoint}`, body, { "Stripe-Signature": stripeHeader(body, secret) });
}

function postLab(id: string, type: "payment.approved" | "payment.refunded", orderId: string, paymentId: string, amount: number, currency: string) {
  const body = JSON.stringify({ id, type, created: 1760181330, data: { payment_id: paymentId, order_id: orderId, amount, currency } });
  return post("/api/webhooks/lab", body, { "Lab-Signature": signTimestamped(LAB_SECRET, Math.floor(Date.now() / 1000), body) });
}

async function counts(orderId: string) {
  const database = await db();
  const [ledger, deadLetters] = await Promise.all([database.ledgerEntry.count({ where: { orderId } }), database.deadLetter.findMany({ where: { orderId }, select: { category: true, status: true } })]);
  return { ledger, deadLetters };
}

/** Runs a server command to its exit (it must refuse before listening) and returns its exit code and output. */
async function refusal(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [...args, ...(args.includes("start") ? ["-p", String(port), "-H", "127.0.0.1"] : [])], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NEXT_TELEMETRY_DISABLED: "1", PORT: String(port), DATABASE_URL: TEST_DB.url, ...env } as unknown as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
  const code = await new Promise<number | null>((resolve) => child.once("exit", (exitCode) => resolve(exitCode)));
  clearTimeout(timer);
  return { code, output };
}

before(async () => {
  server = await startServer(PRODUCTION_ENV);
  for (const [id, amount, currency] of [
    ["ord_h_yolfi", 2500000, "ARS"],
    ["ord_h_poison", 4200, "USD"],
    ["ord_h_stripe", 9900, "USD"],
    ["ord_h_lab", 1500, "USD"],
    ["ord_h_stripe2", 3100, "USD"],
    ["ord_h_noamount", 7000, "USD"],
    ["ord_h_sw", 800, "EUR"],
  ] as const) {
    const response = await fetch(`${server.url}/api/orders`, { method: "POST", body: JSON.stringify({ id, amount, currency }), headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` } });
    assert.equal(response.status, 201, id);
  }
});
after(async () => {
  await server?.stop();
  await closeDb();
});

describe("public demo secrets and unconfigured endpoints in production", () => {
  test("a Yolfi payment signed with the README's demo secret finds no endpoint: 404, the order untouched", async () => {
    const body = yolfiEvent({ id: "evt_h_yolfi", type: "payment.confirmed", orgId: "org_acredita_demo", data: { paymentId: "ypay_h", merchantOrderId: "ord_h_yolfi", amount: "49.90", token: "USDC" } });
    for (const endpoint of ["yolfi", "yolfi-test"]) {
      const result = await post(`/api/webhooks/${endpoint}`, body, { "X-Yolfi-Signature": yolfiSignature(body, endpoint === "yolfi" ? DEMO_ENDPOINT_SECRETS.YOLFI_WEBHOOK_SECRET : DEMO_ENDPOINT_SECRETS.YOLFI_TEST_WEBHOOK_SECRET) });
      assert.deepEqual([result.status, result.json], [404, { outcome: "rejected", reason: "unknown webhook endpoint" }], endpoint);
    }
    const current = await order("ord_h_yolfi");
    assert.deepEqual([current.status, current.credited, current.ledger.length], ["created", 0, 0]);
    assert.equal(await (await db()).webhookEvent.count({ where: { eventId: "evt_h_yolfi" } }), 0);
  });

  test("Stripe and Standard Webhooks deliveries signed with the demo secrets are 401 on configured endpoints", async () => {
    const event = stripeEvent("evt_h_demo_stripe", "payment_intent.succeeded", paymentIntent({ id: "pi_h_demo", orderId: "ord_h_yolfi", amount: 2500000, currency: "ars" }));
    assert.equal((await postStripe("stripe", event, DEMO_ENDPOINT_SECRETS.STRIPE_WEBHOOK_SECRET)).status, 401);
    assert.equal((await postStripe("stripe-test", { ...event, livemode: false }, DEMO_ENDPOINT_SECRETS.STRIPE_TEST_WEBHOOK_SECRET)).status, 401);
    const body = JSON.stringify({ type: "payment.succeeded", data: { payment_id: "pay_h_demo", order_id: "ord_h_yolfi", amount: 2500000, currency: "ARS" } });
    const signature = new Webhook(DEMO_ENDPOINT_SECRETS.STANDARD_WEBHOOKS_SECRET).sign("msg_h_demo", new Date(), body);
    const sw = await post("/api/webhooks/standard-webhooks", body, { "webhook-id": "msg_h_demo", "webhook-timestamp": String(Math.floor(Date.now() / 1000)), "webhook-signature": signature });
    assert.equal(sw.status, 401);
    const lab = JSON.stringify({ id: "evt_h_demo_lab", type: "payment.approved", created: 1760181330, data: { payment_id: "pay_h_demo_lab", order_id: "ord_h_yolfi", amount: 2500000, currency: "ARS" } });
    assert.equal((await post("/api/webhooks/lab", lab, { "Lab-Signature": signTimestamped(DEMO_ENDPOINT_SECRETS.LAB_WEBHOOK_SECRET, Math.floor(Date.now() / 1000), lab) })).status, 401);
    assert.deepEqual([(await order("ord_h_yolfi")).credited, await (await db()).webhookEvent.count()], [0, 0]);
  });

  test("the demo API token opens nothing in production", async () => {
    const response = await fetch(`${server.url}/api/orders`, { headers: { authorization: "Bearer demo-api-token" } });
    assert.equal(response.status, 401);
  });

});

describe("demo users left in a production database", () => {
  test("a running production server never shows their passwords; a server started on that database refuses; a new password clears it", async () => {
    // Demo users appear in the database (a demo database turned into a deployment) while the server runs.
    await seedDemoUsers(await db(), { mode: "demo" });
    const html = await (await fetch(`${server.url}/sign-in`)).text();
    assert.ok(!html.includes("merchant-demo-2026"));
    assert.ok(!html.includes(`id="demo-users"`), "no demo users box");
    assert.deepEqual(await usersWithPublicDemoPasswords(await db()), ["admin@acredita.test", "merchant@acredita.test", "support@acredita.test"]);
    const { code, output } = await refusal(["node_modules/next/dist/bin/next", "start"], PRODUCTION_ENV);
    assert.equal(code, 1, output);
    for (const email of ["admin@acredita.test", "merchant@acredita.test", "support@acredita.test"]) assert.match(output, new RegExp(`user ${email.replace(".", "\\.")} still has its public demo password`));
    assert.ok(!output.includes("admin-demo-2026"));
    for (const user of await (await db()).user.findMany({ where: { email: { in: ["merchant@acredita.test", "support@acredita.test", "admin@acredita.test"] } } })) {
      await (await db()).account.updateMany({ where: { userId: user.id, providerId: "credential" }, data: { password: await hashPassword(`a-new-private-passphrase-${user.id}`) } });
    }
    assert.deepEqual(await usersWithPublicDemoPasswords(await db()), []);
  });

  test("demo mode refuses a database that holds real users: it never serves a real database", async () => {
    // The database now holds only the demo accounts (with private passwords); add a real user.
    await (await db()).user.create({ data: { id: "u_real_ana", email: "ana@merchant.example", name: "Ana", role: "admin", emailVerified: true } });
    // The same check runs in npm run demo, npm run receiver and a bare next start (lib/demo/database-mode-check.ts).
    const { code, output } = await refusal(["node_modules/next/dist/bin/next", "start"], { ACREDITA_MODE: "demo" });
    assert.equal(code, 1, output);
    assert.match(output, /DATABASE_URL: the database holds 1 user besides the demo users: demo mode never serves a real database/);
  });
});

describe("servers refuse to start on an unsafe configuration, naming every variable and no value", () => {
  // npm start's and npm run receiver's refusals are tests/unit/start-refusals.test.ts (their main, in process).
  test("a bare `next start` with a demo Stripe secret refuses too, before serving anything", async () => {
    const { code, output } = await refusal(["node_modules/next/dist/bin/next", "start"], { AUTH_SECRET, STRIPE_WEBHOOK_SECRET: DEMO_ENDPOINT_SECRETS.STRIPE_WEBHOOK_SECRET });
    assert.equal(code, 1, output);
    assert.match(output, /STRIPE_WEBHOOK_SECRET: is a public demo value/);
    assert.ok(!output.includes(DEMO_ENDPOINT_SECRETS.STRIPE_WEBHOOK_SECRET));
  });
});

describe("every idempotency and money key is scoped by provider, account and live/test", () => {
  test("a test-secret holder cannot store a live event id first: the real live event still credits", async () => {
    // Signed with the TEST endpoint's secret, claiming livemode: true and the live order.
    const poison = stripeEvent("evt_h_poison", "payment_intent.succeeded", paymentIntent({ id: "pi_h_poison", orderId: "ord_h_poison", amount: 4200, currency: "usd" }), { livemode: true });
    const first = await postStripe("stripe-test", poison, STRIPE_TEST_SECRET);
    assert.deepEqual([first.status, first.json.outcome], [200, "ignored"]);
    const stored = await (await db()).webhookEvent.findMany({ where: { eventId: "evt_h_poison" }, select: { endpoint: true, livemode: true, status: true } });
    assert.deepEqual(stored, [{ endpoint: "stripe-test", livemode: false, status: "ignored" }]);
    assert.deepEqual([(await order("ord_h_poison")).status, (await order("ord_h_poison")).credited], ["created", 0]);

    const real = await postStripe("stripe", poison, STRIPE_SECRET);
    assert.deepEqual([real.status, real.json.outcome], [200, "applied"]);
    const paid = await order("ord_h_poison");
    assert.deepEqual([paid.status, paid.credited, paid.ledger.map((entry) => entry.businessKey)], ["paid", 4200, [`credit:stripe:${STRIPE_ACCOUNT}:live:pi_h_poison`]]);
    assert.equal(await (await db()).webhookEvent.count({ where: { eventId: "evt_h_poison" } }), 2);
  });

  test("a lab refund naming a Stripe payment id cannot refund the Stripe-paid order", async () => {
    const paid = await postStripe("stripe", stripeEvent("evt_h_stripe_pay", "payment_intent.succeeded", paymentIntent({ id: "pi_h_shared", orderId: "ord_h_stripe", amount: 9900, currency: "usd" })), STRIPE_SECRET);
    assert.deepEqual([paid.status, paid.json.outcome], [200, "applied"]);
    const refund = await postLab("evt_h_lab_refund", "payment.refunded", "ord_h_stripe", "pi_h_shared", 9900, "USD");
    assert.equal(refund.status, 409);
    assert.equal(refund.json.outcome, "dead_lettered");
    const after = await order("ord_h_stripe");
    assert.deepEqual([after.status, after.credited, after.refunded, after.ledger.map((entry) => [entry.businessKey, entry.amount])], ["paid", 9900, 0, [[`credit:stripe:${STRIPE_ACCOUNT}:live:pi_h_shared`, 9900]]]);
  });

  test("a lab credit on a future Stripe payment id cannot turn the real Stripe payment into a duplicate", async () => {
    const lab = await postLab("evt_h_lab_future", "payment.approved", "ord_h_lab", "pi_h_future", 1500, "USD");
    assert.deepEqual([lab.status, lab.json.outcome], [200, "applied"]);
    const real = await postStripe("stripe", stripeEvent("evt_h_stripe_future", "payment_intent.succeeded", paymentIntent({ id: "pi_h_future", orderId: "ord_h_stripe2", amount: 3100, currency: "usd" })), STRIPE_SECRET);
    assert.deepEqual([real.status, real.json.outcome], [200, "applied"]);
    const [labOrder, stripeOrder] = [await order("ord_h_lab"), await order("ord_h_stripe2")];
    assert.deepEqual([labOrder.status, labOrder.credited, labOrder.ledger.map((entry) => entry.businessKey)], ["paid", 1500, ["credit:lab:lab:live:pi_h_future"]]);
    assert.deepEqual([stripeOrder.status, stripeOrder.credited, stripeOrder.ledger.map((entry) => entry.businessKey)], ["paid", 3100, [`credit:stripe:${STRIPE_ACCOUNT}:live:pi_h_future`]]);
  });
});

describe("a payment without the amount its provider always signs is never credited at the order's price", () => {
  test("a Stripe Checkout Session without amount_total is a dead letter (422), nothing credited", async () => {
    const session = checkoutSession({ id: "cs_h_noamount", paymentIntent: "pi_h_noamount", clientReferenceId: "ord_h_noamount", amount: 7000, currency: "usd" });
    delete session.amount_total;
    const result = await postStripe("stripe", stripeEvent("evt_h_noamount", "checkout.session.completed", session), STRIPE_SECRET);
    assert.deepEqual([result.status, result.json.outcome], [422, "dead_lettered"]);
    assert.match(result.json.reason, /carries no amount/);
    const intent = paymentIntent({ id: "pi_h_noamount", orderId: "ord_h_noamount", amount: 7000, currency: "usd" });
    delete intent.amount_received;
    const viaIntent = await postStripe("stripe", stripeEvent("evt_h_noamount_pi", "payment_intent.succeeded", intent), STRIPE_SECRET);
    assert.deepEqual([viaIntent.status, viaIntent.json.outcome], [422, "dead_lettered"]);
    assert.deepEqual([(await order("ord_h_noamount")).status, (await order("ord_h_noamount")).credited], ["created", 0]);
    assert.deepEqual(await counts("ord_h_noamount"), { ledger: 0, deadLetters: [{ category: "amount_missing", status: "open" }, { category: "amount_missing", status: "open" }] });
  });

  test("a Standard Webhooks payment without its mapped amount is a dead letter (422), nothing credited", async () => {
    const body = JSON.stringify({ type: "payment.succeeded", timestamp: "2026-11-29T12:00:00Z", data: { payment_id: "pay_h_sw", order_id: "ord_h_sw" } });
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = new Webhook(SW_SECRET).sign("msg_h_sw", new Date(timestamp * 1000), body);
    const result = await post("/api/webhooks/standard-webhooks", body, { "webhook-id": "msg_h_sw", "webhook-timestamp": String(timestamp), "webhook-signature": signature });
    assert.deepEqual([result.status, result.json.outcome], [422, "dead_lettered"]);
    assert.deepEqual([(await order("ord_h_sw")).status, (await order("ord_h_sw")).credited], ["created", 0]);
    assert.deepEqual(await counts("ord_h_sw"), { ledger: 0, deadLetters: [{ category: "amount_missing", status: "open" }] });
  });
});
