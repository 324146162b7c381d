// slow-test: starts the built server and the dedicated receiver process, and waits for the in-process worker
// Endpoints stored as data, as an operator and a provider meet them over real HTTP: the operator creates
// one endpoint of each provider on the BUILT server (`next start`), each provider's signed payment is
// credited (inline, or stored and applied by the server's in-process worker); the dedicated receiver
// (`npm run receiver`) serves the same endpoints; a disable, a rotation and a delete made on the server
// hold at the receiver without a restart (503 with Retry-After, the old secret refused, 404). Then a search
// for every secret value, raw, base64 and hex, in the database file and its WAL (every row on PostgreSQL),
// the log file, both processes' output and every API answer but the one handing a generated secret over.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";
import { checkoutSession, standardWebhooksHeaders, stripeEvent, stripeHeader, yolfiEvent, yolfiSignature } from "../support/providers";
import { baseEnv, E2E_API_TOKEN, ensureBuilt, newDatabase, startReceiver, startServer, waitFor, type Child } from "../support/real-server";
import { storedText } from "../support/test-database";

const database = newDatabase();
const logFile = path.join(mkdtempSync(path.join(tmpdir(), "acredita-data-endpoints-")), "server.log");
const STRIPE_SECRET = "whsec_http_data_endpoint_0001";
const STRIPE_NEXT = "whsec_http_data_endpoint_0002";
const YOLFI_SECRET = "yolfi_http_data_endpoint_0001";
const STRIPE_ACCOUNT = "acct_httpdataendpoint";
const YOLFI_ORG = "org_http_data_endpoint";

let server: { child: Child; url: string };
let receiver: { child: Child; url: string };
/** Every secret value (supplied or generated). */
const secretValues: string[] = [STRIPE_SECRET, STRIPE_NEXT, YOLFI_SECRET];
/** Every API answer that must not hold a secret. */
const answers: string[] = [];
const ids: Record<"stripe" | "yolfi" | "sw" | "lab", string> = { stripe: "", yolfi: "", sw: "", lab: "" };
const generated: Record<"sw" | "lab", string> = { sw: "", lab: "" };

const json = { "content-type": "application/json", connection: "close" };
const operator = { ...json, authorization: `Bearer ${E2E_API_TOKEN}` };

