import { TEST_DB } from "@/e2e/support/test-env";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { Webhook } from "standardwebhooks";
import { closeDb, db } from "@/lib/db/client";
import { createOrder, deliver, readOrder, sentSignatures } from "@/e2e/support/http";
import { decisionsOf, lastDecision, nowSeconds, standardWebhooksHeaders } from "@/e2e/support/providers";
import { storedText } from "@/e2e/support/test-database";

// These tests read the inline answer (apply before answering); inbox mode, the default for this
// endpoint, stores first and applies with the same apply step (tests/integration/inbox-mode.test.ts).
process.env.WEBHOOK_PROCESSING_MODE = "inline";

const SECRET = `whsec_${Buffer.from("standard-webhooks-test-key-0001").toString("base64")}`;
const NEXT_SECRET = `whsec_${Buffer.from("standard-webhooks-test-key-0002").toString("base64")}`;
const RETIRED = `whsec_${Buffer.from("standard-webhooks-test-key-0000").toString("base64")}`;
process.env.STANDARD_WEBHOOKS_SECRET = SECRET;
process.env.STANDARD_WEBHOOKS_RETIRED_SECRETS = RETIRED;
process.env.STANDARD_WEBHOOKS_ACCOUNT = "sw-shop-tests";

const FIXED_NOW = 1_764_400_000;

/** The sender's own payload, in the shape the demo endpoint's field mapping reads. */
function payload(type: string, data: Record<string, unknown>): string {
  return JSON.stringify({ type, timestamp: "2026-11-29T12:00:00Z", data });
}

function send(id: string, body: string, options: { secret?: string; timestamp?: number } = {}) {
  return deliver("standard-webhooks", body, standardWebhooksHeaders(id, body, options.secret ?? SECRET, options.timestamp));
}

async function stored(eventId: string) {
  return (await db()).webhookEvent.findMany({ where: { provider: "standard-webhooks", eventId }, select: { livemode: true, status: true, secretLabel: true, orderId: true } });
}

before(async () => {
  const orders: [string, number, string][] = [
    ["ord_sw_paid", 4500, "EUR"],
    ["ord_sw_refund", 1000, "EUR"],
    ["ord_sw_amount", 4500, "EUR"],
    ["ord_sw_big", 100, "EUR"],
    ["ord_sw_failed", 700, "EUR"],
    ["ord_sw_test", 600, "EUR"],
    ["ord_sw_noamount", 800, "EUR"],
    ["ord_sw_half", 900, "EUR"],
  ];
  for (const [id, amount, currency] of orders) assert.equal((await createOrder(id, amount, currency)).status, 201, id);
});
after(closeDb);

