import { TEST_API_TOKEN, TEST_DB } from "@/e2e/support/test-env";
// Endpoints stored as data, through the API's route handlers and the webhook route on the database under
// test: one endpoint of each provider created, a signed payment delivered to it and credited; a rotation
// whose overlap expires under a controlled clock (the refusal names the expired secret); disable (503 with
// Retry-After), delete (404, history kept); a change made by another process holds within a second; one
// indexed read per endpoint; and no trace of any secret value in the database, its WAL, the log or an
// API answer.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import * as endpointsRoute from "@/app/api/endpoints/route";
import * as endpointRoute from "@/app/api/endpoints/[id]/route";
import * as secretsRoute from "@/app/api/endpoints/[id]/secrets/route";
import * as secretRoute from "@/app/api/endpoints/[id]/secrets/[label]/route";
import { createApiKeyAs } from "@/lib/auth/api-keys";
import { createUserWithPassword } from "@/lib/auth/users";
import { closeDb, db } from "@/lib/db/client";
import { driverOf } from "@/lib/db/driver";
import { ENDPOINTS_VERSION_CHECK_MS, forgetCachedEndpoints, LAST_MATCHED_WRITE_MS, resolveDataEndpoint } from "@/lib/endpoints/data-endpoints";
import { createEndpoint, rotateSecret, type EndpointActor } from "@/lib/endpoints/endpoint-store";
import { retryDeadLetter } from "@/lib/triage/retry-dead-letter";
import { InboxWorker } from "@/lib/inbox/inbox-worker";
import { receiveWebhook } from "@/lib/ingest/receive-webhook";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";
import { createOrder, deliver, readOrder, sentSignatures } from "@/e2e/support/http";
import { checkoutSession, deliverStripe, deliverYolfi, lastDecision, standardWebhooksHeaders, stripeEvent, yolfiEvent } from "@/e2e/support/providers";
import { storedText } from "@/e2e/support/test-database";
const DEFAULT_ORG = "org_default";

process.env.ACREDITA_SECRETS_KEY = randomBytes(32).toString("base64");

const STRIPE_SECRET = "whsec_data_endpoint_stripe_0001";
const STRIPE_NEXT = "whsec_data_endpoint_stripe_0002";
const YOLFI_SECRET = "yolfi_data_endpoint_secret_0001";
const STRIPE_ACCOUNT = "acct_dataendpoints1";
const YOLFI_ORG = "org_data_endpoints_1";

/** Every value a secret took in this file (supplied or generated): none may be stored or echoed where it should not. */
const secretValues: string[] = [STRIPE_SECRET, STRIPE_NEXT, YOLFI_SECRET];
/** Every API answer that must not carry a secret (all but the one answer that hands a generated secret over). */
const answers: string[] = [];

const operator: EndpointActor = { id: "api-token", email: "operator (API_TOKEN)", operator: true };
const auth = { authorization: `Bearer ${TEST_API_TOKEN}` };

interface Answer {
  status: number;
  json: Record<string, unknown>;
  headers: Headers;
}

