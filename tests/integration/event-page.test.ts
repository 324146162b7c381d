import { TEST_API_TOKEN, TEST_LAB_SECRET } from "@/e2e/support/test-env";
// A stored event as a person inspects it (lib/events/event-detail.ts through GET /api/events/<id> and
// GET /api/events?eventId=): its payload or when and why it was purged, header names without values, the
// endpoint and secret label, every decision with its reason in the reader's language, what it booked,
// its dead letters and outbox rows; who may read the payload; the redaction retention leaves.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import * as eventRoute from "@/app/api/events/[id]/route";
import * as eventsRoute from "@/app/api/events/route";
import { createApiKeyAs } from "@/lib/auth/api-keys";
import { createUserWithPassword } from "@/lib/auth/users";
import { closeDb, db } from "@/lib/db/client";
import { getEventDetail } from "@/lib/events/event-detail";
import { InboxWorker } from "@/lib/inbox/inbox-worker";
import { runRetentionIfDue } from "@/lib/retention/retention-schedule";
import { createOrder, deliver, deliverLab, labEvent, sentSignatures } from "@/e2e/support/http";
import { deliverStripe, paymentIntent, stripeEvent } from "@/e2e/support/providers";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";
const DEFAULT_ORG = "org_default";

// The lab applies inline; Stripe stores in the inbox (its default) and a worker applies.
process.env.FULFILMENT_WEBHOOK_URL = "https://merchant.example/fulfil";
const STRIPE_SECRET = "whsec_event_page_live_0001";
const STRIPE_TEST_SECRET = "whsec_event_page_test_0001";
process.env.STRIPE_WEBHOOK_SECRET = STRIPE_SECRET;
process.env.STRIPE_TEST_WEBHOOK_SECRET = STRIPE_TEST_SECRET;
process.env.STRIPE_ACCOUNT_ID = "acct_event_page";

const admin = { id: "admin-events", email: "admin@events.test", name: "Admin", role: "admin" as const, organizationId: "org_default" };
const keys: Record<"merchant" | "support", string> = { merchant: "", support: "" };

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function getEvent(id: string, headers: Record<string, string> = { authorization: `Bearer ${TEST_API_TOKEN}` }): Promise<{ status: number; json: Json; text: string }> {
  const response = await eventRoute.GET(new Request(`http://127.0.0.1/api/events/${id}`, { headers }), { params: Promise.resolve({ id }) });
  const text = await response.text();
  return { status: response.status, json: JSON.parse(text) as Json, text };
}

async function lookup(query: string, headers: Record<string, string> = { authorization: `Bearer ${TEST_API_TOKEN}` }): Promise<{ status: number; json: Json }> {
  const response = await eventsRoute.GET(new Request(`http://127.0.0.1/api/events${query}`, { headers }));
  return { status: response.status, json: (await response.json()) as Json };
}

async function storedId(eventId: string, endpoint = "lab"): Promise<string> {
  return (await (await db()).webhookEvent.findFirstOrThrow({ where: { eventId, endpoint }, select: { id: true } })).id;
}

before(async () => {
  assert.equal((await createOrder("ord_ev_1", 150000, "ARS")).status, 201);
  assert.equal((await createOrder("ord_ev_2", 2500, "USD")).status, 201);
  assert.equal((await deliverLab(labEvent("evt_ev_pay", "payment.approved", "ord_ev_1", "pay_ev_1", 150000))).json.outcome, "applied");
  // The same delivery again (a duplicate), then the same id with another body (a conflict, dead-lettered),
  // then an unsigned body claiming the id (refused, unverified).
  assert.equal((await deliverLab(labEvent("evt_ev_pay", "payment.approved", "ord_ev_1", "pay_ev_1", 150000), { timestamp: Math.floor(Date.now() / 1000) + 1 })).json.outcome, "duplicate");
  assert.equal((await deliverLab(labEvent("evt_ev_pay", "payment.approved", "ord_ev_1", "pay_ev_1", 999))).status, 409);
  const forged = labEvent("evt_ev_pay", "payment.approved", "ord_ev_1", "pay_ev_1", 1);
  assert.equal((await deliver("lab", forged, { "Lab-Signature": signTimestamped("not-the-lab-secret-00", Math.floor(Date.now() / 1000), forged) })).status, 401);

  // Stripe: the same event id on the live and the test endpoint (two stored events), with an e-mail.
  const intent = { ...paymentIntent({ id: "pi_ev_2", orderId: "ord_ev_2", amount: 2500, currency: "usd" }), receipt_email: "Buyer@Example.com", latest_charge: "ch_ev_2" };
  assert.equal((await deliverStripe(JSON.stringify(stripeEvent("evt_ev_stripe", "payment_intent.succeeded", intent)), { secret: STRIPE_SECRET })).json.outcome, "accepted");
  assert.equal((await deliverStripe(JSON.stringify(stripeEvent("evt_ev_stripe", "payment_intent.succeeded", intent, { livemode: false })), { secret: STRIPE_TEST_SECRET, endpoint: "stripe-test" })).json.outcome, "accepted");
  await new InboxWorker(db, { policy: { baseDelayMs: 60_000, maxDelayMs: 600_000, maxAttempts: 5, maxAgeSeconds: 86_400 }, leaseMs: 30_000, random: () => 0.5 }).drain();

  const client = await db();
  for (const role of ["merchant", "support"] as const) {
    const user = await createUserWithPassword(client, { email: `${role}@events.test`, name: role, role, password: "quiet-harbour-lantern-2026" });
    if (user.kind !== "created") assert.fail("user not created");
    const key = await createApiKeyAs(client, admin, { userId: user.user.id, name: "events", days: 30 });
    keys[role] = key.kind === "created" ? key.key : assert.fail("no key");
  }
});
after(closeDb);

