import { TEST_DB } from "@/e2e/support/test-env";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { closeDb, db } from "@/lib/db/client";
import { hmacSha256 } from "@/lib/providers/signatures/hmac";
import { createOrder, deliver, readOrder, sentSignatures } from "@/e2e/support/http";
import { decisionsOf, deliverYolfi, yolfiEvent, yolfiSignature } from "@/e2e/support/providers";
import { storedText } from "@/e2e/support/test-database";

// These tests read the inline answer (apply before answering); inbox mode, the default for this
// endpoint, stores first and applies with the same apply step (tests/integration/inbox-mode.test.ts).
process.env.WEBHOOK_PROCESSING_MODE = "inline";

const SECRET = "yolfi_live_signing_secret_0001";
const TEST_SECRET = "yolfi_test_signing_secret_0001";
const RETIRED = "yolfi_retired_signing_secret_0000";
const ORG = "org_merchant_1";
process.env.YOLFI_WEBHOOK_SECRET = SECRET;
process.env.YOLFI_TEST_WEBHOOK_SECRET = TEST_SECRET;
process.env.YOLFI_WEBHOOK_RETIRED_SECRETS = RETIRED;
process.env.YOLFI_ORG_ID = ORG;

/** A payment.confirmed as the seed guide shows it; the token amount is in USDT, not in the order's currency. */
function confirmed(id: string, data: Record<string, unknown>, extra: { livemode?: boolean; orgId?: string | null } = {}): string {
  return yolfiEvent({ id, type: "payment.confirmed", livemode: extra.livemode, orgId: extra.orgId, data: { invoiceId: `inv_${id}`, amount: "24.95", token: "USDT", ...data } });
}

async function state(orderId: string) {
  const database = await db();
  const order = await readOrder(orderId);
  return {
    status: order.status,
    credited: order.credited,
    deliveries: await database.delivery.count({ where: { orderId } }),
    extraCharges: await database.extraCharge.count({ where: { orderId } }),
  };
}

async function stored(eventId: string) {
  return (await db()).webhookEvent.findMany({ where: { provider: "yolfi", eventId }, select: { livemode: true, status: true, account: true, secretLabel: true } });
}

before(async () => {
  const orders: [string, number, string, Record<string, unknown>?][] = [
    ["ord_y_first", 150000, "ARS"],
    ["ord_y_session", 2500, "USD", { checkoutSessionId: "ycs_session_1" }],
    ["ord_y_race", 2600, "USD"],
    ["ord_y_twice", 2700, "USD"],
    ["ord_y_forged", 2800, "USD"],
    ["ord_y_org", 2900, "USD"],
    ["ord_y_invoice", 3000, "USD"],
    ["ord_y_live", 3100, "USD"],
    ["ord_y_test", 3200, "USD", { livemode: false }],
    ["ord_y_hdr", 3300, "USD"],
  ];
  for (const [id, amount, currency, extra] of orders) assert.equal((await createOrder(id, amount, currency, extra)).status, 201, id);
});
after(closeDb);

