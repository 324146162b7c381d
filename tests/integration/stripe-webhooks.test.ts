import { TEST_DB } from "@/e2e/support/test-env";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { closeDb, db } from "@/lib/db/client";
import { hmacSha256 } from "@/lib/providers/signatures/hmac";
import { createOrder, deliver, readOrder, sentSignatures } from "@/e2e/support/http";
import { charge, checkoutSession, decisionsOf, deliverStripe, paymentIntent, stripe, stripeEvent, stripeHeader } from "@/e2e/support/providers";
import { storedText } from "@/e2e/support/test-database";

// These tests read the inline answer (apply before answering); inbox mode, the default for this
// endpoint, stores first and applies with the same apply step (tests/integration/inbox-mode.test.ts).
process.env.WEBHOOK_PROCESSING_MODE = "inline";

const SECRET = "whsec_stripe_current_0001";
const NEXT_SECRET = "whsec_stripe_next_0002";
const RETIRED = "whsec_stripe_retired_0000";
const TEST_MODE_SECRET = "whsec_stripe_testmode_0001";
process.env.STRIPE_WEBHOOK_SECRET = SECRET;
process.env.STRIPE_WEBHOOK_RETIRED_SECRETS = RETIRED;
process.env.STRIPE_TEST_WEBHOOK_SECRET = TEST_MODE_SECRET;
// Production serves a Stripe endpoint only with the operator's own account set.
const ACCOUNT = "acct_stripe_tests";
process.env.STRIPE_ACCOUNT_ID = ACCOUNT;

/** Frozen receiver clock for the window tests (unix seconds). */
const FIXED_NOW = 1_764_400_000;

function unhandled(id: string): string {
  return JSON.stringify(stripeEvent(id, "customer.created", { id: `cus_${id}`, object: "customer" }));
}

async function storedEvent(eventId: string) {
  return (await db()).webhookEvent.findMany({ where: { provider: "stripe", eventId }, select: { livemode: true, status: true, secretLabel: true, account: true, orderId: true } });
}

async function onlyDecision(eventId: string) {
  const rows = await decisionsOf(eventId);
  assert.equal(rows.length, 1, `decisions of ${eventId}`);
  return rows[0];
}

before(async () => {
  const orders: [string, number, string, Record<string, unknown>?][] = [
    ["ord_s_ref", 2500, "USD"],
    ["ord_s_meta", 4200, "USD"],
    ["ord_s_cs", 1999, "USD", { checkoutSessionId: "cs_stored_only" }],
    ["ord_s_unpaid", 3100, "USD"],
    ["ord_s_sess_first", 5000, "USD"],
    ["ord_s_intent_first", 5100, "USD"],
    ["ord_s_at_once", 5200, "USD"],
    ["ord_s_failed", 6000, "USD"],
    ["ord_s_refund", 1000, "USD"],
    ["ord_s_jpy", 500, "JPY"],
    ["ord_s_eur", 2500, "USD"],
    ["ord_s_amount", 2500, "USD"],
    ["ord_s_big", 7700, "USD"],
    ["ord_s_testmode", 800, "USD", { livemode: false }],
    ["ord_s_live_for_test", 900, "USD"],
    ["ord_s_async_fail", 1200, "USD"],
  ];
  for (const [id, amount, currency, extra] of orders) assert.equal((await createOrder(id, amount, currency, extra)).status, 201, id);
});
after(closeDb);

