// The three providers against the BUILT app over real HTTP in demo mode, with the demo endpoints' public
// secrets (no provider secret set in the server's environment): what a fresh `npm run demo` receives.
import assert from "node:assert/strict";
import { request } from "node:http";
import { after, before, describe, test } from "node:test";
import { Webhook } from "standardwebhooks";
import Stripe from "stripe";
import { DEMO_ENDPOINT_SECRETS } from "@/lib/endpoints/endpoints";
import { hmacSha256 } from "@/lib/providers/signatures/hmac";
import { waitFor } from "../support/real-server";
import { startServer, type RunningServer } from "../support/server";

const TOKEN = "providers-server-token-01";
const stripe = new Stripe("sk_test_dummy");
let server: RunningServer;

/** A raw HTTP/1.1 POST through node:http, so header names go on the wire exactly as written. */
function post(path: string, body: string, headers: Record<string, string>): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { method: "POST", headers: { "Content-Type": "application/json", "Content-Length": String(Buffer.byteLength(body)), ...headers } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function order(id: string): Promise<{ status: string; credited: number }> {
  const response = await fetch(`${server.url}/api/orders/${id}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  return response.json();
}

/** Inbox mode (the providers' default): the 200 means "stored"; the server's own worker applies it. */
function applied(id: string): Promise<{ status: string; credited: number }> {
  return waitFor(`order ${id} to be paid by the in-process worker`, async () => {
    const current = await order(id);
    return current.status === "paid" ? current : undefined;
  });
}

before(async () => {
  // Empty values fall back to the demo secrets, whatever the test runner's own environment holds.
  const unset = Object.fromEntries(["STRIPE_WEBHOOK_SECRET", "YOLFI_WEBHOOK_SECRET", "YOLFI_ORG_ID", "STANDARD_WEBHOOKS_SECRET"].map((name) => [name, ""]));
  server = await startServer({ ACREDITA_MODE: "demo", API_TOKEN: TOKEN, ...unset });
  for (const [id, amount, currency] of [["ord_rs_stripe", 12000, "USD"], ["ord_rs_yolfi", 5000, "USD"], ["ord_rs_sw", 4500, "EUR"]] as const) {
    const response = await post("/api/orders", JSON.stringify({ id, amount, currency }), { Authorization: `Bearer ${TOKEN}` });
    assert.equal(response.status, 201, id);
  }
});
after(() => server.stop());

describe("the demo endpoints over real HTTP", () => {
  test("stripe: a 900 KB pretty-printed event signed with the demo secret, header in upper case, credits once", async () => {
    const event = {
      id: "evt_rs_stripe",
      object: "event",
      type: "payment_intent.succeeded",
      livemode: true,
      created: 1764400000,
      data: { object: { id: "pi_rs", object: "payment_intent", amount: 12000, amount_received: 12000, currency: "usd", metadata: { order_id: "ord_rs_stripe" }, description: "z".repeat(900 * 1024) } },
    };
    const body = JSON.stringify(event, null, 2);
    assert.ok(Buffer.byteLength(body) > 900 * 1024);
    const header = stripe.webhooks.generateTestHeaderString({ payload: body, secret: DEMO_ENDPOINT_SECRETS.STRIPE_WEBHOOK_SECRET });
    const first = await post("/api/webhooks/stripe", body, { "STRIPE-SIGNATURE": header });
    assert.deepEqual([first.status, first.json], [200, { outcome: "accepted", reason: "event evt_rs_stripe stored in the inbox; a worker applies it" }]);
    assert.deepEqual(await applied("ord_rs_stripe").then((o) => [o.status, o.credited]), ["paid", 12000]);
    const again = await post("/api/webhooks/stripe", body, { "stripe-signature": header });
    assert.deepEqual([again.status, again.json], [200, { outcome: "duplicate", reason: "event evt_rs_stripe already stored (status processed); nothing changed" }]);
    assert.deepEqual(await order("ord_rs_stripe").then((o) => [o.status, o.credited]), ["paid", 12000]);
  });

  test("yolfi: payment.confirmed signed with the demo secret credits the order's price; a forged one is 401", async () => {
    const body = JSON.stringify({ id: "evt_rs_yolfi", type: "payment.confirmed", orgId: "org_acredita_demo", livemode: true, createdAt: "2026-11-29T12:00:00Z", data: { paymentId: "ypay_rs", merchantOrderId: "ord_rs_yolfi", amount: "49.90", token: "USDC" } });
    const forged = await post("/api/webhooks/yolfi", body, { "x-yolfi-signature": hmacSha256("not-the-secret", body).toString("base64") });
    assert.deepEqual([forged.status, forged.json.reason], [401, "signature does not match any configured signing secret"]);
    const signature = hmacSha256(DEMO_ENDPOINT_SECRETS.YOLFI_WEBHOOK_SECRET, body).toString("base64");
    const result = await post("/api/webhooks/yolfi", body, { "X-Yolfi-Signature": signature, "X-Yolfi-Event-ID": "evt_rs_yolfi" });
    assert.deepEqual([result.status, result.json], [200, { outcome: "accepted", reason: "event evt_rs_yolfi stored in the inbox; a worker applies it" }]);
    assert.deepEqual(await applied("ord_rs_yolfi").then((o) => [o.status, o.credited]), ["paid", 5000]);
  });

  test("standard-webhooks: signed by the standardwebhooks package with the demo secret, mixed-case headers", async () => {
    const body = JSON.stringify({ type: "payment.succeeded", timestamp: "2026-11-29T12:00:00Z", data: { payment_id: "pay_rs_sw", order_id: "ord_rs_sw", amount: 4500, currency: "EUR" } });
    const now = new Date();
    const signature = new Webhook(DEMO_ENDPOINT_SECRETS.STANDARD_WEBHOOKS_SECRET).sign("msg_rs_sw", now, body);
    const result = await post("/api/webhooks/standard-webhooks", body, { "Webhook-Id": "msg_rs_sw", "WEBHOOK-TIMESTAMP": String(Math.floor(now.getTime() / 1000)), "webhook-Signature": signature });
    assert.deepEqual([result.status, result.json], [200, { outcome: "accepted", reason: "event msg_rs_sw stored in the inbox; a worker applies it" }]);
    assert.deepEqual(await applied("ord_rs_sw").then((o) => [o.status, o.credited]), ["paid", 4500]);
  });
});