describe("Yolfi payment.confirmed", () => {
  test("a confirmed payment credits the order's own price once (the token amount is never compared) and records the secret used", async () => {
    const result = await deliverYolfi(confirmed("evt_y_first", { paymentId: "ypay_first", merchantOrderId: "ord_y_first", checkoutSessionId: "ycs_first" }), { secret: SECRET });
    assert.deepEqual([result.status, result.json], [200, { outcome: "applied", reason: "credited 150000 ARS; order ord_y_first created -> paid" }]);
    assert.deepEqual(await state("ord_y_first"), { status: "paid", credited: 150000, deliveries: 1, extraCharges: 0 });
    assert.deepEqual(await stored("evt_y_first"), [{ livemode: true, status: "processed", account: ORG, secretLabel: "YOLFI_WEBHOOK_SECRET[0]" }]);
    assert.deepEqual((await decisionsOf("evt_y_first")).map((row) => [row.outcome, row.httpStatus, row.secretLabel]), [["applied", 200, "YOLFI_WEBHOOK_SECRET[0]"]]);
  });

  test("the order is found by the checkoutSessionId stored with it; a missing paylinkId and merchantOrderId are fine", async () => {
    const result = await deliverYolfi(confirmed("evt_y_session", { paymentId: "ypay_session", checkoutSessionId: "ycs_session_1" }), { secret: SECRET });
    assert.deepEqual([result.status, result.json.reason], [200, "credited 2500 USD; order ord_y_session created -> paid"]);
  });

  test("the same signed event twice at once: one stored event, one effect", async () => {
    const body = confirmed("evt_y_race", { paymentId: "ypay_race", merchantOrderId: "ord_y_race" });
    const results = await Promise.all([deliverYolfi(body, { secret: SECRET }), deliverYolfi(body, { secret: SECRET })]);
    assert.deepEqual(results.map((result) => result.status), [200, 200]);
    assert.deepEqual(results.map((result) => result.json.outcome).sort(), ["applied", "duplicate"]);
    assert.deepEqual(await state("ord_y_race"), { status: "paid", credited: 2600, deliveries: 1, extraCharges: 0 });
    assert.equal((await stored("evt_y_race")).length, 1);
    assert.equal((await readOrder("ord_y_race")).ledger.length, 1);
  });

  test("two confirmed attempts for one order: one delivery, one extra charge for refund review", async () => {
    const first = await deliverYolfi(confirmed("evt_y_twice_a", { paymentId: "ypay_twice_a", merchantOrderId: "ord_y_twice" }), { secret: SECRET });
    const second = await deliverYolfi(confirmed("evt_y_twice_b", { paymentId: "ypay_twice_b", merchantOrderId: "ord_y_twice" }), { secret: SECRET });
    assert.deepEqual([first.status, first.json.outcome], [200, "applied"]);
    assert.deepEqual([second.status, second.json], [200, { outcome: "applied", reason: "order already paid: payment ypay_twice_b recorded as an extra charge for review, not credited" }]);
    assert.deepEqual(await state("ord_y_twice"), { status: "paid", credited: 2700, deliveries: 1, extraCharges: 1 });
    const extra = await (await db()).extraCharge.findMany({ where: { orderId: "ord_y_twice" }, select: { paymentKey: true, status: true, eventId: true } });
    assert.deepEqual(extra, [{ paymentKey: "ypay_twice_b", status: "open", eventId: "evt_y_twice_b" }]);
  });

  test("an invalid signature is 401: no stored event, no delivery", async () => {
    const result = await deliverYolfi(confirmed("evt_y_forged", { paymentId: "ypay_forged", merchantOrderId: "ord_y_forged" }), { secret: "yolfi_attacker_secret_9999" });
    assert.deepEqual([result.status, result.json], [401, { outcome: "rejected", reason: "signature does not match any configured signing secret" }]);
    assert.deepEqual(await state("ord_y_forged"), { status: "created", credited: 0, deliveries: 0, extraCharges: 0 });
    assert.deepEqual(await stored("evt_y_forged"), []);
    assert.deepEqual((await decisionsOf("evt_y_forged")).map((row) => [row.verified, row.httpStatus, row.diagnosis]), [[false, 401, null]]);
    const missing = await deliver("yolfi", confirmed("evt_y_nosig", { paymentId: "ypay_nosig", merchantOrderId: "ord_y_forged" }), {});
    assert.deepEqual([missing.status, missing.json.reason], [401, "missing X-Yolfi-Signature header"]);
  });

  test("an organisation mismatch is 422 and dead-lettered: no delivery", async () => {
    const result = await deliverYolfi(confirmed("evt_y_org", { paymentId: "ypay_org", merchantOrderId: "ord_y_org" }, { orgId: "org_someone_else" }), { secret: SECRET });
    assert.deepEqual([result.status, result.json], [422, { outcome: "dead_lettered", reason: "event organisation org_someone_else does not match endpoint yolfi" }]);
    assert.deepEqual(await state("ord_y_org"), { status: "created", credited: 0, deliveries: 0, extraCharges: 0 });
    const letters = await (await db()).deadLetter.findMany({ where: { eventId: "evt_y_org" }, select: { category: true, retryable: true } });
    assert.deepEqual(letters, [{ category: "org_mismatch", retryable: false }]);
  });

  test("an event without orgId is checked by its signature alone", async () => {
    const result = await deliverYolfi(yolfiEvent({ id: "evt_y_noorg", type: "invoice.created", orgId: null, data: { invoiceId: "inv_1" } }), { secret: SECRET });
    assert.deepEqual([result.status, result.json.outcome], [200, "ignored"]);
  });

  test("an unknown order is 409 and dead-lettered: no delivery anywhere", async () => {
    const deliveriesBefore = await (await db()).delivery.count();
    const result = await deliverYolfi(confirmed("evt_y_unknown", { paymentId: "ypay_unknown", merchantOrderId: "ord_y_nope" }), { secret: SECRET });
    assert.deepEqual([result.status, result.json], [409, { outcome: "dead_lettered", reason: "unknown order ord_y_nope" }]);
    assert.equal(await (await db()).delivery.count(), deliveriesBefore);
    assert.deepEqual(await stored("evt_y_unknown"), []);
  });

  test("an older invoice event after confirmation is recorded and reverts nothing", async () => {
    const paid = await deliverYolfi(confirmed("evt_y_inv_paid", { paymentId: "ypay_inv", merchantOrderId: "ord_y_invoice" }), { secret: SECRET });
    assert.equal(paid.json.outcome, "applied");
    const overdue = await deliverYolfi(yolfiEvent({ id: "evt_y_inv_overdue", type: "invoice.overdue", data: { invoiceId: "inv_evt_y_inv_paid", merchantOrderId: "ord_y_invoice" } }), { secret: SECRET });
    assert.deepEqual([overdue.status, overdue.json], [200, { outcome: "ignored", reason: "invoice.overdue: invoice overdue: recorded; never reverts a delivered order" }]);
    const created = await deliverYolfi(yolfiEvent({ id: "evt_y_inv_created", type: "invoice.created", data: { invoiceId: "inv_evt_y_inv_paid", merchantOrderId: "ord_y_invoice" } }), { secret: SECRET });
    assert.deepEqual([created.status, created.json], [200, { outcome: "ignored", reason: "invoice.created: an invoice is not a payment: nothing changed" }]);
    assert.deepEqual(await state("ord_y_invoice"), { status: "paid", credited: 3000, deliveries: 1, extraCharges: 0 });
    assert.deepEqual((await stored("evt_y_inv_overdue")).map((row) => row.status), ["ignored"]);
  });

  test("subscription events are stored and change no order", async () => {
    for (const type of ["subscription.overdue", "subscription.cancelled"]) {
      const result = await deliverYolfi(yolfiEvent({ id: `evt_y_${type}`, type, data: {} }), { secret: SECRET });
      assert.deepEqual([result.status, result.json], [200, { outcome: "ignored", reason: `${type}: subscription event: recorded; changes no single order` }]);
      assert.deepEqual((await stored(`evt_y_${type}`)).map((row) => row.status), ["ignored"]);
    }
  });

  test("a test event on the live receiver: 200, stored in the endpoint's (live) scope, no effect on any live order, ledger or delivery", async () => {
    const result = await deliverYolfi(confirmed("evt_test_y_live", { paymentId: "ypay_test_live", merchantOrderId: "ord_y_live" }, { livemode: false }), { secret: SECRET });
    assert.deepEqual([result.status, result.json], [200, { outcome: "ignored", reason: "test event on a live endpoint: stored, no effect" }]);
    assert.deepEqual(await stored("evt_test_y_live"), [{ livemode: true, status: "ignored", account: ORG, secretLabel: "YOLFI_WEBHOOK_SECRET[0]" }]);
    assert.deepEqual(await state("ord_y_live"), { status: "created", credited: 0, deliveries: 0, extraCharges: 0 });
  });

  test("on the test endpoint test events pay test orders only", async () => {
    const testOrder = await deliverYolfi(confirmed("evt_test_y_ok", { paymentId: "ypay_test_ok", merchantOrderId: "ord_y_test" }, { livemode: false }), { secret: TEST_SECRET, endpoint: "yolfi-test" });
    assert.deepEqual([testOrder.status, testOrder.json.reason], [200, "credited 3200 USD; order ord_y_test created -> paid"]);
    assert.deepEqual(await state("ord_y_test"), { status: "paid", credited: 3200, deliveries: 1, extraCharges: 0 });
    const liveOrder = await deliverYolfi(confirmed("evt_test_y_liveorder", { paymentId: "ypay_test_lo", merchantOrderId: "ord_y_live" }, { livemode: false }), { secret: TEST_SECRET, endpoint: "yolfi-test" });
    assert.deepEqual([liveOrder.status, liveOrder.json], [200, { outcome: "ignored", reason: "test event does not touch live order ord_y_live" }]);
    const liveEvent = await deliverYolfi(confirmed("evt_y_live_on_test", { paymentId: "ypay_lot", merchantOrderId: "ord_y_live" }), { secret: TEST_SECRET, endpoint: "yolfi-test" });
    assert.deepEqual([liveEvent.status, liveEvent.json], [200, { outcome: "ignored", reason: "live event on a test endpoint: stored, no effect" }]);
    assert.deepEqual(await state("ord_y_live"), { status: "created", credited: 0, deliveries: 0, extraCharges: 0 });
    const liveSecret = await deliverYolfi(confirmed("evt_test_y_wrongkey", { paymentId: "ypay_wk", merchantOrderId: "ord_y_test" }, { livemode: false }), { secret: SECRET, endpoint: "yolfi-test" });
    assert.equal(liveSecret.status, 401);
  });

  test("X-Yolfi-Event-ID must equal the signed id when present (400 otherwise); it may be absent", async () => {
    const body = confirmed("evt_y_hdr", { paymentId: "ypay_hdr", merchantOrderId: "ord_y_hdr" });
    const mismatch = await deliverYolfi(body, { secret: SECRET, eventIdHeader: "evt_y_other" });
    assert.deepEqual([mismatch.status, mismatch.json], [400, { outcome: "rejected", reason: "X-Yolfi-Event-ID header does not match the signed payload id evt_y_hdr" }]);
    assert.deepEqual((await decisionsOf("evt_y_hdr")).map((row) => [row.verified, row.outcome, row.httpStatus, row.secretLabel]), [[true, "rejected", 400, "YOLFI_WEBHOOK_SECRET[0]"]]);
    assert.deepEqual(await state("ord_y_hdr"), { status: "created", credited: 0, deliveries: 0, extraCharges: 0 });
    const absent = await deliverYolfi(body, { secret: SECRET, eventIdHeader: false });
    assert.deepEqual([absent.status, absent.json.outcome], [200, "applied"]);
    const matching = await deliverYolfi(body, { secret: SECRET });
    assert.deepEqual([matching.status, matching.json.outcome], [200, "duplicate"]);
  });

  test("header names are matched in any case", async () => {
    for (const [index, headerName] of ["x-yolfi-signature", "X-YOLFI-SIGNATURE", "x-YoLfI-sIgNaTuRe"].entries()) {
      const result = await deliverYolfi(yolfiEvent({ id: `evt_y_case_${index}`, type: "invoice.created", data: {} }), { secret: SECRET, headerName });
      assert.deepEqual([headerName, result.status, result.json.outcome], [headerName, 200, "ignored"]);
    }
  });

  test("a replayed delivery is a duplicate by its stored event id alone (no timestamp is signed)", async () => {
    const body = yolfiEvent({ id: "evt_y_replay", type: "invoice.created", data: {} });
    const first = await deliverYolfi(body, { secret: SECRET });
    const replay = await deliverYolfi(body, { secret: SECRET });
    assert.deepEqual([first.json.outcome, replay.status, replay.json], ["ignored", 200, { outcome: "duplicate", reason: "event evt_y_replay already stored (status ignored); nothing changed" }]);
  });

  test("malformed events are 422: payment.confirmed without paymentId, a non-decimal amount", async () => {
    const noPayment = await deliverYolfi(confirmed("evt_y_nopay", { merchantOrderId: "ord_y_live" }), { secret: SECRET });
    assert.deepEqual([noPayment.status, noPayment.json], [422, { outcome: "rejected", reason: "invalid Yolfi event: payment.confirmed needs data.paymentId" }]);
    const badAmount = await deliverYolfi(confirmed("evt_y_badamount", { paymentId: "ypay_bad", merchantOrderId: "ord_y_live", amount: 24.95 }), { secret: SECRET });
    assert.deepEqual([badAmount.status, badAmount.json.reason], [422, "invalid Yolfi event: data.amount: Invalid input: expected string, received number"]);
    assert.deepEqual(await state("ord_y_live"), { status: "created", credited: 0, deliveries: 0, extraCharges: 0 });
  });

  test("rejections are diagnosed: hex instead of base64, retired secret, stray whitespace, re-serialised body", async () => {
    const hexBody = yolfiEvent({ id: "evt_y_diag_hex", type: "invoice.created", data: {} });
    await deliverYolfi(hexBody, { secret: SECRET, signature: hmacSha256(SECRET, hexBody).toString("hex") });
    await deliverYolfi(yolfiEvent({ id: "evt_y_diag_retired", type: "invoice.created", data: {} }), { secret: RETIRED });
    await deliverYolfi(yolfiEvent({ id: "evt_y_diag_space", type: "invoice.created", data: {} }), { secret: ` ${SECRET}` });
    const compact = yolfiEvent({ id: "evt_y_diag_json", type: "invoice.created", data: {} });
    await deliverYolfi(JSON.stringify(JSON.parse(compact), null, 4), { secret: SECRET, signature: yolfiSignature(compact, SECRET) });
    const rows = await Promise.all(["evt_y_diag_hex", "evt_y_diag_retired", "evt_y_diag_space", "evt_y_diag_json"].map(async (id) => (await decisionsOf(id)).map((row) => [row.httpStatus, row.diagnosis])));
    assert.deepEqual(rows, [
      [[401, "signature is hex-encoded but this provider's signatures are base64: the MAC matches YOLFI_WEBHOOK_SECRET[0], only its encoding is wrong"]],
      [[401, "signed with a retired secret (YOLFI_WEBHOOK_RETIRED_SECRETS[0]): the sender still signs with a secret this endpoint no longer accepts; give the sender the current secret"]],
      [[401, "signed with YOLFI_WEBHOOK_SECRET[0] plus a leading space: the sender's copy of the secret has stray whitespace (Acredita trims its own); remove it at the sender"]],
      [[401, "signature matches YOLFI_WEBHOOK_SECRET[0] over compact JSON (JSON.stringify of the parsed body), not over the bytes received: the body was re-serialised between signing and delivery (a proxy or framework re-encoded the JSON, or the sender signed another serialisation)"]],
    ]);
  });

  test("no Yolfi secret or signature reaches the database file or the log", async () => {
    await closeDb();
    const haystack = `${await storedText(TEST_DB)}\n${existsSync(process.env.LOG_FILE!) ? readFileSync(process.env.LOG_FILE!, "latin1") : ""}`;
    assert.ok(sentSignatures.size >= 25, `signatures sent: ${sentSignatures.size}`);
    for (const needle of [SECRET, TEST_SECRET, RETIRED, ...sentSignatures]) assert.equal(haystack.includes(needle), false, `found ${needle.slice(0, 8)}…`);
  });
});