/** Calls one of the endpoint route handlers as Next.js would; records the body unless it hands over a generated secret. */
async function api(method: "GET" | "POST" | "PATCH" | "DELETE", path: string, body?: unknown, headers: Record<string, string> = auth): Promise<Answer> {
  const request = new Request(`http://127.0.0.1${path}`, { method, headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const [, , , id, part, label] = path.split("/");
  const route = part === "secrets" ? (label ? secretRoute : secretsRoute) : id ? endpointRoute : endpointsRoute;
  const handler = (route as unknown as Record<string, (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response> | Response>)[method];
  const response = await handler(request, { params: Promise.resolve({ id: id ?? "", label: label ?? "" }) });
  const text = await response.text();
  const json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  if (typeof json.secret === "string") secretValues.push(json.secret);
  else answers.push(text);
  return { status: response.status, json, headers: response.headers };
}

const labPayment = (id: string, orderId: string, amount: number, currency = "ARS") => JSON.stringify({ id, type: "payment.approved", created: 1760181330, data: { payment_id: `pay_${id}`, order_id: orderId, amount, currency } });

/** A lab delivery to data endpoint `id` signed with `secret` at the receiver clock `now` (the signature's timestamp is that clock). */
function deliverLabAt(id: string, body: string, secret: string, now: Date) {
  return receiveWebhook({ endpointName: id, headers: new Headers({ "content-type": "application/json", "Lab-Signature": signTimestamped(secret, Math.floor(now.getTime() / 1000), body) }), body: Buffer.from(body), now });
}

before(async () => {
  const orders: [string, number, string][] = [
    ["ord_de_stripe", 2500, "USD"],
    ["ord_de_yolfi", 3100, "USD"],
    ["ord_de_sw", 4500, "EUR"],
    ["ord_de_lab", 150000, "ARS"],
    ["ord_de_inbox", 7000, "ARS"],
    ["ord_de_rot_1", 1000, "ARS"],
    ["ord_de_rot_2", 1000, "ARS"],
    ["ord_de_rot_3", 1000, "ARS"],
    ["ord_de_off", 2000, "ARS"],
    ["ord_de_gone", 2100, "ARS"],
  ];
  for (const [id, amount, currency] of orders) assert.equal((await createOrder(id, amount, currency)).status, 201, id);
});
after(closeDb);


/** Records the SQL of every read the driver runs until `restore()`. */
function recordReads(driver: ReturnType<typeof driverOf>): { statements: string[]; restore: () => void } {
  const original = driver.all.bind(driver);
  const statements: string[] = [];
  driver.all = ((sql: string, params?: never) => {
    statements.push(sql);
    return original(sql, params);
  }) as typeof driver.all;
  return { statements, restore: () => void (driver.all = original) };
}

describe("endpoints as data: one of each provider, a signed payment credited", () => {
  test("Stripe: the provider's secret is required and never echoed; a delivery signed with it credits the order once", async () => {
    const missing = await api("POST", "/api/endpoints", { provider: "stripe", account: STRIPE_ACCOUNT, livemode: true });
    assert.deepEqual([missing.status, missing.json], [400, { error: "secret: required for a stripe endpoint (the signing secret the provider shows for this endpoint)", code: "invalid_body" }]);
    const created = await api("POST", "/api/endpoints", { provider: "stripe", account: STRIPE_ACCOUNT, livemode: true, processingMode: "inline", secret: STRIPE_SECRET });
    assert.equal(created.status, 201);
    const id = created.json.id as string;
    assert.match(id, /^ep_[a-z0-9]{20}$/);
    assert.equal(created.headers.get("location"), `/api/endpoints/${id}`);
    assert.deepEqual({ ...created.json, createdAt: undefined, secrets: undefined }, { id, url: `/api/webhooks/${id}`, provider: "stripe", account: STRIPE_ACCOUNT, livemode: true, processingMode: "inline", options: null, connect: false, status: "enabled", createdAt: undefined, secrets: undefined, apiKey: null });
    const secrets = created.json.secrets as Record<string, unknown>[];
    assert.deepEqual(secrets.map((secret) => [secret.label, secret.state, secret.expiresAt, secret.lastMatchedAt, secret.retiredAt]), [["secret-1", "active", null, null, null]]);
    assert.equal("secret" in created.json, false);

    const session = checkoutSession({ id: "cs_de_1", paymentIntent: "pi_de_1", clientReferenceId: "ord_de_stripe", amount: 2500, currency: "usd" });
    const paid = await deliverStripe(JSON.stringify(stripeEvent("evt_de_stripe", "checkout.session.completed", session)), { secret: STRIPE_SECRET, endpoint: id });
    assert.deepEqual([paid.status, paid.json], [200, { outcome: "applied", reason: "credited 2500 USD; order ord_de_stripe created -> paid" }]);
    const order = await readOrder("ord_de_stripe");
    assert.deepEqual([order.status, order.credited, order.ledger.map((entry) => entry.businessKey)], ["paid", 2500, [`credit:stripe:${STRIPE_ACCOUNT}:live:pi_de_1`]]);
    const stored = await (await db()).webhookEvent.findMany({ where: { eventId: "evt_de_stripe" }, select: { endpoint: true, account: true, secretLabel: true, status: true } });
    assert.deepEqual(stored, [{ endpoint: id, account: STRIPE_ACCOUNT, secretLabel: "secret-1", status: "processed" }]);
    const again = await deliverStripe(JSON.stringify(stripeEvent("evt_de_stripe", "checkout.session.completed", session)), { secret: STRIPE_SECRET, endpoint: id });
    assert.deepEqual([again.status, again.json.outcome], [200, "duplicate"]);
    // Another Stripe secret does not open this endpoint.
    const forged = await deliverStripe(JSON.stringify(stripeEvent("evt_de_forged", "checkout.session.completed", session)), { secret: STRIPE_NEXT, endpoint: id });
    assert.equal(forged.status, 401);
  });

  test("Yolfi: secret required, account bound; a confirmed payment credits the order's price", async () => {
    const created = await api("POST", "/api/endpoints", { provider: "yolfi", account: YOLFI_ORG, livemode: true, processingMode: "inline", secret: YOLFI_SECRET });
    assert.equal(created.status, 201);
    const id = created.json.id as string;
    const body = yolfiEvent({ id: "evt_de_yolfi", type: "payment.confirmed", orgId: YOLFI_ORG, data: { paymentId: "ypay_de_1", merchantOrderId: "ord_de_yolfi", amount: "31.00", token: "USDT" } });
    const paid = await deliverYolfi(body, { secret: YOLFI_SECRET, endpoint: id });
    assert.deepEqual([paid.status, paid.json], [200, { outcome: "applied", reason: "credited 3100 USD; order ord_de_yolfi created -> paid" }]);
    // Another organisation's event on this endpoint is refused as before (the account is bound, never defaulted).
    const other = await deliverYolfi(yolfiEvent({ id: "evt_de_yolfi_other", type: "payment.confirmed", orgId: "org_someone_else", data: { paymentId: "ypay_de_2", merchantOrderId: "ord_de_yolfi" } }), { secret: YOLFI_SECRET, endpoint: id });
    assert.deepEqual([other.status, other.json.outcome], [422, "dead_lettered"]);
  });

  test("Standard Webhooks: a whsec_ secret is generated and shown once; without options the documented default mapping applies", async () => {
    const created = await api("POST", "/api/endpoints", { provider: "standard-webhooks", account: "sw-data-sender", livemode: true, processingMode: "inline" });
    assert.equal(created.status, 201);
    const id = created.json.id as string;
    const secret = created.json.secret as string;
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    assert.equal(Buffer.from(secret.slice(6), "base64").length, 24);
    assert.deepEqual(created.json.options, { fields: { type: "$.type", orderId: "$.data.order_id", paymentId: "$.data.payment_id", amount: "$.data.amount", currency: "$.data.currency", refundedTotal: "$.data.amount_refunded", livemode: "$.data.livemode", customerEmail: "$.data.customer_email" }, eventTypes: { payment: ["payment.succeeded"], refund: ["payment.refunded"], paymentFailed: ["payment.failed"] } });
    const fetched = await api("GET", `/api/endpoints/${id}`);
    assert.equal(fetched.status, 200);
    assert.equal("secret" in fetched.json, false);
    const body = JSON.stringify({ type: "payment.succeeded", timestamp: "2026-12-01T12:00:00Z", data: { payment_id: "swpay_de_1", order_id: "ord_de_sw", amount: 4500, currency: "EUR" } });
    const paid = await deliver(id, body, standardWebhooksHeaders("msg_de_sw_1", body, secret));
    assert.deepEqual([paid.status, paid.json], [200, { outcome: "applied", reason: "credited 4500 EUR; order ord_de_sw created -> paid" }]);
  });

  test("lab, inbox mode: a hex secret is generated; the delivery is stored, and the worker credits it", async () => {
    const created = await api("POST", "/api/endpoints", { provider: "lab", account: "lab-data", livemode: true, processingMode: "inbox" });
    assert.equal(created.status, 201);
    const id = created.json.id as string;
    const secret = created.json.secret as string;
    assert.match(secret, /^[0-9a-f]{64}$/);
    const accepted = await deliver(id, labPayment("evt_de_lab", "ord_de_inbox", 7000), { "Lab-Signature": signTimestamped(secret, Math.floor(Date.now() / 1000), labPayment("evt_de_lab", "ord_de_inbox", 7000)) });
    assert.deepEqual([accepted.status, accepted.json.outcome], [200, "accepted"]);
    const results = await new InboxWorker(db, { policy: { baseDelayMs: 1_000, maxDelayMs: 10_000, maxAttempts: 3, maxAgeSeconds: 3_600 }, leaseMs: 30_000, random: () => 0.5 }).drain();
    assert.deepEqual(results.map((result) => result.kind), ["applied"]);
    const order = await readOrder("ord_de_inbox");
    assert.deepEqual([order.status, order.credited], ["paid", 7000]);
    const stored = await (await db()).webhookEvent.findFirstOrThrow({ where: { eventId: "evt_de_lab" }, select: { endpoint: true, status: true, secretLabel: true } });
    assert.deepEqual(stored, { endpoint: id, status: "processed", secretLabel: "secret-1" });
  });

  test("GET /api/endpoints lists them oldest first, never a secret value; an unknown id is 404", async () => {
    const list = await api("GET", "/api/endpoints");
    assert.equal(list.status, 200);
    const data = list.json.data as Record<string, unknown>[];
    assert.deepEqual(data.map((endpoint) => endpoint.provider), ["stripe", "yolfi", "standard-webhooks", "lab"]);
    assert.equal(list.json.count, 4);
    assert.ok(data.every((endpoint) => !("secret" in endpoint)));
    const unknown = await api("GET", "/api/endpoints/ep_aaaaaaaaaaaaaaaaaaaa");
    assert.deepEqual([unknown.status, unknown.json.code], [404, "not_found"]);
    // An environment endpoint's name is not a data endpoint.
    assert.equal((await api("GET", "/api/endpoints/lab")).status, 404);
  });
});

describe("what an endpoint refuses at creation", () => {
  test("each refusal names the field: options on a provider without any, a bad mapping, a Stripe account that is not acct_, a demo account, a demo secret, a short secret", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ provider: "stripe", account: STRIPE_ACCOUNT, livemode: true, secret: STRIPE_SECRET, options: {} }, "options: a stripe endpoint takes no options"],
      [{ provider: "standard-webhooks", account: "sw-x", livemode: true, options: { fields: { type: "type" }, eventTypes: { payment: [], refund: [], paymentFailed: [] } } }, 'options.fields.type: "type" is not a JSON path like $.data.order_id; options.fields.orderId: Invalid input: expected string, received undefined; options.fields.paymentId: Invalid input: expected string, received undefined'],
      [{ provider: "stripe", account: "merchant_1", livemode: true, secret: STRIPE_SECRET }, "account: a Stripe account id (acct_...)"],
      [{ provider: "yolfi", account: "org_acredita_demo", livemode: true, secret: YOLFI_SECRET }, "account: is a demo account name; use your own provider account"],
      [{ provider: "lab", account: "lab-x", livemode: true, secret: "short" }, "secret: needs at least 8 characters"],
      [{ provider: "standard-webhooks", account: "sw-x", livemode: true, secret: "not-a-whsec-secret" }, "secret: must be whsec_ followed by base64"],
      [{ provider: "stripe", account: STRIPE_ACCOUNT, livemode: true, secret: STRIPE_SECRET, connect: true, extra: 1 }, 'body: Unrecognized key: "extra"'],
      [{ provider: "lab", account: "lab-x", livemode: true, connect: true }, "connect: only a Stripe endpoint can be a Connect endpoint"],
    ];
    for (const [body, error] of cases) {
      const answer = await api("POST", "/api/endpoints", body);
      assert.deepEqual([answer.status, answer.json.error], [400, error], JSON.stringify(body));
    }
    assert.equal(await (await db()).endpoint.count(), 4);
  });

  test("an admin's API key manages endpoints; only the operator creates a Stripe Connect endpoint (403 for the admin); a merchant's key is 403", async () => {
    const database = await db();
    const keyOf = async (role: "admin" | "merchant") => {
      const user = await createUserWithPassword(database, { email: `${role}@data-endpoints.test`, name: role, role, password: "quiet-harbour-lantern-2026" });
      assert.equal(user.kind, "created");
      const key = await createApiKeyAs(database, { id: "test", email: "test@example.test", name: "test", role: "admin", organizationId: "org_default" }, { userId: user.kind === "created" ? user.user.id : "", name: role, days: 1 });
      return key.kind === "created" ? key.key : assert.fail("no key");
    };
    const admin = { authorization: `Bearer ${await keyOf("admin")}` };
    const merchant = { authorization: `Bearer ${await keyOf("merchant")}` };
    const connect = { provider: "stripe", account: "acct_platform1", livemode: true, secret: STRIPE_SECRET, connect: true };
    const refused = await api("POST", "/api/endpoints", connect, admin);
    assert.deepEqual([refused.status, refused.json.error], [403, "connect: only the operator (API_TOKEN) creates a Stripe Connect endpoint"]);
    assert.equal((await api("GET", "/api/endpoints", undefined, merchant)).status, 403);
    assert.equal((await api("POST", "/api/endpoints", { provider: "lab", account: "lab-m", livemode: true }, merchant)).status, 403);
    assert.equal((await api("GET", "/api/endpoints", undefined, admin)).status, 200);
    const platform = await api("POST", "/api/endpoints", connect);
    assert.deepEqual([platform.status, platform.json.connect], [201, true]);
    assert.equal((await api("DELETE", `/api/endpoints/${platform.json.id as string}`)).status, 204);
    const audit = await database.auditEntry.findMany({ where: { targetId: platform.json.id as string }, orderBy: { at: "asc" }, select: { action: true, actorEmail: true, note: true } });
    assert.deepEqual(audit, [
      { action: "endpoint.create", actorEmail: "operator (API_TOKEN)", note: "stripe endpoint for acct_platform1 (live)" },
      { action: "endpoint.delete", actorEmail: "operator (API_TOKEN)", note: "stripe endpoint for acct_platform1 deleted; its URL answers 404 and its secrets were erased" },
    ]);
  });

  test("without ACREDITA_SECRETS_KEY (or with a malformed one) no secret is stored: 503 naming the variable", async () => {
    const key = process.env.ACREDITA_SECRETS_KEY;
    try {
      delete process.env.ACREDITA_SECRETS_KEY;
      const missing = await api("POST", "/api/endpoints", { provider: "lab", account: "lab-nokey", livemode: true });
      assert.deepEqual([missing.status, missing.json], [503, { error: "ACREDITA_SECRETS_KEY is not set: signing secrets are stored encrypted under it. Set it to 32 random bytes in base64 (openssl rand -base64 32) on every server, receiver and worker, then retry", code: "secrets_key_missing" }]);
      process.env.ACREDITA_SECRETS_KEY = "c2hvcnQ=";
      const malformed = await api("POST", "/api/endpoints", { provider: "lab", account: "lab-nokey", livemode: true });
      assert.deepEqual([malformed.status, malformed.json.code], [503, "secrets_key_invalid"]);
    } finally {
      process.env.ACREDITA_SECRETS_KEY = key;
    }
    assert.equal(await (await db()).endpoint.count({ where: { account: "lab-nokey" } }), 0);
  });
});