/** A call to the server's API as the operator; the answer's body is kept for the search unless it hands a generated secret over. */
async function api(method: string, route: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  // Bounded: a server that stopped answering fails the test instead of holding the run.
  const response = await fetch(`${server.url}${route}`, { method, headers: operator, signal: AbortSignal.timeout(30_000), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await response.text();
  const parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  if (typeof parsed.secret === "string") secretValues.push(parsed.secret);
  else answers.push(text);
  return { status: response.status, json: parsed, headers: response.headers };
}

/** Posts a delivery to `/api/webhooks/<id>` of `base` (the server or the receiver). */
async function post(base: string, id: string, body: string, headers: Record<string, string>): Promise<{ status: number; json: Record<string, unknown>; retryAfter: string | null }> {
  const response = await fetch(`${base}/api/webhooks/${id}`, { method: "POST", body, headers: { ...json, ...headers }, signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  answers.push(text);
  return { status: response.status, json: JSON.parse(text), retryAfter: response.headers.get("retry-after") };
}

const labBody = (eventId: string, orderId: string, amount: number) => JSON.stringify({ id: eventId, type: "payment.approved", created: 1760181330, data: { payment_id: `pay_${eventId}`, order_id: orderId, amount, currency: "ARS" } });
const labSigned = (secret: string, body: string) => ({ "Lab-Signature": signTimestamped(secret, Math.floor(Date.now() / 1000), body) });

async function credited(orderId: string): Promise<number> {
  const order = await api("GET", `/api/orders/${orderId}`);
  return order.json.credited as number;
}

before(async () => {
  ensureBuilt();
  const env = baseEnv(database.url, { ACREDITA_SECRETS_KEY: randomBytes(32).toString("base64"), LOG_FILE: logFile, LOG_LEVEL: "info" });
  server = await startServer(env);
  receiver = await startReceiver(env);
  for (const [id, amount, currency] of [["ord_hd_stripe", 2500, "USD"], ["ord_hd_yolfi", 3100, "USD"], ["ord_hd_sw", 4500, "EUR"], ["ord_hd_lab", 1500, "ARS"], ["ord_hd_recv", 1600, "ARS"], ["ord_hd_rot", 1700, "ARS"]] as const) {
    assert.equal((await api("POST", "/api/orders", { id, amount, currency })).status, 201, id);
  }
});
after(async () => {
  await receiver?.child.kill("SIGKILL");
  await server?.child.kill("SIGKILL");
});

describe("endpoints as data over HTTP", () => {
  test("the operator creates one endpoint of each provider; a secret Acredita generates is in the creating answer only", async () => {
    const stripe = await api("POST", "/api/endpoints", { provider: "stripe", account: STRIPE_ACCOUNT, livemode: true, processingMode: "inline", secret: STRIPE_SECRET });
    const yolfi = await api("POST", "/api/endpoints", { provider: "yolfi", account: YOLFI_ORG, livemode: true, secret: YOLFI_SECRET });
    const sw = await api("POST", "/api/endpoints", { provider: "standard-webhooks", account: "sw-http-sender", livemode: true, processingMode: "inline" });
    const lab = await api("POST", "/api/endpoints", { provider: "lab", account: "lab-http", livemode: true, processingMode: "inbox" });
    assert.deepEqual([stripe.status, yolfi.status, sw.status, lab.status], [201, 201, 201, 201]);
    assert.deepEqual([stripe.json.processingMode, yolfi.json.processingMode, sw.json.processingMode, lab.json.processingMode], ["inline", "inbox", "inline", "inbox"]);
    assert.deepEqual(["secret" in stripe.json, "secret" in yolfi.json], [false, false]);
    assert.equal(stripe.headers.get("cache-control"), "no-store");
    Object.assign(ids, { stripe: stripe.json.id, yolfi: yolfi.json.id, sw: sw.json.id, lab: lab.json.id });
    Object.assign(generated, { sw: sw.json.secret, lab: lab.json.secret });
    assert.match(generated.sw, /^whsec_[A-Za-z0-9+/]{32}$/);
    assert.match(generated.lab, /^[0-9a-f]{64}$/);
    const list = await api("GET", "/api/endpoints");
    assert.deepEqual([list.status, list.json.count], [200, 4]);
  });

  test("each provider's signed payment is credited once: Stripe and Standard Webhooks inline, Yolfi and the lab by the in-process worker", async () => {
    const session = JSON.stringify(stripeEvent("evt_hd_stripe", "checkout.session.completed", checkoutSession({ id: "cs_hd", paymentIntent: "pi_hd", clientReferenceId: "ord_hd_stripe", amount: 2500, currency: "usd" })));
    const stripe = await post(server.url, ids.stripe, session, { "Stripe-Signature": stripeHeader(session, STRIPE_SECRET) });
    assert.deepEqual([stripe.status, stripe.json.outcome], [200, "applied"]);
    const swBody = JSON.stringify({ type: "payment.succeeded", timestamp: "2026-12-01T12:00:00Z", data: { payment_id: "swpay_hd", order_id: "ord_hd_sw", amount: 4500, currency: "EUR" } });
    const sw = await post(server.url, ids.sw, swBody, standardWebhooksHeaders("msg_hd_sw", swBody, generated.sw));
    assert.deepEqual([sw.status, sw.json.outcome], [200, "applied"]);
    const yolfiBody = yolfiEvent({ id: "evt_hd_yolfi", type: "payment.confirmed", orgId: YOLFI_ORG, data: { paymentId: "ypay_hd", merchantOrderId: "ord_hd_yolfi" } });
    const yolfi = await post(server.url, ids.yolfi, yolfiBody, { "X-Yolfi-Signature": yolfiSignature(yolfiBody, YOLFI_SECRET), "X-Yolfi-Event-ID": "evt_hd_yolfi" });
    assert.deepEqual([yolfi.status, yolfi.json.outcome], [200, "accepted"]);
    const labPayment = labBody("evt_hd_lab", "ord_hd_lab", 1500);
    const lab = await post(server.url, ids.lab, labPayment, labSigned(generated.lab, labPayment));
    assert.deepEqual([lab.status, lab.json.outcome], [200, "accepted"]);
    await waitFor("the worker's credits", async () => (await credited("ord_hd_yolfi")) === 3100 && (await credited("ord_hd_lab")) === 1500);
    assert.deepEqual([await credited("ord_hd_stripe"), await credited("ord_hd_sw"), await credited("ord_hd_yolfi"), await credited("ord_hd_lab")], [2500, 4500, 3100, 1500]);
  });

  test("the dedicated receiver serves the same endpoints: a lab delivery stored there is credited by the server's worker", async () => {
    const body = labBody("evt_hd_recv", "ord_hd_recv", 1600);
    const stored = await post(receiver.url, ids.lab, body, labSigned(generated.lab, body));
    assert.deepEqual([stored.status, stored.json.outcome], [200, "accepted"]);
    await waitFor("the receiver's event credited", async () => (await credited("ord_hd_recv")) === 1600);
  });

  test("a rotation made on the server holds at the receiver: with overlap 0 the old secret is refused 401, the new one verifies", async () => {
    const rotated = await api("POST", `/api/endpoints/${ids.lab}/secrets`, { overlapSeconds: 0 });
    assert.deepEqual([rotated.status, rotated.json.label], [201, "secret-2"]);
    const previous = generated.lab;
    const next = rotated.json.secret as string;
    generated.lab = next;
    const body = labBody("evt_hd_rot", "ord_hd_rot", 1700);
    // Probed with a signed body that is not an event (refused after the signature, 4xx, nothing stored), until the receiver's copy follows.
    const probe = JSON.stringify({ probe: true });
    await waitFor("the receiver refusing the old secret", async () => (await post(receiver.url, ids.lab, probe, labSigned(previous, probe))).status === 401);
    const fresh = await post(receiver.url, ids.lab, body, labSigned(next, body));
    assert.deepEqual([fresh.status, fresh.json.outcome], [200, "accepted"]);
    await waitFor("the rotated secret's event credited", async () => (await credited("ord_hd_rot")) === 1700);
  });

  test("disabled on the server: both processes answer 503 with Retry-After; enabled again, accepted; deleted: 404 on both, history kept", async () => {
    const body = labBody("evt_hd_off", "ord_hd_rot", 1700);
    const secret = generated.lab;
    assert.equal((await api("PATCH", `/api/endpoints/${ids.lab}`, { status: "disabled" })).status, 200);
    for (const base of [server.url, receiver.url]) {
      const refused = await waitFor(`503 at ${base}`, async () => {
        const answer = await post(base, ids.lab, body, labSigned(secret, body));
        return answer.status === 503 ? answer : undefined;
      });
      assert.deepEqual([refused.retryAfter, refused.json], ["600", { outcome: "rejected", reason: "endpoint disabled; deliveries are refused until it is enabled again, retry later" }]);
    }
    assert.equal((await api("PATCH", `/api/endpoints/${ids.lab}`, { status: "enabled" })).status, 200);
    await waitFor("enabled at the receiver", async () => (await post(receiver.url, ids.lab, body, labSigned(secret, body))).status === 200);

    assert.equal((await api("DELETE", `/api/endpoints/${ids.lab}`)).status, 204);
    for (const base of [server.url, receiver.url]) {
      const gone = await waitFor(`404 at ${base}`, async () => {
        const answer = await post(base, ids.lab, body, labSigned(secret, body));
        return answer.status === 404 ? answer : undefined;
      });
      assert.deepEqual(gone.json, { outcome: "rejected", reason: "unknown webhook endpoint" });
    }
    assert.equal((await api("GET", `/api/endpoints/${ids.lab}`)).status, 404);
    assert.equal(await credited("ord_hd_lab"), 1500);
  });

  test("no secret value, raw, base64 or hex, in the database file and WAL (every row on PostgreSQL), the log, either process's output, or an API answer", async () => {
    const spellings = (value: string) => [value, Buffer.from(value).toString("base64"), Buffer.from(value).toString("hex"), ...(value.startsWith("whsec_") ? [Buffer.from(value.slice(6), "base64").toString("hex")] : [])];
    const needles = secretValues.flatMap(spellings);
    assert.ok(secretValues.length >= 6, `${secretValues.length} secrets`);
    const stored = await storedText(database);
    assert.ok(stored.includes("acs1:"), "the ciphertexts are there");
    const log = existsSync(logFile) ? readFileSync(logFile, "utf8") : "";
    assert.ok(log.includes('"msg":"decision"'), "the log has the decisions");
    const outputs = server.child.output.join("") + receiver.child.output.join("");
    for (const needle of needles) {
      assert.equal(stored.includes(needle), false, `database (${needle.length} chars)`);
      assert.equal(log.includes(needle), false, `log (${needle.length} chars)`);
      assert.equal(outputs.includes(needle), false, `process output (${needle.length} chars)`);
      assert.equal(answers.some((answer) => answer.includes(needle)), false, `an API answer (${needle.length} chars)`);
    }
  });
});
