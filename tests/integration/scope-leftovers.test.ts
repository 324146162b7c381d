import { TEST_LAB_SECRET } from "@/e2e/support/test-env";
// Red team: smaller holes left around the scoped keys and the amount rule (each low on its own).
//
// 1. A payment dead-lettered BEFORE the upgrade keeps its old normalised payload (`amount: null` for a
//    Stripe session without amount_total, which the old code produced). A retry after the upgrade
//    re-runs that stored payload (lib/triage/retry-dead-letter.ts, no re-parse) and the
//    core reads `null` as "not comparable": credited at the order's price, the very thing
//    `amount_missing` forbids (lib/apply/apply-effect.ts).
// 2. A Stripe Checkout Session with amount_total but WITHOUT currency is credited: the currency check
//    is skipped when the payload has none (lib/providers/stripe.ts `currency ?? null`,
//    apply-effect.ts:91). Stripe always signs the session's currency, as it does its amount.
// 3. The fulfilment message of a payment from a TEST endpoint is the same `order.paid` a live one is,
//    to the same FULFILMENT_WEBHOOK_URL, with nothing saying "test" (lib/outbox/fulfilment-message.ts:4-13):
//    the holder of a test secret (the one `stripe listen` prints on a laptop) triggers a fulfilment the
//    merchant cannot tell from a real one.
// 4. Parked events are woken across scopes: a lab payment whose payment id equals a Stripe intent id
//    makes that parked Stripe event due now (lib/events/webhook-events.ts matched paymentKey alone),
//    so a lab-secret holder can burn another provider's retry budget (each wake is one more attempt).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { closeDb, db } from "@/lib/db/client";
import { retryDeadLetter } from "@/lib/triage/retry-dead-letter";
import { createOrder, deliver, deliverLab, labEvent, readOrder } from "@/e2e/support/http";
import { checkoutSession, stripeEvent, stripeHeader } from "@/e2e/support/providers";
const DEFAULT_ORG = "org_default";

const STRIPE_SECRET = "whsec_redteam_leftovers_live_0001";
const STRIPE_TEST_SECRET = "whsec_redteam_leftovers_test_0001";
process.env.WEBHOOK_PROCESSING_MODE = "inline";
process.env.STRIPE_WEBHOOK_SECRET = STRIPE_SECRET;
process.env.STRIPE_TEST_WEBHOOK_SECRET = STRIPE_TEST_SECRET;
process.env.FULFILMENT_WEBHOOK_URL = "http://127.0.0.1:9/fulfil";
process.env.FULFILMENT_WEBHOOK_SECRET = "redteam-fulfilment-secret-0001";
process.env.INBOX_WORKER_IN_PROCESS = "false";
const ACCOUNT = "acct_redteam_leftovers";
process.env.STRIPE_ACCOUNT_ID = ACCOUNT;

function postStripe(endpoint: "stripe" | "stripe-test", event: Record<string, unknown>, secret: string) {
  const body = JSON.stringify(event);
  return deliver(endpoint, body, { "Stripe-Signature": stripeHeader(body, secret) });
}

before(async () => {
  for (const [id, amount, currency, livemode] of [
    ["ord_rt_old_letter", 7000, "USD", true],
    ["ord_rt_nocurrency", 2500000, "ARS", true],
    ["ord_rt_test_fulfil", 1200, "USD", false],
    ["ord_rt_wake_lab", 300, "USD", true],
  ] as const) {
    assert.equal((await createOrder(id, amount, currency, { livemode })).status, 201, id);
  }
});
after(closeDb);