describe("GET /api/events/<id>", () => {
  test("an applied event: its payload, header names without values, endpoint and secret label, decisions, ledger entry, delivery and outbox row", async () => {
    const id = await storedId("evt_ev_pay");
    const { status, json, text } = await getEvent(id);
    assert.equal(status, 200);
    assert.deepEqual(
      [json.id, json.provider, json.endpoint, json.account, json.livemode, json.eventId, json.type, json.status, json.attempts, json.orderId, json.paymentId, json.chargeId, json.secretLabel],
      [id, "lab", "lab", "lab", true, "evt_ev_pay", "payment.approved", "processed", 1, "ord_ev_1", "pay_ev_1", null, "LAB_WEBHOOK_SECRET[0]"],
    );
    assert.deepEqual(json.payload, { state: "kept", json: { eventId: "evt_ev_pay", type: "payment.approved", livemode: true, createdAt: 1760181330, effect: { kind: "payment", paymentKey: "pay_ev_1", orderRef: { orderId: "ord_ev_1" }, amount: 150000, currency: "ARS" } } });
    assert.deepEqual(json.headers, [
      { name: "content-type", signature: false },
      { name: "lab-signature", signature: true },
    ]);
    // Every decision about the id at this endpoint, the unsigned one marked unverified.
    assert.deepEqual(
      json.decisions.map((decision: Json) => [decision.outcome, decision.httpStatus, decision.verified, decision.reasonCode]),
      [
        ["applied", 200, true, "credited"],
        ["duplicate", 200, true, "duplicate_event"],
        ["dead_lettered", 409, true, "event_conflict"],
        ["rejected", 401, false, "signature_mismatch"],
      ],
    );
    assert.equal(json.decisions[0].reasonText, "credited ARS 1,500.00; order ord_ev_1 created → paid");
    assert.equal(json.decisionCount, 4);
    assert.deepEqual(json.ledger.map((entry: Json) => [entry.businessKey, entry.kind, entry.amount, entry.currency, entry.orderId]), [["credit:lab:lab:live:pay_ev_1", "credit", 150000, "ARS", "ord_ev_1"]]);
    assert.deepEqual([json.delivery.orderId, json.delivery.paymentId], ["ord_ev_1", "pay_ev_1"]);
    assert.deepEqual(json.deadLetters.map((letter: Json) => [letter.category, letter.status, letter.reasonText]), [["conflict", "open", "event id evt_ev_pay reused with a different signed body; the stored event was kept"]]);
    assert.deepEqual(json.outbox.map((message: Json) => [message.target, message.status, message.attempts]), [["https://merchant.example/fulfil", "pending", 0]]);
    assert.equal("body" in json.outbox[0], false);
    // No signature value, no secret.
    for (const signature of sentSignatures) assert.equal(text.includes(signature), false, "a signature value in the answer");
    assert.equal(text.includes(TEST_LAB_SECRET), false);
  });

  test("reasons come in the reader's language (Accept-Language or the language switch's cookie)", async () => {
    const id = await storedId("evt_ev_pay");
    const spanish = await getEvent(id, { authorization: `Bearer ${TEST_API_TOKEN}`, "accept-language": "es-AR,es;q=0.9" });
    assert.match(spanish.json.decisions[0].reasonText, /^se acreditaron \$\s1\.500,00; orden ord_ev_1: creada → pagada$/);
    const cookie = await getEvent(id, { authorization: `Bearer ${TEST_API_TOKEN}`, "accept-language": "en", cookie: "NEXT_LOCALE=es-AR" });
    assert.equal(cookie.json.decisions[0].reasonText, spanish.json.decisions[0].reasonText);
  });

  test("a Stripe event stored in the inbox: its signature header by name, the e-mail for support, hidden with the payload from a merchant", async () => {
    const id = await storedId("evt_ev_stripe", "stripe");
    const support = await getEvent(id, { authorization: `Bearer ${keys.support}` });
    assert.equal(support.status, 200);
    assert.deepEqual([support.json.status, support.json.orderId, support.json.chargeId, support.json.customerEmail, support.json.payload.state], ["processed", "ord_ev_2", "ch_ev_2", "buyer@example.com", "kept"]);
    assert.deepEqual(support.json.headers.filter((header: Json) => header.signature), [{ name: "stripe-signature", signature: true }]);
    assert.deepEqual(support.json.decisions.map((decision: Json) => [decision.outcome, decision.source]), [["accepted", "receiver"], ["applied", "worker"]]);
    const merchant = await getEvent(id, { authorization: `Bearer ${keys.merchant}` });
    assert.equal(merchant.status, 200);
    assert.deepEqual([merchant.json.payload, merchant.json.customerEmail], [{ state: "hidden" }, null]);
    assert.equal(merchant.text.includes("buyer@example.com"), false);
    assert.deepEqual(merchant.json.ledger.map((entry: Json) => entry.businessKey), ["credit:stripe:acct_event_page:live:pi_ev_2"]);
  });

  test("401 without credentials, 404 for an id no event has, 405 for another method", async () => {
    assert.equal((await getEvent("x", {})).status, 401);
    assert.deepEqual(await getEvent("no-such-event"), { status: 404, json: { error: "no stored event with this id", code: "not_found" }, text: '{"error":"no stored event with this id","code":"not_found"}' });
    assert.equal(eventRoute.POST(new Request("http://127.0.0.1/api/events/x", { method: "POST" })).status, 405);
  });
});