describe("rotation with an overlap, under a controlled clock", () => {
  const T0 = new Date("2026-12-01T12:00:00.000Z");
  const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

  test("both secrets verify during the overlap; after it the old one is refused 401 and the diagnosis names it expired", async () => {
    const created = await createEndpoint(await db(), { provider: "lab", account: "lab-rotation", livemode: true, processingMode: "inline" }, operator, { now: T0 });
    assert.equal(created.kind, "created");
    if (created.kind !== "created") return;
    const id = created.endpoint.id;
    const first = created.secret!;
    secretValues.push(first);
    const rotated = await rotateSecret(await db(), id, { overlapSeconds: 3_600 }, operator, { now: at(60) });
    assert.equal(rotated.kind, "rotated");
    if (rotated.kind !== "rotated") return;
    assert.deepEqual([rotated.label, rotated.previousExpiresAt], ["secret-2", "2026-12-01T13:01:00.000Z"]);
    const second = rotated.secret!;
    secretValues.push(second);

    const old = await deliverLabAt(id, labPayment("evt_de_rot_1", "ord_de_rot_1", 1000), first, at(3_659));
    assert.deepEqual([old.status, old.body.outcome], [200, "applied"]);
    const fresh = await deliverLabAt(id, labPayment("evt_de_rot_2", "ord_de_rot_2", 1000), second, at(3_659));
    assert.deepEqual([fresh.status, fresh.body.outcome], [200, "applied"]);
    const labels = await (await db()).webhookEvent.findMany({ where: { eventId: { in: ["evt_de_rot_1", "evt_de_rot_2"] } }, orderBy: { eventId: "asc" }, select: { secretLabel: true } });
    assert.deepEqual(labels.map((row) => row.secretLabel), ["secret-1", "secret-2"]);

    // The overlap ends at 13:01:00: from that instant on, the first secret is refused by itself (no change was made).
    const late = await deliverLabAt(id, labPayment("evt_de_rot_3", "ord_de_rot_3", 1000), first, at(3_660));
    assert.equal(late.status, 401);
    const refusal = await lastDecision(id);
    assert.deepEqual([refusal.verified, refusal.httpStatus, refusal.secretLabel, refusal.diagnosisCode], [false, 401, "secret-1", "diagnosis_expired_secret"]);
    assert.equal(refusal.diagnosis, "signed with an expired secret (secret-1, expired 2026-12-01T13:01:00.000Z at the end of its rotation's overlap): the sender still signs with the previous secret; give the sender the current one");
    const view = await api("GET", `/api/endpoints/${id}`);
    assert.deepEqual(
      (view.json.secrets as Record<string, unknown>[]).map((secret) => [secret.label, secret.state, secret.expiresAt]),
      [
        ["secret-1", "expired", "2026-12-01T13:01:00.000Z"],
        ["secret-2", "active", null],
      ],
    );
  });

  test("overlapSeconds 0 expires the previous secrets at once; a supplied secret is never echoed; the overlap is bounded", async () => {
    const created = await api("POST", "/api/endpoints", { provider: "stripe", account: "acct_rotation0", livemode: true, processingMode: "inline", secret: STRIPE_SECRET });
    const id = created.json.id as string;
    const rotated = await api("POST", `/api/endpoints/${id}/secrets`, { secret: STRIPE_NEXT, overlapSeconds: 0 });
    assert.equal(rotated.status, 201);
    assert.deepEqual(Object.keys(rotated.json).sort(), ["label", "previousExpiresAt"]);
    assert.equal(rotated.json.label, "secret-2");
    const body = JSON.stringify(stripeEvent("evt_de_rot0", "customer.created", { id: "cus_1", object: "customer" }));
    assert.equal((await deliverStripe(body, { secret: STRIPE_SECRET, endpoint: id })).status, 401);
    assert.equal((await lastDecision(id)).diagnosisCode, "diagnosis_expired_secret");
    assert.deepEqual([(await deliverStripe(body, { secret: STRIPE_NEXT, endpoint: id })).status], [200]);
    for (const overlapSeconds of [-1, 604_801, 1.5]) assert.equal((await api("POST", `/api/endpoints/${id}/secrets`, { secret: STRIPE_NEXT, overlapSeconds })).status, 400);
    const noSecret = await api("POST", `/api/endpoints/${id}/secrets`, {});
    assert.deepEqual([noSecret.status, noSecret.json.error], [400, "secret: required for a stripe endpoint (the signing secret the provider shows for this endpoint)"]);
    // The default overlap is a day.
    const standard = await api("POST", "/api/endpoints", { provider: "standard-webhooks", account: "sw-rotation", livemode: true });
    const before = Date.now();
    const daily = await api("POST", `/api/endpoints/${standard.json.id as string}/secrets`, {});
    assert.equal(daily.status, 201);
    assert.match(daily.json.secret as string, /^whsec_/);
    const expires = Date.parse(daily.json.previousExpiresAt as string);
    assert.ok(expires >= before + 86_400_000 && expires <= Date.now() + 86_400_000, daily.json.previousExpiresAt as string);
  });

  test("retiring: the last active secret of an enabled endpoint is 409; once another is active it retires at once and is named retired", async () => {
    const created = await api("POST", "/api/endpoints", { provider: "stripe", account: "acct_retire1", livemode: true, processingMode: "inline", secret: STRIPE_SECRET });
    const id = created.json.id as string;
    const last = await api("DELETE", `/api/endpoints/${id}/secrets/secret-1`);
    assert.deepEqual([last.status, last.json.code], [409, "last_active_secret"]);
    assert.equal((await api("POST", `/api/endpoints/${id}/secrets`, { secret: STRIPE_NEXT })).status, 201);
    const retired = await api("DELETE", `/api/endpoints/${id}/secrets/secret-1`);
    assert.deepEqual([retired.status, retired.json.label, retired.json.state], [200, "secret-1", "retired"]);
    assert.equal((await api("DELETE", `/api/endpoints/${id}/secrets/secret-9`)).status, 404);
    const body = JSON.stringify(stripeEvent("evt_de_retired", "customer.created", { id: "cus_2", object: "customer" }));
    assert.equal((await deliverStripe(body, { secret: STRIPE_SECRET, endpoint: id })).status, 401);
    assert.deepEqual([(await lastDecision(id)).diagnosisCode, (await lastDecision(id)).secretLabel], ["diagnosis_retired_secret", "secret-1"]);
    // A disabled endpoint may lose its last active secret; enabling it again then needs a rotation.
    assert.equal((await api("PATCH", `/api/endpoints/${id}`, { status: "disabled" })).status, 200);
    assert.equal((await api("DELETE", `/api/endpoints/${id}/secrets/secret-2`)).status, 200);
    const enable = await api("PATCH", `/api/endpoints/${id}`, { status: "enabled" });
    assert.deepEqual([enable.status, enable.json.code], [409, "no_active_secret"]);
  });
});