describe("Standard Webhooks signatures", () => {
  test("a delivery signed by the standardwebhooks package is accepted; webhook-id is the event id", async () => {
    const body = payload("payment.succeeded", { payment_id: "pay_sw_1", order_id: "ord_sw_paid", amount: 4500, currency: "eur" });
    const result = await send("msg_sw_paid", body);
    assert.deepEqual([result.status, result.json], [200, { outcome: "applied", reason: "credited 4500 EUR; order ord_sw_paid created -> paid" }]);
    assert.deepEqual(await stored("msg_sw_paid"), [{ livemode: true, status: "processed", secretLabel: "STANDARD_WEBHOOKS_SECRET[0]", orderId: "ord_sw_paid" }]);
    const again = await send("msg_sw_paid", body, { timestamp: nowSeconds() + 2 });
    assert.deepEqual([again.status, again.json], [200, { outcome: "duplicate", reason: "event msg_sw_paid already stored (status processed); nothing changed" }]);
    const order = await readOrder("ord_sw_paid");
    assert.deepEqual([order.status, order.credited, order.ledger.map((entry) => entry.businessKey)], ["paid", 4500, ["credit:standard-webhooks:sw-shop-tests:live:pay_sw_1"]]);
  });

  test("our own verifier's answer agrees with the reference library on the same headers", async () => {
    const body = payload("customer.updated", {});
    const headers = standardWebhooksHeaders("msg_sw_oracle", body, SECRET);
    assert.deepEqual(new Webhook(SECRET).verify(body, headers), JSON.parse(body));
    const result = await deliver("standard-webhooks", body, headers);
    assert.deepEqual([result.status, result.json], [200, { outcome: "ignored", reason: "event type customer.updated is not mapped on this endpoint: stored, nothing changed" }]);
  });

  test("a pretty-printed body and header names in lower, upper and mixed case are accepted", async () => {
    const pretty = JSON.stringify(JSON.parse(payload("customer.updated", {})), null, 2);
    const prettyResult = await send("msg_sw_pretty", pretty);
    assert.deepEqual([prettyResult.status, prettyResult.json.outcome], [200, "ignored"]);
    const transforms: [string, (name: string) => string][] = [["lower", (name) => name.toLowerCase()], ["upper", (name) => name.toUpperCase()], ["mixed", (name) => name.replace(/[aeiou]/g, (c) => c.toUpperCase())]];
    for (const [label, transform] of transforms) {
      const body = payload("customer.updated", {});
      const headers = Object.fromEntries(Object.entries(standardWebhooksHeaders(`msg_sw_case_${label}`, body, SECRET)).map(([name, value]) => [transform(name), value]));
      const result = await deliver("standard-webhooks", body, headers);
      assert.deepEqual([label, result.status, result.json.outcome], [label, 200, "ignored"]);
    }
  });

  test("timestamps: now-299 and now+299 pass; now-301, now+301, non-numeric and absent are 401", async (t) => {
    t.mock.timers.enable({ apis: ["Date"], now: FIXED_NOW * 1000 });
    const body = payload("customer.updated", {});
    const cases: [string, number, number, string][] = [
      ["msg_ts_m299", FIXED_NOW - 299, 200, "event type customer.updated is not mapped on this endpoint: stored, nothing changed"],
      ["msg_ts_p299", FIXED_NOW + 299, 200, "event type customer.updated is not mapped on this endpoint: stored, nothing changed"],
      ["msg_ts_m301", FIXED_NOW - 301, 401, "timestamp outside tolerance: 301 s (max 300)"],
      ["msg_ts_p301", FIXED_NOW + 301, 401, "timestamp outside tolerance: 301 s (max 300)"],
    ];
    for (const [id, timestamp, status, reason] of cases) {
      const result = await send(id, body, { timestamp });
      assert.deepEqual([id, result.status, result.json.reason], [id, status, reason]);
    }
    assert.equal(
      (await decisionsOf("msg_ts_m301"))[0].diagnosis,
      "signature is valid (STANDARD_WEBHOOKS_SECRET[0]) but its timestamp is 301 s in the past: a replay of an old delivery, or the sender's clock is 301 s behind",
    );
    const headers = standardWebhooksHeaders("msg_ts_bad", body, SECRET, FIXED_NOW);
    const nonNumeric = await deliver("standard-webhooks", body, { ...headers, "webhook-timestamp": "yesterday" });
    assert.deepEqual([nonNumeric.status, nonNumeric.json.reason], [401, "malformed webhook-timestamp header: not a number of unix seconds"]);
    const { "webhook-timestamp": _absent, ...withoutTimestamp } = headers;
    const absent = await deliver("standard-webhooks", body, withoutTimestamp);
    assert.deepEqual([absent.status, absent.json.reason], [401, "missing webhook-timestamp header"]);
    const { "webhook-id": _id, ...withoutId } = headers;
    const noId = await deliver("standard-webhooks", body, withoutId);
    assert.deepEqual([noId.status, noId.json.reason], [401, "missing webhook-id header"]);
    const noV1 = await deliver("standard-webhooks", body, { ...headers, "webhook-signature": headers["webhook-signature"].replace("v1,", "v1a,") });
    assert.deepEqual([noV1.status, noV1.json.reason], [401, "malformed webhook-signature header: no v1,<base64> signature"]);
    assert.deepEqual(await stored("msg_ts_bad"), []);
  });

  test("rotation: two v1 signatures in either order, and the second configured secret, are accepted and labelled", async () => {
    const body = payload("customer.updated", {});
    for (const order of ["current-first", "other-first"] as const) {
      const id = `msg_rot_${order}`;
      const ours = standardWebhooksHeaders(id, body, SECRET);
      const other = standardWebhooksHeaders(id, body, NEXT_SECRET, Number(ours["webhook-timestamp"]))["webhook-signature"];
      const signature = order === "current-first" ? `${ours["webhook-signature"]} ${other}` : `${other} ${ours["webhook-signature"]}`;
      const result = await deliver("standard-webhooks", body, { ...ours, "webhook-signature": signature });
      assert.deepEqual([order, result.status, result.json.outcome], [order, 200, "ignored"]);
      assert.equal((await decisionsOf(id))[0].secretLabel, "STANDARD_WEBHOOKS_SECRET[0]");
    }
    process.env.STANDARD_WEBHOOKS_SECRET = `${SECRET},${NEXT_SECRET}`;
    try {
      const result = await send("msg_rot_next", body, { secret: NEXT_SECRET });
      assert.deepEqual([result.status, result.json.outcome], [200, "ignored"]);
      assert.deepEqual((await stored("msg_rot_next")).map((row) => row.secretLabel), ["STANDARD_WEBHOOKS_SECRET[1]"]);
    } finally {
      process.env.STANDARD_WEBHOOKS_SECRET = SECRET;
    }
  });

  test("a 900 KB signed payload is accepted", async () => {
    const body = payload("payment.succeeded", { payment_id: "pay_sw_big", order_id: "ord_sw_big", amount: 100, currency: "EUR", note: "y".repeat(900 * 1024) });
    assert.ok(Buffer.byteLength(body) > 900 * 1024);
    const result = await send("msg_sw_big", body);
    assert.deepEqual([result.status, result.json.reason], [200, "credited 100 EUR; order ord_sw_big created -> paid"]);
  });

  test("rejections are diagnosed: retired secret, re-serialised body, hex instead of base64; a forged one is not", async () => {
    const body = payload("customer.updated", {});
    await send("msg_diag_retired", body, { secret: RETIRED });
    const headers = standardWebhooksHeaders("msg_diag_json", body, SECRET);
    await deliver("standard-webhooks", JSON.stringify(JSON.parse(body), null, 2), headers);
    const hexHeaders = standardWebhooksHeaders("msg_diag_hex", body, SECRET);
    const hex = Buffer.from(hexHeaders["webhook-signature"].slice(3), "base64").toString("hex");
    await deliver("standard-webhooks", body, { ...hexHeaders, "webhook-signature": `v1,${hex}` });
    await send("msg_diag_forged", body, { secret: `whsec_${Buffer.from("attacker").toString("base64")}` });
    const rows = await Promise.all(["msg_diag_retired", "msg_diag_json", "msg_diag_hex", "msg_diag_forged"].map(async (id) => (await decisionsOf(id)).map((row) => [row.verified, row.httpStatus, row.diagnosis])));
    assert.deepEqual(rows, [
      [[false, 401, "signed with a retired secret (STANDARD_WEBHOOKS_RETIRED_SECRETS[0]): the sender still signs with a secret this endpoint no longer accepts; give the sender the current secret"]],
      [[false, 401, "signature matches STANDARD_WEBHOOKS_SECRET[0] over compact JSON (JSON.stringify of the parsed body), not over the bytes received: the body was re-serialised between signing and delivery (a proxy or framework re-encoded the JSON, or the sender signed another serialisation)"]],
      [[false, 401, "signature is hex-encoded but this provider's signatures are base64: the MAC matches STANDARD_WEBHOOKS_SECRET[0], only its encoding is wrong"]],
      [[false, 401, null]],
    ]);
  });

  test("a secret that is not whsec_ base64 is a configuration error: 500, so the sender retries once it is fixed", async () => {
    process.env.STANDARD_WEBHOOKS_SECRET = "whsec_not base64 at all!";
    try {
      const result = await send("msg_misconfigured", payload("customer.updated", {}));
      assert.deepEqual([result.status, result.json], [500, { outcome: "rejected", reason: "endpoint misconfigured; see the server log" }]);
      const decision = await lastDecision("standard-webhooks");
      assert.deepEqual([decision.outcome, decision.httpStatus, decision.provider], ["rejected", 500, "unknown"]);
    } finally {
      process.env.STANDARD_WEBHOOKS_SECRET = SECRET;
    }
  });
});