describe("GET /api/events?eventId=", () => {
  test("lists the stored events holding a provider's event id: live and test both", async () => {
    const both = await lookup("?eventId=evt_ev_stripe&provider=stripe");
    assert.equal(both.status, 200);
    assert.equal(both.json.count, 2);
    assert.deepEqual(both.json.data.map((event: Json) => [event.endpoint, event.livemode, event.status]).sort(), [
      ["stripe", true, "processed"],
      // A test event of a live order is stored and ignored (docs/providers.md).
      ["stripe-test", false, "ignored"],
    ]);
    assert.deepEqual((await lookup("?eventId=evt_ev_stripe&endpoint=stripe-test")).json.data.map((event: Json) => event.livemode), [false]);
    assert.deepEqual((await lookup("?eventId=evt_ev_stripe&provider=lab")).json, { data: [], count: 0 });
    assert.deepEqual(await lookup("?provider=stripe"), { status: 400, json: { error: "eventId: required: the provider's event id (e.g. evt_…); GET /api/events/<id> takes Acredita's stored-event id", code: "invalid_query" } });
    assert.deepEqual(await lookup("?eventId=x&event=y"), { status: 400, json: { error: "event: not a parameter of GET /api/events (it takes eventId, provider, endpoint)", code: "invalid_query" } });
    assert.equal((await lookup("?eventId=x", {})).status, 401);
  });
});

describe("after retention", () => {
  test("the payload and the e-mail are gone; the page says when and after how many days; decisions and books stay", async () => {
    const now = new Date(Date.now() + 40 * 86_400_000);
    const report = await runRetentionIfDue(await db(), { now, retentionDays: 30, decisionRetentionDays: 3650, rejectionCountRetentionDays: 3650 });
    assert.ok(report && report.eventsPurged >= 3, JSON.stringify(report));
    const id = await storedId("evt_ev_stripe", "stripe");
    const { json, text } = await getEvent(id);
    assert.deepEqual(json.payload, { state: "purged", purgedAt: now.toISOString(), retentionDays: 30 });
    assert.equal(json.customerEmail, null);
    assert.equal(text.includes("buyer@example.com"), false);
    assert.equal(text.includes("pi_ev_2\",\"orderRef"), false);
    assert.equal(json.paymentId, "pi_ev_2");
    assert.deepEqual(json.decisions.map((decision: Json) => decision.outcome), ["accepted", "applied"]);
    assert.equal(json.ledger.length, 1);
    const stored = await (await db()).webhookEvent.findUniqueOrThrow({ where: { id }, select: { payload: true, customerEmail: true, chargeId: true, headerNames: true } });
    assert.deepEqual([stored.payload, stored.customerEmail, stored.chargeId, JSON.parse(stored.headerNames!).includes("stripe-signature")], ["", null, "ch_ev_2", true]);
    // The page reads the same detail: a merchant and support alike see that it was purged, not "hidden".
    assert.equal((await getEventDetail(await db(), DEFAULT_ORG, id, { payloads: false }))?.payload.state, "purged");
  });
});