describe("Stripe-Signature verification", () => {
  test("a header made by the stripe package is accepted and records which secret matched", async () => {
    const result = await deliverStripe(unhandled("evt_sig_ok"), { secret: SECRET });
    assert.deepEqual([result.status, result.json], [200, { outcome: "ignored", reason: "unhandled Stripe event type customer.created: stored, nothing changed" }]);
    assert.deepEqual(await storedEvent("evt_sig_ok"), [{ livemode: true, status: "ignored", secretLabel: "STRIPE_WEBHOOK_SECRET[0]", account: ACCOUNT, orderId: null }]);
    const decision = await onlyDecision("evt_sig_ok");
    assert.deepEqual([decision.verified, decision.secretLabel, decision.httpStatus, decision.diagnosis], [true, "STRIPE_WEBHOOK_SECRET[0]", 200, null]);
  });

  test("a pretty-printed signed body is verified on its bytes, not on re-serialised JSON", async () => {
    const body = JSON.stringify(stripeEvent("evt_sig_pretty", "customer.created", { id: "cus_1", object: "customer" }), null, 2);
    assert.ok(body.includes("\n  "));
    const result = await deliverStripe(body, { secret: SECRET });
    assert.deepEqual([result.status, result.json.outcome], [200, "ignored"]);
  });

  test("the header name is matched in lower, upper and mixed case", async () => {
    for (const [index, headerName] of ["stripe-signature", "STRIPE-SIGNATURE", "sTrIpE-SiGnAtUrE"].entries()) {
      const result = await deliverStripe(unhandled(`evt_sig_case_${index}`), { secret: SECRET, headerName });
      assert.deepEqual([headerName, result.status, result.json.outcome], [headerName, 200, "ignored"]);
    }
  });

  test("timestamps: now-299 and now+299 pass; now-301, now+301, non-numeric and absent are 401", async (t) => {
    t.mock.timers.enable({ apis: ["Date"], now: FIXED_NOW * 1000 });
    const cases: [string, number, number, string][] = [
      ["evt_ts_m299", FIXED_NOW - 299, 200, "unhandled Stripe event type customer.created: stored, nothing changed"],
      ["evt_ts_p299", FIXED_NOW + 299, 200, "unhandled Stripe event type customer.created: stored, nothing changed"],
      ["evt_ts_m301", FIXED_NOW - 301, 401, "timestamp outside tolerance: 301 s (max 300)"],
      ["evt_ts_p301", FIXED_NOW + 301, 401, "timestamp outside tolerance: 301 s (max 300)"],
    ];
    for (const [id, timestamp, status, reason] of cases) {
      const result = await deliverStripe(unhandled(id), { secret: SECRET, timestamp });
      assert.deepEqual([id, result.status, result.json.reason], [id, status, reason]);
    }
    assert.equal(
      (await onlyDecision("evt_ts_m301")).diagnosis,
      "signature is valid (STRIPE_WEBHOOK_SECRET[0]) but its timestamp is 301 s in the past: a replay of an old delivery, or the sender's clock is 301 s behind",
    );
    assert.equal((await onlyDecision("evt_ts_p301")).diagnosis, "signature is valid (STRIPE_WEBHOOK_SECRET[0]) but its timestamp is 301 s in the future: the sender's clock is 301 s ahead");
    assert.deepEqual(await storedEvent("evt_ts_m301"), []);

    const body = unhandled("evt_ts_bad");
    const v1 = hmacSha256(SECRET, `${FIXED_NOW}.`, body).toString("hex");
    const nonNumeric = await deliver("stripe", body, { "Stripe-Signature": `t=abc,v1=${v1}` });
    assert.deepEqual([nonNumeric.status, nonNumeric.json.reason], [401, "malformed Stripe-Signature header: timestamp is not a number"]);
    const absent = await deliver("stripe", body, { "Stripe-Signature": `v1=${v1}` });
    assert.deepEqual([absent.status, absent.json.reason], [401, "malformed Stripe-Signature header: expected t=<unix seconds>,v1=<hex>"]);
    const missing = await deliver("stripe", body, {});
    assert.deepEqual([missing.status, missing.json.reason], [401, "missing Stripe-Signature header"]);
    assert.deepEqual(await storedEvent("evt_ts_bad"), []);
  });

  test("a v0-only header is 401; v0 beside a valid v1 is ignored", async () => {
    const body = unhandled("evt_sig_v0");
    const v0Only = stripe.webhooks.generateTestHeaderString({ payload: body, secret: SECRET, scheme: "v0" });
    assert.match(v0Only, /^t=\d+,v0=[0-9a-f]{64}$/);
    const rejected = await deliver("stripe", body, { "Stripe-Signature": v0Only });
    assert.deepEqual([rejected.status, rejected.json.reason], [401, "malformed Stripe-Signature header: expected t=<unix seconds>,v1=<hex>"]);
    const header = stripeHeader(body, SECRET);
    const accepted = await deliver("stripe", body, { "Stripe-Signature": `${header},v0=${"0".repeat(64)}` });
    assert.deepEqual([accepted.status, accepted.json.outcome], [200, "ignored"]);
  });

  test("rotation: Stripe's two v1 signatures are accepted in either order, against either configured secret", async () => {
    const timestamp = Math.floor(Date.now() / 1000);
    const v1Of = (body: string, secret: string) => stripeHeader(body, secret, timestamp).split(",v1=")[1];
    for (const [id, order] of [["evt_rot_old_first", "old-first"], ["evt_rot_new_first", "new-first"]] as const) {
      const body = unhandled(id);
      const [old, fresh] = [v1Of(body, SECRET), v1Of(body, "whsec_someone_elses_0009")];
      const header = order === "old-first" ? `t=${timestamp},v1=${old},v1=${fresh}` : `t=${timestamp},v1=${fresh},v1=${old}`;
      const result = await deliver("stripe", body, { "Stripe-Signature": header });
      assert.deepEqual([id, result.status, result.json.outcome], [id, 200, "ignored"]);
      assert.equal((await onlyDecision(id)).secretLabel, "STRIPE_WEBHOOK_SECRET[0]");
    }
    process.env.STRIPE_WEBHOOK_SECRET = ` ${SECRET} , ${NEXT_SECRET}\n`;
    try {
      const result = await deliverStripe(unhandled("evt_rot_next"), { secret: NEXT_SECRET });
      assert.deepEqual([result.status, result.json.outcome], [200, "ignored"]);
      assert.equal((await onlyDecision("evt_rot_next")).secretLabel, "STRIPE_WEBHOOK_SECRET[1]");
      assert.deepEqual(await storedEvent("evt_rot_next"), [{ livemode: true, status: "ignored", secretLabel: "STRIPE_WEBHOOK_SECRET[1]", account: ACCOUNT, orderId: null }]);
    } finally {
      process.env.STRIPE_WEBHOOK_SECRET = SECRET;
    }
  });

  test("a 900 KB signed payload is accepted and credits its order", async () => {
    const object = { ...paymentIntent({ id: "pi_big", orderId: "ord_s_big", amount: 7700, currency: "usd" }), description: "x".repeat(900 * 1024) };
    const body = JSON.stringify(stripeEvent("evt_big", "payment_intent.succeeded", object));
    assert.ok(Buffer.byteLength(body) > 900 * 1024);
    const result = await deliverStripe(body, { secret: SECRET });
    assert.deepEqual([result.status, result.json], [200, { outcome: "applied", reason: "credited 7700 USD; order ord_s_big created -> paid" }]);
    assert.equal((await readOrder("ord_s_big")).credited, 7700);
  });

  test("a forged signature is 401, stores nothing and has no diagnosis to give", async () => {
    const result = await deliverStripe(unhandled("evt_forged"), { secret: "whsec_attacker_0000" });
    assert.deepEqual([result.status, result.json], [401, { outcome: "rejected", reason: "signature does not match any configured signing secret" }]);
    const decision = await onlyDecision("evt_forged");
    assert.deepEqual([decision.verified, decision.httpStatus, decision.secretLabel, decision.diagnosis], [false, 401, null, null]);
    assert.deepEqual(await storedEvent("evt_forged"), []);
  });

  test("rejections are diagnosed: retired secret, stray whitespace, re-serialised body, base64 instead of hex", async () => {
    const timestamp = Math.floor(Date.now() / 1000);
    const retired = await deliverStripe(unhandled("evt_diag_retired"), { secret: RETIRED });
    const whitespace = await deliverStripe(unhandled("evt_diag_space"), { secret: `${SECRET}\n` });
    const compact = unhandled("evt_diag_reserialised");
    const reserialised = await deliver("stripe", JSON.stringify(JSON.parse(compact), null, 2), { "Stripe-Signature": stripeHeader(compact, SECRET, timestamp) });
    const base64Body = unhandled("evt_diag_base64");
    const base64 = await deliver("stripe", base64Body, { "Stripe-Signature": `t=${timestamp},v1=${hmacSha256(SECRET, `${timestamp}.`, base64Body).toString("base64")}` });
    for (const result of [retired, whitespace, reserialised, base64]) assert.deepEqual([result.status, result.json.reason], [401, "signature does not match any configured signing secret"]);
    const diagnoses = await Promise.all(["evt_diag_retired", "evt_diag_space", "evt_diag_reserialised", "evt_diag_base64"].map(async (id) => (await onlyDecision(id)).diagnosis));
    assert.deepEqual(diagnoses, [
      "signed with a retired secret (STRIPE_WEBHOOK_RETIRED_SECRETS[0]): the sender still signs with a secret this endpoint no longer accepts; give the sender the current secret",
      "signed with STRIPE_WEBHOOK_SECRET[0] plus a trailing newline: the sender's copy of the secret has stray whitespace (Acredita trims its own); remove it at the sender",
      "signature matches STRIPE_WEBHOOK_SECRET[0] over compact JSON (JSON.stringify of the parsed body), not over the bytes received: the body was re-serialised between signing and delivery (a proxy or framework re-encoded the JSON, or the sender signed another serialisation)",
      "signature is base64-encoded but this provider's signatures are hex: the MAC matches STRIPE_WEBHOOK_SECRET[0], only its encoding is wrong",
    ]);
    for (const diagnosis of diagnoses) for (const secret of [SECRET, RETIRED, "stripe_current", "stripe_retired"]) assert.equal(diagnosis!.includes(secret), false);
  });
});

