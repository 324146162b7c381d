import assert from "node:assert/strict";
import { test } from "node:test";
import { paymentKeyOfPayload, providerPaymentLink } from "@/lib/dead-letters/provider-payment-link";

test("a Stripe payment links its dashboard page, under /test/ for a test-mode payment", () => {
  assert.deepEqual(providerPaymentLink("stripe", "pi_3Q0abc", true), { providerName: "Stripe", url: "https://dashboard.stripe.com/payments/pi_3Q0abc" });
  assert.deepEqual(providerPaymentLink("stripe", "pi_3Q0abc", false), { providerName: "Stripe", url: "https://dashboard.stripe.com/test/payments/pi_3Q0abc" });
});

test("no link without a known pattern: another provider, a key that is not a PaymentIntent id, no key", () => {
  assert.equal(providerPaymentLink("lab", "pay_1", false), undefined);
  assert.equal(providerPaymentLink("yolfi", "pay_1", true), undefined);
  assert.equal(providerPaymentLink("stripe", "ch_1/../../x", true), undefined);
  assert.equal(providerPaymentLink("stripe", null, true), undefined);
  assert.equal(providerPaymentLink("__proto__", "pi_1", true), undefined);
});

test("the payment key is read from a stored normalised event, null when it has none or is not JSON", () => {
  assert.equal(paymentKeyOfPayload(JSON.stringify({ eventId: "evt_1", effect: { kind: "payment", paymentKey: "pi_9" } })), "pi_9");
  assert.equal(paymentKeyOfPayload(JSON.stringify({ eventId: "evt_1", effect: { kind: "record_only", reason: "x" } })), null);
  assert.equal(paymentKeyOfPayload("not json"), null);
});