describe("leftovers of the scoped keys and the amount rule", () => {
  test("a pre-upgrade dead letter of a Stripe session without amount is not credited at the order's price on retry", async () => {
    // As the previous release normalised checkout.session.completed without amount_total.
    const payload = { eventId: "evt_rt_old_letter", type: "checkout.session.completed", livemode: true, createdAt: 1764400000, effect: { kind: "payment", paymentKey: "pi_rt_old_letter", orderRef: { orderId: "ord_rt_old_letter", checkoutSessionId: "cs_rt_old_letter" }, amount: null, currency: "usd" } };
    const letter = await (await db()).deadLetter.create({
      data: { dedupeKey: `stripe:${ACCOUNT}:live:evt_rt_old_letter:h`, provider: "stripe", endpoint: "stripe", account: ACCOUNT, livemode: true, eventId: "evt_rt_old_letter", eventType: "checkout.session.completed", orderId: "ord_rt_old_letter", bodyHash: "h", payload: JSON.stringify(payload), category: "unknown_order", reason: "unknown order ord_rt_old_letter", retryable: true, nextAction: "check the order exists in the store, then retry" },
    });
    const result = await retryDeadLetter(await db(), DEFAULT_ORG, letter.id, "redteam");
    const order = await readOrder("ord_rt_old_letter");
    assert.deepEqual({ order: order.status, credited: order.credited }, { order: "created", credited: 0 }, `credited at the order's price: ${JSON.stringify(result)}`);
  });

  test("a Stripe session with amount_total but no currency is not credited", async () => {
    const session = checkoutSession({ id: "cs_rt_nocurrency", paymentIntent: "pi_rt_nocurrency", clientReferenceId: "ord_rt_nocurrency", amount: 2500000, currency: "usd" });
    delete session.currency;
    const result = await postStripe("stripe", stripeEvent("evt_rt_nocurrency", "checkout.session.completed", session), STRIPE_SECRET);
    const order = await readOrder("ord_rt_nocurrency");
    assert.deepEqual({ status: result.status, order: order.status, credited: order.credited }, { status: 422, order: "created", credited: 0 }, JSON.stringify(result.json));
  });

  test("a test endpoint's payment never produces a fulfilment indistinguishable from a live one", async () => {
    const session = checkoutSession({ id: "cs_rt_test_fulfil", paymentIntent: "pi_rt_test_fulfil", clientReferenceId: "ord_rt_test_fulfil", amount: 1200, currency: "usd" });
    const result = await postStripe("stripe-test", stripeEvent("evt_rt_test_fulfil", "checkout.session.completed", { ...session, livemode: false }, { livemode: false }), STRIPE_TEST_SECRET);
    assert.deepEqual([result.status, result.json.outcome], [200, "applied"], JSON.stringify(result.json));
    const message = await (await db()).outboxMessage.findFirst({ where: { orderId: "ord_rt_test_fulfil" } });
    const body = message ? (JSON.parse(message.body) as Record<string, unknown>) : undefined;
    assert.ok(message === null || body?.livemode === false, `test payment queued an order.paid fulfilment with no live/test flag: ${message?.body}`);
  });

  test("a lab payment does not wake a parked Stripe event that shares its payment id", async () => {
    const later = new Date(Date.now() + 3_600_000);
    const parked = await (await db()).webhookEvent.create({
      data: { provider: "stripe", endpoint: "stripe", account: ACCOUNT, livemode: true, eventId: "evt_rt_parked", type: "charge.refunded", bodyHash: "hp", orderId: "ord_rt_somewhere", paymentKey: "pi_rt_shared_wake", payload: "{}", status: "failed", attempts: 3, nextAttemptAt: later },
    });
    const lab = await deliverLab(labEvent("evt_rt_wake_lab", "payment.approved", "ord_rt_wake_lab", "pi_rt_shared_wake", 300, "USD"), { secret: TEST_LAB_SECRET });
    assert.deepEqual([lab.status, lab.json.outcome], [200, "applied"]);
    const after = await (await db()).webhookEvent.findUniqueOrThrow({ where: { id: parked.id } });
    assert.equal(after.nextAttemptAt?.toISOString(), later.toISOString(), "the lab payment woke another provider's parked event");
  });
});