describe("Standard Webhooks field mapping", () => {
  test("refund types map to the absolute refunded total: partial then full, replay counted once", async () => {
    await send("msg_rf_paid", payload("payment.succeeded", { payment_id: "pay_sw_rf", order_id: "ord_sw_refund", amount: 1000, currency: "EUR" }));
    const partialBody = payload("payment.refunded", { payment_id: "pay_sw_rf", order_id: "ord_sw_refund", amount_refunded: 250, currency: "EUR" });
    const partial = await send("msg_rf_partial", partialBody);
    assert.deepEqual([partial.status, partial.json.reason], [200, "refunded 250 EUR (total 250); order ord_sw_refund paid -> paid"]);
    const full = await send("msg_rf_full", payload("payment.refunded", { payment_id: "pay_sw_rf", order_id: "ord_sw_refund", amount_refunded: 1000, currency: "EUR" }));
    assert.deepEqual([full.status, full.json.reason], [200, "refunded 750 EUR (total 1000); order ord_sw_refund paid -> refunded"]);
    const replay = await send("msg_rf_partial", partialBody);
    assert.deepEqual([replay.status, replay.json.outcome], [200, "duplicate"]);
    const order = await readOrder("ord_sw_refund");
    assert.deepEqual([order.status, order.refunded, order.credited], ["refunded", 1000, 0]);
  });

  test("a failed payment is recorded and a later success still credits", async () => {
    const failed = await send("msg_pf", payload("payment.failed", { payment_id: "pay_sw_pf", order_id: "ord_sw_failed" }));
    assert.deepEqual([failed.status, failed.json], [200, { outcome: "ignored", reason: "payment failure of pay_sw_pf recorded; a later success still applies" }]);
    const ok = await send("msg_pf_ok", payload("payment.succeeded", { payment_id: "pay_sw_pf", order_id: "ord_sw_failed", amount: 700, currency: "EUR" }));
    assert.deepEqual([ok.status, ok.json.reason], [200, "credited 700 EUR; order ord_sw_failed created -> paid"]);
  });

  test("a mapped field missing or invalid in the payload is 422 and stores nothing", async () => {
    const missing = await send("msg_map_missing", payload("payment.succeeded", { payment_id: "pay_x", amount: 4500, currency: "EUR" }));
    assert.deepEqual([missing.status, missing.json], [422, { outcome: "rejected", reason: "invalid payment.succeeded event: orderId at $.data.order_id: missing" }]);
    const wrongType = await send("msg_map_amount", payload("payment.succeeded", { payment_id: "pay_x", order_id: "ord_sw_amount", amount: "45.00", currency: "EUR" }));
    assert.deepEqual([wrongType.status, wrongType.json.reason], [422, "invalid payment.succeeded event: amount at $.data.amount: Invalid input: expected number, received string"]);
    const noType = await send("msg_map_type", JSON.stringify({ data: {} }));
    assert.deepEqual([noType.status, noType.json.reason], [422, "invalid event: type at $.type: missing"]);
    assert.deepEqual(await stored("msg_map_missing"), []);
  });

  test("a different amount is a mismatch for review (422), never a credit", async () => {
    const result = await send("msg_amount", payload("payment.succeeded", { payment_id: "pay_sw_amount", order_id: "ord_sw_amount", amount: 4400, currency: "EUR" }));
    assert.deepEqual([result.status, result.json], [422, { outcome: "dead_lettered", reason: "amount mismatch for order ord_sw_amount: payment 4400, order 4500 (EUR minor units)" }]);
    assert.equal((await readOrder("ord_sw_amount")).credited, 0);
  });

  test("a mapped livemode false is a test event: stored in the endpoint's (live) scope, no effect on the live endpoint", async () => {
    const result = await send("msg_test_mode", payload("payment.succeeded", { payment_id: "pay_sw_test", order_id: "ord_sw_test", amount: 600, currency: "EUR", livemode: false }));
    assert.deepEqual([result.status, result.json], [200, { outcome: "ignored", reason: "test event on a live endpoint: stored, no effect" }]);
    assert.deepEqual((await stored("msg_test_mode")).map((row) => [row.livemode, row.status]), [[true, "ignored"]]);
    assert.equal((await readOrder("ord_sw_test")).credited, 0);
  });

  test("no Standard Webhooks secret or signature reaches the database file or the log", async () => {
    await closeDb();
    const haystack = `${await storedText(TEST_DB)}\n${existsSync(process.env.LOG_FILE!) ? readFileSync(process.env.LOG_FILE!, "latin1") : ""}`;
    assert.ok(sentSignatures.size >= 20, `signatures sent: ${sentSignatures.size}`);
    for (const needle of [SECRET, NEXT_SECRET, RETIRED, SECRET.slice(6), ...sentSignatures]) assert.equal(haystack.includes(needle), false, `found ${needle.slice(0, 8)}…`);
  });
});