describe("Stripe events", () => {
  test("a paid checkout.session.completed credits the order named by client_reference_id (currency compared case-insensitively)", async () => {
    const session = checkoutSession({ id: "cs_ref", paymentIntent: "pi_ref", clientReferenceId: "ord_s_ref", amount: 2500, currency: "usd" });
    const result = await deliverStripe(JSON.stringify(stripeEvent("evt_cs_ref", "checkout.session.completed", session)), { secret: SECRET });
    assert.deepEqual([result.status, result.json], [200, { outcome: "applied", reason: "credited 2500 USD; order ord_s_ref created -> paid" }]);
    const order = await readOrder("ord_s_ref");
    assert.deepEqual([order.status, order.credited, order.ledger.map((entry) => [entry.businessKey, entry.amount])], ["paid", 2500, [[`credit:stripe:${ACCOUNT}:live:pi_ref`, 2500]]]);
    assert.equal(await (await db()).delivery.count({ where: { orderId: "ord_s_ref" } }), 1);
  });

  test("checkout.session.completed finds the order by metadata.order_id, or by the checkout session stored with it", async () => {
    const byMetadata = checkoutSession({ id: "cs_meta", paymentIntent: "pi_meta", orderIdMetadata: "ord_s_meta", amount: 4200, currency: "usd" });
    const first = await deliverStripe(JSON.stringify(stripeEvent("evt_cs_meta", "checkout.session.completed", byMetadata)), { secret: SECRET });
    assert.deepEqual([first.status, first.json.reason], [200, "credited 4200 USD; order ord_s_meta created -> paid"]);
    const bySession = checkoutSession({ id: "cs_stored_only", paymentIntent: "pi_stored", amount: 1999, currency: "usd" });
    const second = await deliverStripe(JSON.stringify(stripeEvent("evt_cs_stored", "checkout.session.completed", bySession)), { secret: SECRET });
    assert.deepEqual([second.status, second.json.reason], [200, "credited 1999 USD; order ord_s_cs created -> paid"]);
  });

  test("an unpaid session credits nothing; its async_payment_succeeded credits once", async () => {
    const unpaid = checkoutSession({ id: "cs_unpaid", paymentIntent: "pi_unpaid", clientReferenceId: "ord_s_unpaid", amount: 3100, currency: "usd", paymentStatus: "unpaid" });
    const completed = await deliverStripe(JSON.stringify(stripeEvent("evt_cs_unpaid", "checkout.session.completed", unpaid)), { secret: SECRET });
    assert.deepEqual([completed.status, completed.json], [200, { outcome: "ignored", reason: "checkout session cs_unpaid has payment_status unpaid: not paid, nothing credited" }]);
    assert.deepEqual([(await readOrder("ord_s_unpaid")).status, (await readOrder("ord_s_unpaid")).credited], ["created", 0]);
    const paid = { ...unpaid, payment_status: "paid" };
    const later = await deliverStripe(JSON.stringify(stripeEvent("evt_cs_async_ok", "checkout.session.async_payment_succeeded", paid)), { secret: SECRET });
    assert.deepEqual([later.status, later.json.reason], [200, "credited 3100 USD; order ord_s_unpaid created -> paid"]);
    assert.equal((await readOrder("ord_s_unpaid")).credited, 3100);
  });

  test("checkout.session.async_payment_failed is recorded and credits nothing", async () => {
    const session = checkoutSession({ id: "cs_async_fail", paymentIntent: "pi_async_fail", clientReferenceId: "ord_s_async_fail", amount: 1200, currency: "usd", paymentStatus: "unpaid" });
    const result = await deliverStripe(JSON.stringify(stripeEvent("evt_cs_async_fail", "checkout.session.async_payment_failed", session)), { secret: SECRET });
    assert.deepEqual([result.status, result.json], [200, { outcome: "ignored", reason: "payment failure of pi_async_fail recorded; a later success still applies" }]);
    assert.deepEqual([(await readOrder("ord_s_async_fail")).status, (await readOrder("ord_s_async_fail")).credited], ["created", 0]);
  });

  test("session then intent, intent then session: one credit each time", async () => {
    const sessionFirst = [
      stripeEvent("evt_sf_session", "checkout.session.completed", checkoutSession({ id: "cs_sf", paymentIntent: "pi_sf", clientReferenceId: "ord_s_sess_first", amount: 5000, currency: "usd" })),
      stripeEvent("evt_sf_intent", "payment_intent.succeeded", paymentIntent({ id: "pi_sf", orderId: "ord_s_sess_first", amount: 5000, currency: "usd" })),
    ];
    const intentFirst = [
      stripeEvent("evt_if_intent", "payment_intent.succeeded", paymentIntent({ id: "pi_if", orderId: "ord_s_intent_first", amount: 5100, currency: "usd" })),
      stripeEvent("evt_if_session", "checkout.session.completed", checkoutSession({ id: "cs_if", paymentIntent: "pi_if", clientReferenceId: "ord_s_intent_first", amount: 5100, currency: "usd" })),
    ];
    for (const [events, orderId, paymentKey, amount] of [[sessionFirst, "ord_s_sess_first", "pi_sf", 5000], [intentFirst, "ord_s_intent_first", "pi_if", 5100]] as const) {
      const first = await deliverStripe(JSON.stringify(events[0]), { secret: SECRET });
      const second = await deliverStripe(JSON.stringify(events[1]), { secret: SECRET });
      assert.deepEqual([first.status, first.json.outcome, second.status, second.json.outcome], [200, "applied", 200, "duplicate"]);
      assert.equal(second.json.reason, `payment ${paymentKey} already credited by event ${events[0].id}`);
      const order = await readOrder(orderId);
      assert.deepEqual([order.status, order.credited, order.ledger.length], ["paid", amount, 1]);
    }
  });

  test("session and intent for one PaymentIntent at once: one credit, one delivery", async () => {
    const session = stripeEvent("evt_ao_session", "checkout.session.completed", checkoutSession({ id: "cs_ao", paymentIntent: "pi_ao", clientReferenceId: "ord_s_at_once", amount: 5200, currency: "usd" }));
    const intent = stripeEvent("evt_ao_intent", "payment_intent.succeeded", paymentIntent({ id: "pi_ao", orderId: "ord_s_at_once", amount: 5200, currency: "usd" }));
    const results = await Promise.all([deliverStripe(JSON.stringify(session), { secret: SECRET }), deliverStripe(JSON.stringify(intent), { secret: SECRET })]);
    assert.deepEqual(results.map((result) => result.status), [200, 200]);
    assert.deepEqual(results.map((result) => result.json.outcome).sort(), ["applied", "duplicate"]);
    const order = await readOrder("ord_s_at_once");
    assert.deepEqual([order.status, order.credited, order.ledger.map((entry) => entry.businessKey)], ["paid", 5200, [`credit:stripe:${ACCOUNT}:live:pi_ao`]]);
    assert.equal(await (await db()).delivery.count({ where: { orderId: "ord_s_at_once" } }), 1);
    assert.equal(await (await db()).webhookEvent.count({ where: { eventId: { in: ["evt_ao_session", "evt_ao_intent"] } } }), 2);
  });

  test("payment_intent.payment_failed is recorded and never blocks a later success of the same intent", async () => {
    const failed = stripeEvent("evt_pf_failed", "payment_intent.payment_failed", paymentIntent({ id: "pi_pf", orderId: "ord_s_failed", amount: 6000, currency: "usd", status: "requires_payment_method" }));
    const first = await deliverStripe(JSON.stringify(failed), { secret: SECRET });
    assert.deepEqual([first.status, first.json], [200, { outcome: "ignored", reason: "payment failure of pi_pf recorded; a later success still applies" }]);
    assert.deepEqual(await storedEvent("evt_pf_failed"), [{ livemode: true, status: "ignored", secretLabel: "STRIPE_WEBHOOK_SECRET[0]", account: ACCOUNT, orderId: "ord_s_failed" }]);
    const succeeded = stripeEvent("evt_pf_ok", "payment_intent.succeeded", paymentIntent({ id: "pi_pf", orderId: "ord_s_failed", amount: 6000, currency: "usd" }));
    const second = await deliverStripe(JSON.stringify(succeeded), { secret: SECRET });
    assert.deepEqual([second.status, second.json.reason], [200, "credited 6000 USD; order ord_s_failed created -> paid"]);
    assert.equal((await readOrder("ord_s_failed")).credited, 6000);
  });

  test("partial refund, full refund, then a replay of the partial: refunded total exact, nothing counted twice", async () => {
    const paid = await deliverStripe(JSON.stringify(stripeEvent("evt_rf_paid", "payment_intent.succeeded", paymentIntent({ id: "pi_rf", orderId: "ord_s_refund", amount: 1000, currency: "usd" }))), { secret: SECRET });
    assert.equal(paid.json.outcome, "applied");
    const partialBody = JSON.stringify(stripeEvent("evt_rf_partial", "charge.refunded", charge({ id: "ch_rf", paymentIntent: "pi_rf", amount: 1000, amountRefunded: 300, currency: "usd" })));
    const partial = await deliverStripe(partialBody, { secret: SECRET });
    assert.deepEqual([partial.status, partial.json], [200, { outcome: "applied", reason: "refunded 300 USD (total 300); order ord_s_refund paid -> paid" }]);
    let order = await readOrder("ord_s_refund");
    assert.deepEqual([order.status, order.refunded, order.credited], ["paid", 300, 700]);

    const full = await deliverStripe(JSON.stringify(stripeEvent("evt_rf_full", "charge.refunded", charge({ id: "ch_rf", paymentIntent: "pi_rf", amount: 1000, amountRefunded: 1000, currency: "usd" }))), { secret: SECRET });
    assert.deepEqual([full.status, full.json], [200, { outcome: "applied", reason: "refunded 700 USD (total 1000); order ord_s_refund paid -> refunded" }]);

    const replay = await deliverStripe(partialBody, { secret: SECRET });
    assert.deepEqual([replay.status, replay.json], [200, { outcome: "duplicate", reason: "event evt_rf_partial already stored (status processed); nothing changed" }]);
    const resent = await deliverStripe(JSON.stringify(stripeEvent("evt_rf_partial_again", "charge.refunded", charge({ id: "ch_rf", paymentIntent: "pi_rf", amount: 1000, amountRefunded: 300, currency: "usd" }))), { secret: SECRET });
    assert.deepEqual([resent.status, resent.json], [200, { outcome: "duplicate", reason: "refund total 300 of payment pi_rf already recorded (refunded 1000)" }]);

    order = await readOrder("ord_s_refund");
    assert.deepEqual([order.status, order.refunded, order.credited], ["refunded", 1000, 0]);
    assert.deepEqual(order.ledger.map((entry) => [entry.businessKey, entry.amount]).sort(), [
      [`credit:stripe:${ACCOUNT}:live:pi_rf`, 1000],
      [`refund:stripe:${ACCOUNT}:live:pi_rf:total:1000:at:1764400000`, -700],
      [`refund:stripe:${ACCOUNT}:live:pi_rf:total:300:at:1764400000`, -300],
    ]);
  });

  test("JPY 500 (a zero-decimal currency) is credited as 500", async () => {
    const result = await deliverStripe(JSON.stringify(stripeEvent("evt_jpy", "payment_intent.succeeded", paymentIntent({ id: "pi_jpy", orderId: "ord_s_jpy", amount: 500, currency: "jpy" }))), { secret: SECRET });
    assert.deepEqual([result.status, result.json.reason], [200, "credited 500 JPY; order ord_s_jpy created -> paid"]);
    const order = await readOrder("ord_s_jpy");
    assert.deepEqual([order.credited, order.currency, order.ledger.map((entry) => entry.amount)], [500, "JPY", [500]]);
  });

  test("EUR for a USD order is a mismatch for review (422, dead letter), never a credit", async () => {
    const result = await deliverStripe(JSON.stringify(stripeEvent("evt_eur", "payment_intent.succeeded", paymentIntent({ id: "pi_eur", orderId: "ord_s_eur", amount: 2500, currency: "eur" }))), { secret: SECRET });
    assert.deepEqual([result.status, result.json], [422, { outcome: "dead_lettered", reason: "currency mismatch for order ord_s_eur: payment EUR, order USD" }]);
    const order = await readOrder("ord_s_eur");
    assert.deepEqual([order.status, order.credited, order.ledger.length], ["created", 0, 0]);
    const letters = await (await db()).deadLetter.findMany({ where: { eventId: "evt_eur" }, select: { category: true, status: true, retryable: true } });
    assert.deepEqual(letters, [{ category: "currency_mismatch", status: "open", retryable: false }]);
    assert.deepEqual(await storedEvent("evt_eur"), []);
  });

  test("a different amount is a mismatch for review (422), never a credit", async () => {
    const result = await deliverStripe(JSON.stringify(stripeEvent("evt_amount", "payment_intent.succeeded", paymentIntent({ id: "pi_amount", orderId: "ord_s_amount", amount: 2499, currency: "usd" }))), { secret: SECRET });
    assert.deepEqual([result.status, result.json], [422, { outcome: "dead_lettered", reason: "amount mismatch for order ord_s_amount: payment 2499, order 2500 (USD minor units)" }]);
    assert.equal((await readOrder("ord_s_amount")).credited, 0);
  });

  test("an unhandled type is stored and answered 200 ignored", async () => {
    const result = await deliverStripe(JSON.stringify(stripeEvent("evt_unhandled", "invoice.paid", { id: "in_1", object: "invoice" })), { secret: SECRET });
    assert.deepEqual([result.status, result.json], [200, { outcome: "ignored", reason: "unhandled Stripe event type invoice.paid: stored, nothing changed" }]);
    assert.deepEqual((await storedEvent("evt_unhandled")).map((row) => row.status), ["ignored"]);
  });

  test("a handled type with an invalid object is 422 and stores nothing", async () => {
    const object = { ...paymentIntent({ id: "pi_bad", orderId: "ord_s_ref", amount: 10, currency: "usd" }), currency: "dollars" };
    const result = await deliverStripe(JSON.stringify(stripeEvent("evt_bad_object", "payment_intent.succeeded", object)), { secret: SECRET });
    assert.deepEqual([result.status, result.json], [422, { outcome: "rejected", reason: "invalid payment_intent.succeeded data.object: currency: must be a 3-letter ISO 4217 code" }]);
    assert.deepEqual(await storedEvent("evt_bad_object"), []);
  });

  test("a test-mode event on the live endpoint is stored in the endpoint's (live) scope and changes nothing; on the test endpoint it pays a test order only", async () => {
    const onLive = stripeEvent("evt_test_on_live", "payment_intent.succeeded", paymentIntent({ id: "pi_tm_live", orderId: "ord_s_live_for_test", amount: 900, currency: "usd" }), { livemode: false });
    const ignored = await deliverStripe(JSON.stringify(onLive), { secret: SECRET });
    assert.deepEqual([ignored.status, ignored.json], [200, { outcome: "ignored", reason: "test event on a live endpoint: stored, no effect" }]);
    assert.deepEqual((await storedEvent("evt_test_on_live")).map((row) => [row.livemode, row.status]), [[true, "ignored"]]);
    assert.equal((await readOrder("ord_s_live_for_test")).credited, 0);

    const testOrder = stripeEvent("evt_tm_ok", "payment_intent.succeeded", paymentIntent({ id: "pi_tm_ok", orderId: "ord_s_testmode", amount: 800, currency: "usd" }), { livemode: false });
    const applied = await deliverStripe(JSON.stringify(testOrder), { secret: TEST_MODE_SECRET, endpoint: "stripe-test" });
    assert.deepEqual([applied.status, applied.json.reason], [200, "credited 800 USD; order ord_s_testmode created -> paid"]);
    const liveOrder = stripeEvent("evt_tm_live_order", "payment_intent.succeeded", paymentIntent({ id: "pi_tm_lo", orderId: "ord_s_live_for_test", amount: 900, currency: "usd" }), { livemode: false });
    const untouched = await deliverStripe(JSON.stringify(liveOrder), { secret: TEST_MODE_SECRET, endpoint: "stripe-test" });
    assert.deepEqual([untouched.status, untouched.json], [200, { outcome: "ignored", reason: "test event does not touch live order ord_s_live_for_test" }]);
    assert.equal((await readOrder("ord_s_live_for_test")).credited, 0);
    const liveSecretOnTest = await deliverStripe(JSON.stringify(testOrder), { secret: SECRET, endpoint: "stripe-test" });
    assert.equal(liveSecretOnTest.status, 401);
  });

  test("a Connect event of an account the endpoint is not bound to is answered 200, recorded ignored, never applied nor dead-lettered", async () => {
    const event = stripeEvent("evt_other_account", "payment_intent.succeeded", paymentIntent({ id: "pi_other", orderId: "ord_s_ref", amount: 2500, currency: "usd" }), { account: "acct_someone_else" });
    const result = await deliverStripe(JSON.stringify(event), { secret: SECRET });
    // A 4xx would be retried for three days and count toward Stripe disabling the endpoint.
    assert.deepEqual([result.status, result.json], [200, { outcome: "ignored", reason: "Connect event of account acct_someone_else, which endpoint stripe is not bound to: recorded, not applied" }]);
    assert.deepEqual(await storedEvent("evt_other_account"), []);
    assert.equal(await (await db()).deadLetter.count({ where: { eventId: "evt_other_account" } }), 0);
    const decisions = await (await db()).decision.findMany({ where: { eventId: "evt_other_account" }, select: { outcome: true, httpStatus: true, reasonCode: true } });
    assert.deepEqual(decisions, [{ outcome: "ignored", httpStatus: 200, reasonCode: "account_not_bound" }]);
  });

  test("no Stripe secret or signature reaches the database file or the log", async () => {
    await closeDb();
    const haystack = `${await storedText(TEST_DB)}\n${existsSync(process.env.LOG_FILE!) ? readFileSync(process.env.LOG_FILE!, "latin1") : ""}`;
    assert.match(readFileSync(process.env.LOG_FILE!, "utf8"), /"decision"/);
    assert.ok(sentSignatures.size >= 30, `signatures sent: ${sentSignatures.size}`);
    for (const needle of [SECRET, NEXT_SECRET, RETIRED, TEST_MODE_SECRET, ...sentSignatures]) assert.equal(haystack.includes(needle), false, `found ${needle.slice(0, 8)}…`);
  });
});