describe("disabled, deleted, and changes seen by every process", () => {
  test("a disabled endpoint answers 503 with Retry-After and is counted; enabled again it applies", async () => {
    const created = await api("POST", "/api/endpoints", { provider: "lab", account: "lab-off", livemode: true, processingMode: "inline" });
    const id = created.json.id as string;
    const secret = created.json.secret as string;
    const body = labPayment("evt_de_off", "ord_de_off", 2000);
    const sign = () => ({ "Lab-Signature": signTimestamped(secret, Math.floor(Date.now() / 1000), body) });
    const disabled = await api("PATCH", `/api/endpoints/${id}`, { status: "disabled" });
    assert.deepEqual([disabled.status, disabled.json.status], [200, "disabled"]);
    const request = new Request(`http://127.0.0.1/api/webhooks/${id}`, { method: "POST", body, headers: { "content-type": "application/json", ...sign() } });
    const { POST } = await import("@/app/api/webhooks/[endpoint]/route");
    const refused = await POST(request, { params: Promise.resolve({ endpoint: id }) });
    assert.deepEqual([refused.status, refused.headers.get("retry-after"), await refused.json()], [503, "600", { outcome: "rejected", reason: "endpoint disabled; deliveries are refused until it is enabled again, retry later" }]);
    const decision = await lastDecision(id);
    assert.deepEqual([decision.verified, decision.httpStatus, decision.reasonCode], [false, 503, "endpoint_disabled"]);
    assert.equal((await readOrder("ord_de_off")).status, "created");
    assert.equal((await api("PATCH", `/api/endpoints/${id}`, { status: "enabled" })).status, 200);
    const applied = await deliver(id, body, sign());
    assert.deepEqual([applied.status, applied.json.outcome], [200, "applied"]);
    assert.equal((await api("PATCH", `/api/endpoints/${id}`, { status: "paused" })).status, 400);
  });

  test("a deleted endpoint answers 404 like an unknown one; its events, decisions and row are kept, its ciphertexts erased", async () => {
    const created = await api("POST", "/api/endpoints", { provider: "lab", account: "lab-gone", livemode: true, processingMode: "inline" });
    const id = created.json.id as string;
    const secret = created.json.secret as string;
    const body = labPayment("evt_de_gone", "ord_de_gone", 2100);
    assert.equal((await deliver(id, body, { "Lab-Signature": signTimestamped(secret, Math.floor(Date.now() / 1000), body) })).status, 200);
    assert.equal((await api("DELETE", `/api/endpoints/${id}`)).status, 204);
    const after = await deliver(id, labPayment("evt_de_gone_2", "ord_de_gone", 2100), { "Lab-Signature": signTimestamped(secret, Math.floor(Date.now() / 1000), labPayment("evt_de_gone_2", "ord_de_gone", 2100)) });
    assert.deepEqual([after.status, after.json], [404, { outcome: "rejected", reason: "unknown webhook endpoint" }]);
    assert.equal((await api("GET", `/api/endpoints/${id}`)).status, 404);
    assert.equal((await api("DELETE", `/api/endpoints/${id}`)).status, 404);
    assert.equal((await api("PATCH", `/api/endpoints/${id}`, { status: "enabled" })).status, 404);
    assert.equal((await api("POST", `/api/endpoints/${id}/secrets`, {})).status, 404);
    const database = await db();
    assert.equal((await readOrder("ord_de_gone")).credited, 2100);
    assert.equal(await database.webhookEvent.count({ where: { endpoint: id } }), 1);
    const row = await database.endpoint.findUniqueOrThrow({ where: { id }, include: { secrets: true } });
    assert.ok(row.deletedAt);
    assert.deepEqual(row.secrets.map((stored) => [stored.label, stored.ciphertext, stored.retiredAt !== null]), [["secret-1", null, true]]);
  });

  test("a change written by another process (the counter moved, this process's cache not told) holds here within a second", async () => {
    const created = await api("POST", "/api/endpoints", { provider: "lab", account: "lab-elsewhere", livemode: true, processingMode: "inline" });
    const id = created.json.id as string;
    const secret = created.json.secret as string;
    const send = (eventId: string) => {
      const body = JSON.stringify({ id: eventId, type: "payment.approved", created: 1760181330, data: { payment_id: `pay_${eventId}`, order_id: "ord_de_nowhere", amount: 1, currency: "ARS" } });
      return deliver(id, body, { "Lab-Signature": signTimestamped(secret, Math.floor(Date.now() / 1000), body) });
    };
    // Served: verified, then dead-lettered as an unknown order (409, so the provider retries).
    assert.equal((await send("evt_de_else_1")).status, 409);
    // Another process disables it: the row and the counter change in the database only.
    await (await db()).$transaction([
      (await db()).endpoint.update({ where: { id }, data: { status: "disabled" } }),
      (await db()).configVersion.update({ where: { name: "endpoints" }, data: { version: { increment: 1 } } }),
    ]);
    await new Promise((resolve) => setTimeout(resolve, ENDPOINTS_VERSION_CHECK_MS + 50));
    const later = await send("evt_de_else_2");
    assert.equal(later.status, 503);
  });

  test("a change made in this process is not taken for another process's: the endpoint is loaded once, also after the next check of the counter", async () => {
    // The counter is known before the change, as in a process that has served deliveries.
    await resolveDataEndpoint(await db(), "ep_00000000000000000000", new Date());
    const created = await api("POST", "/api/endpoints", { provider: "lab", account: "lab-own-change", livemode: true, processingMode: "inline" });
    const id = created.json.id as string;
    const { statements, restore } = recordReads(driverOf(await db()));
    try {
      assert.equal((await resolveDataEndpoint(await db(), id, new Date())).kind, "served");
      await new Promise((resolve) => setTimeout(resolve, ENDPOINTS_VERSION_CHECK_MS + 50));
      assert.equal((await resolveDataEndpoint(await db(), id, new Date())).kind, "served");
    } finally {
      restore();
    }
    assert.equal(statements.filter((sql) => sql.includes('FROM "Endpoint"')).length, 1);
    assert.equal(statements.filter((sql) => sql.includes('FROM "ConfigVersion"')).length, 2);
  });

  test("resolving costs one indexed read per endpoint, then none while nothing changes; lastMatchedAt is written at most once a minute", async () => {
    const created = await api("POST", "/api/endpoints", { provider: "lab", account: "lab-reads", livemode: true, processingMode: "inline" });
    const id = created.json.id as string;
    const secret = created.json.secret as string;
    forgetCachedEndpoints();
    const { statements, restore } = recordReads(driverOf(await db()));
    const T = new Date();
    try {
      for (let index = 0; index < 5; index++) {
        const body = JSON.stringify({ id: `evt_de_reads_${index}`, type: "payment.approved", created: 1760181330, data: { payment_id: `p_${index}`, order_id: "ord_de_nowhere", amount: 1, currency: "ARS" } });
        const now = new Date(T.getTime() + index * 20_000);
        await receiveWebhook({ endpointName: id, headers: new Headers({ "content-type": "application/json", "Lab-Signature": signTimestamped(secret, Math.floor(now.getTime() / 1000), body) }), body: Buffer.from(body), now });
      }
    } finally {
      restore();
    }
    assert.equal(statements.filter((sql) => sql.includes('FROM "Endpoint"')).length, 1);
    // The change counter: read before the first load, then at most once a second (a loaded machine may
    // take longer than a second for the five).
    const versionReads = statements.filter((sql) => sql.includes('FROM "ConfigVersion"')).length;
    assert.ok(versionReads >= 1 && versionReads <= 5, `${versionReads} reads of the change counter`);
    // Deliveries at +0, +20, +40, +60, +80 s: written at +0 and +60 s only.
    const stored = await (await db()).endpointSecret.findFirstOrThrow({ where: { endpointId: id, label: "secret-1" } });
    assert.equal(stored.lastMatchedAt?.toISOString(), new Date(T.getTime() + LAST_MATCHED_WRITE_MS).toISOString());
    const view = await api("GET", `/api/endpoints/${id}`);
    assert.equal((view.json.secrets as Record<string, unknown>[])[0].lastMatchedAt, new Date(T.getTime() + 60_000).toISOString());
  });
});

