import "@/e2e/support/test-env";
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { closeDb, db } from "@/lib/db/client";
import { InboxWorker } from "@/lib/inbox/inbox-worker";
import { getOrderTimeline } from "@/lib/orders/order-timeline";
import { TestClock } from "@/e2e/support/clock";
import { createOrder, deliver } from "@/e2e/support/http";
import { charge, checkoutSession, deliverStripe, stripeEvent } from "@/e2e/support/providers";
const DEFAULT_ORG = "org_default";

// A payload that does not name its order (a Checkout session found by the id stored with the order, a
// charge.refunded of its payment): the receiver answers 200 `accepted` without an order, and once the
// worker resolves the order, that receipt is on the order's timeline, so support can tell the provider
// got its 200 the first time.
process.env.WEBHOOK_PROCESSING_MODE = "inbox";
const SECRET = "whsec_receipt_timeline_0001";
process.env.STRIPE_WEBHOOK_SECRET = SECRET;
process.env.STRIPE_ACCOUNT_ID = "acct_receipt_timeline";
after(closeDb);

const timelineOf = async (orderId: string) =>
  (await getOrderTimeline(await db(), DEFAULT_ORG, orderId))!.decisions.map((row) => [row.eventId, row.source, row.outcome, row.httpStatus]).sort((a, b) => String(a).localeCompare(String(b)));

test("the receiver's 200 for an event that names no order joins the order's timeline once the worker finds the order; an unsigned body reusing the id does not", async () => {
  assert.equal((await createOrder("ord_receipt", 2_500, "USD", { checkoutSessionId: "cs_receipt" })).status, 201);
  const session = stripeEvent("evt_receipt_paid", "checkout.session.completed", checkoutSession({ id: "cs_receipt", paymentIntent: "pi_receipt", amount: 2_500, currency: "usd" }));
  assert.deepEqual((await deliverStripe(JSON.stringify(session), { secret: SECRET })).json.outcome, "accepted");
  const refund = stripeEvent("evt_receipt_refund", "charge.refunded", charge({ id: "ch_receipt", paymentIntent: "pi_receipt", amount: 2_500, amountRefunded: 1_000, currency: "usd" }));
  assert.deepEqual((await deliverStripe(JSON.stringify(refund), { secret: SECRET })).json.outcome, "accepted");
  // Someone without the secret posts a body with the same event id: refused (401), never linked.
  assert.equal((await deliver("stripe", JSON.stringify(session), { "Stripe-Signature": "t=1,v1=00" })).status, 401);
  const receipts = await (await db()).decision.findMany({ where: { eventId: { in: ["evt_receipt_paid", "evt_receipt_refund"] } }, select: { orderId: true } });
  assert.deepEqual(receipts.map((row) => row.orderId), [null, null, null]);
  assert.deepEqual(await timelineOf("ord_receipt"), []);

  await new InboxWorker(db, { now: new TestClock().now, random: () => 0.5 }).drain();
  assert.deepEqual(await timelineOf("ord_receipt"), [
    ["evt_receipt_paid", "receiver", "accepted", 200],
    ["evt_receipt_paid", "worker", "applied", null],
    ["evt_receipt_refund", "receiver", "accepted", 200],
    ["evt_receipt_refund", "worker", "applied", null],
  ]);
  const unsigned = await (await db()).decision.findMany({ where: { eventId: "evt_receipt_paid", verified: false }, select: { orderId: true } });
  assert.deepEqual(unsigned, [{ orderId: null }]);
});
