import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { customerEmailFrom } from "@/lib/providers/search-facts";
import { standardWebhooksOptionsSchema, standardWebhooksProvider } from "@/lib/providers/standard-webhooks";
import { stripeProvider } from "@/lib/providers/stripe";
import { yolfiOptionsSchema, yolfiProvider } from "@/lib/providers/yolfi";
import type { NormalizedEvent } from "@/lib/core/effect";

const endpoint = { name: "x", account: "acct_1", livemode: true };
const now = new Date("2026-12-02T12:00:00Z");

function parsed(result: ReturnType<typeof stripeProvider.parse>): NormalizedEvent {
  assert.ok(result.ok, JSON.stringify(result));
  return result.event;
}

function stripeEvent(type: string, object: Record<string, unknown>): Buffer {
  return Buffer.from(JSON.stringify({ id: "evt_1", object: "event", type, livemode: true, created: 1764676800, data: { object } }));
}

describe("customer e-mails kept for search", () => {
  test("an address is trimmed and lower-cased; anything that is not one is left out", () => {
    assert.equal(customerEmailFrom("  Ana.Pérez@Example.COM "), "ana.pérez@example.com");
    assert.equal(customerEmailFrom("a@b"), "a@b");
    for (const value of ["", "n/a", "ana@", "@example.com", "ana @example.com", "ana@@example.com", "ana@exa\u0000mple.com", "ana@exa\nmple.com", 42, null, { email: "a@b.c" }, `${"a".repeat(250)}@b.co`]) {
      assert.equal(customerEmailFrom(value), undefined, JSON.stringify(value));
    }
  });
});

describe("Stripe: the customer's e-mail and the charge id beside the effect", () => {
  test("a Checkout Session's customer_details.email wins over the prefilled customer_email", () => {
    const session = { id: "cs_1", object: "checkout.session", payment_status: "paid", payment_intent: "pi_1", client_reference_id: "ord_1", amount_total: 2500, currency: "usd", customer_email: "prefill@example.com", customer_details: { email: "Typed@Example.com" } };
    const event = parsed(stripeProvider.parse({ headers: new Headers(), body: stripeEvent("checkout.session.completed", session), now }, undefined, endpoint));
    assert.deepEqual([event.customerEmail, event.chargeId, event.effect.kind], ["typed@example.com", undefined, "payment"]);
    const prefilled = parsed(stripeProvider.parse({ headers: new Headers(), body: stripeEvent("checkout.session.completed", { ...session, customer_details: { email: null } }), now }, undefined, endpoint));
    assert.equal(prefilled.customerEmail, "prefill@example.com");
  });

  test("a charge gives its billing e-mail (else its receipt e-mail) and its own id; an intent its receipt e-mail and latest charge", () => {
    const charge = { id: "ch_3Abc", object: "charge", amount: 2500, amount_refunded: 2500, currency: "usd", payment_intent: "pi_1", metadata: { order_id: "ord_1" }, billing_details: { email: "Billing@Example.com" }, receipt_email: "receipt@example.com" };
    const refunded = parsed(stripeProvider.parse({ headers: new Headers(), body: stripeEvent("charge.refunded", charge), now }, undefined, endpoint));
    assert.deepEqual([refunded.customerEmail, refunded.chargeId], ["billing@example.com", "ch_3Abc"]);
    const receiptOnly = parsed(stripeProvider.parse({ headers: new Headers(), body: stripeEvent("charge.refunded", { ...charge, billing_details: { email: null } }), now }, undefined, endpoint));
    assert.equal(receiptOnly.customerEmail, "receipt@example.com");
    const intent = { id: "pi_1", object: "payment_intent", amount: 2500, amount_received: 2500, currency: "usd", metadata: { order_id: "ord_1" }, receipt_email: "ana@example.com", latest_charge: { id: "ch_3Latest", object: "charge" } };
    const succeeded = parsed(stripeProvider.parse({ headers: new Headers(), body: stripeEvent("payment_intent.succeeded", intent), now }, undefined, endpoint));
    assert.deepEqual([succeeded.customerEmail, succeeded.chargeId], ["ana@example.com", "ch_3Latest"]);
  });

  test("a refund names its charge; a value that is not an e-mail or a Stripe id is left out, and the event still applies", () => {
    const refund = { id: "re_1", object: "refund", amount: 500, currency: "usd", charge: "ch_3Refund", payment_intent: "pi_1", status: "succeeded", receipt_email: "not an e-mail" };
    const event = parsed(stripeProvider.parse({ headers: new Headers(), body: stripeEvent("refund.created", refund), now }, undefined, endpoint));
    assert.deepEqual([event.customerEmail, event.chargeId, event.effect.kind], [undefined, "ch_3Refund", "refund"]);
    const odd = parsed(stripeProvider.parse({ headers: new Headers(), body: stripeEvent("payment_intent.succeeded", { id: "pi_2", object: "payment_intent", amount: 1, amount_received: 1, currency: "usd", metadata: { order_id: "o" }, latest_charge: "ch:1" }), now }, undefined, endpoint));
    assert.equal(odd.chargeId, undefined);
  });
});

describe("Yolfi and Standard Webhooks: the e-mail through the endpoint's mapped field", () => {
  const yolfiBody = Buffer.from(JSON.stringify({ id: "evt_y", type: "payment.confirmed", orgId: "acct_1", livemode: true, data: { paymentId: "ypay_1", merchantOrderId: "ord_1" }, payer: { email: "Payer@Example.com" } }));

  test("Yolfi keeps no e-mail unless the endpoint maps one", () => {
    const unmapped = parsed(yolfiProvider.parse({ headers: new Headers(), body: yolfiBody, now }, yolfiOptionsSchema.parse(undefined), endpoint));
    assert.equal(unmapped.customerEmail, undefined);
    const mapped = parsed(yolfiProvider.parse({ headers: new Headers(), body: yolfiBody, now }, yolfiOptionsSchema.parse({ fields: { customerEmail: "$.payer.email" } }), endpoint));
    assert.equal(mapped.customerEmail, "payer@example.com");
    assert.equal(yolfiOptionsSchema.safeParse({ fields: { customerEmail: "payer.email" } }).success, false);
  });

  test("Standard Webhooks reads its mapped customerEmail; a missing or invalid one is left out, never a 422", () => {
    const options = standardWebhooksOptionsSchema.parse({
      fields: { type: "$.type", orderId: "$.data.order_id", paymentId: "$.data.payment_id", customerEmail: "$.data.customer_email" },
      eventTypes: { payment: ["payment.succeeded"], refund: [], paymentFailed: [] },
      amount: "not-sent",
    });
    const headers = new Headers({ "webhook-id": "msg_1", "webhook-timestamp": "1764676800" });
    const body = (email: unknown) => Buffer.from(JSON.stringify({ type: "payment.succeeded", data: { order_id: "ord_1", payment_id: "pay_1", customer_email: email } }));
    assert.equal(parsed(standardWebhooksProvider.parse({ headers, body: body("Ana@Example.com"), now }, options, endpoint)).customerEmail, "ana@example.com");
    assert.equal(parsed(standardWebhooksProvider.parse({ headers, body: body(17), now }, options, endpoint)).customerEmail, undefined);
  });
});