describe("the rest of the pipeline", () => {
  test("an inline data endpoint's dead letter (unknown order) is retried through the same endpoint once the order exists; a deleted endpoint's is not retryable", async () => {
    const created = await api("POST", "/api/endpoints", { provider: "lab", account: "lab-dead", livemode: true, processingMode: "inline" });
    const id = created.json.id as string;
    const secret = created.json.secret as string;
    const send = async (eventId: string, orderId: string) => {
      const body = labPayment(eventId, orderId, 900);
      return deliver(id, body, { "Lab-Signature": signTimestamped(secret, Math.floor(Date.now() / 1000), body) });
    };
    assert.deepEqual([(await send("evt_de_dead_1", "ord_de_later")).status, (await send("evt_de_dead_2", "ord_de_never")).status], [409, 409]);
    const database = await db();
    const letters = await database.deadLetter.findMany({ where: { endpoint: id }, orderBy: { eventId: "asc" }, select: { id: true, category: true, secretLabel: true } });
    assert.deepEqual(letters.map((letter) => [letter.category, letter.secretLabel]), [["unknown_order", "secret-1"], ["unknown_order", "secret-1"]]);
    assert.equal((await createOrder("ord_de_later", 900)).status, 201);
    const retried = await retryDeadLetter(database, DEFAULT_ORG, letters[0].id, "support@data-endpoints.test");
    assert.deepEqual([retried.outcome, retried.reason], ["applied", "credited 900 ARS; order ord_de_later created -> paid; dead letter resolved"]);
    assert.equal((await readOrder("ord_de_later")).credited, 900);
    assert.equal((await api("DELETE", `/api/endpoints/${id}`)).status, 204);
    const gone = await retryDeadLetter(database, DEFAULT_ORG, letters[1].id, "support@data-endpoints.test");
    assert.deepEqual([gone.outcome, gone.reasonRef?.code], ["not_retryable", "retry_endpoint_gone"]);
  });
});