describe("Standard Webhooks optional mapped fields", () => {
  test("a payment without its mapped amount and currency is a dead letter, never the order's price; a full refund needs no total", async () => {
    const missing = await send("msg_sw_noamount", payload("payment.succeeded", { payment_id: "pay_sw_noamount", order_id: "ord_sw_noamount" }));
    assert.deepEqual([missing.status, missing.json.outcome], [422, "dead_lettered"]);
    assert.equal(missing.json.reason, "payment pay_sw_noamount for order ord_sw_noamount carries no amount, though standard-webhooks always sends one: not credited at the order's price");
    assert.deepEqual([(await readOrder("ord_sw_noamount")).status, (await readOrder("ord_sw_noamount")).credited], ["created", 0]);
    assert.deepEqual(await (await db()).deadLetter.findMany({ where: { eventId: "msg_sw_noamount" }, select: { category: true, status: true } }), [{ category: "amount_missing", status: "open" }]);
    const paid = await send("msg_sw_withamount", payload("payment.succeeded", { payment_id: "pay_sw_noamount", order_id: "ord_sw_noamount", amount: 800, currency: "EUR" }));
    assert.deepEqual([paid.status, paid.json.outcome], [200, "applied"]);
    const refund = await send("msg_sw_noamount_r", payload("payment.refunded", { payment_id: "pay_sw_noamount", order_id: "ord_sw_noamount" }));
    assert.deepEqual([refund.status, refund.json.outcome], [200, "applied"]);
    const order = await readOrder("ord_sw_noamount");
    assert.deepEqual([order.status, order.credited, order.refunded], ["refunded", 0, 800]);
  });

  test("an amount without its currency is 422 naming the missing field, and credits nothing", async () => {
    const result = await send("msg_sw_half", payload("payment.succeeded", { payment_id: "pay_sw_half", order_id: "ord_sw_half", amount: 900 }));
    assert.equal(result.status, 422);
    assert.equal(result.json.reason.endsWith("currency at $.data.currency: missing (amount and currency come together)"), true, result.json.reason);
    assert.equal((await readOrder("ord_sw_half")).credited, 0);
  });
});