describe("secrets at rest", () => {
  /** A secret in every spelling it could leak in. */
  const spellings = (value: string) => [value, Buffer.from(value).toString("base64"), Buffer.from(value).toString("base64url"), Buffer.from(value).toString("hex"), ...(value.startsWith("whsec_") ? [Buffer.from(value.slice(6), "base64").toString("hex")] : [])];

  test("no secret value (raw, base64, hex) in the database file, its WAL (or any row on PostgreSQL), the log, or an API answer", async () => {
    assert.ok(secretValues.length >= 9, `${secretValues.length} secrets`);
    const needles = secretValues.flatMap(spellings);
    const stored = await storedText(TEST_DB);
    assert.ok(stored.includes("acs1:"), "the ciphertexts are there");
    const log = existsSync(process.env.LOG_FILE!) ? readFileSync(process.env.LOG_FILE!, "utf8") : "";
    for (const needle of needles) {
      assert.equal(stored.includes(needle), false, `database holds a secret (${needle.length} chars)`);
      assert.equal(log.includes(needle), false, `log holds a secret (${needle.length} chars)`);
      assert.equal(answers.some((answer) => answer.includes(needle)), false, `an API answer holds a secret (${needle.length} chars)`);
    }
    assert.ok(answers.length >= 30, `${answers.length} answers`);
    assert.ok(sentSignatures.size > 0);
  });
});
