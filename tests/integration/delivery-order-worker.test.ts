import "@/e2e/support/test-env";
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import fc from "fast-check";
import { closeDb, db } from "@/lib/db/client";
import { InboxWorker } from "@/lib/inbox/inbox-worker";
import type { RetryPolicy } from "@/lib/jobs/retry-policy";
import { TestClock } from "@/e2e/support/clock";
import { createOrder, deliver, readOrder } from "@/e2e/support/http";
import { charge, checkoutSession, deliverStripe, disputeObject, nowSeconds, refundObject, standardWebhooksHeaders, stripeEvent } from "@/e2e/support/providers";

// The rule "the books are the same for every delivery order", through the webhook endpoint, the inbox
// and the worker on the database under test: each lifecycle is delivered in creation order, newest
// first, and in orders fast-check picks (with duplicates), each run on its own order and payment ids;
// then two events touching one order are delivered at the same time. The exhaustive check of every
// permutation lives in tests/unit/delivery-order.test.ts, without a database.
process.env.WEBHOOK_PROCESSING_MODE = "inbox";
const STRIPE_SECRET = "whsec_delivery_order_0001";
process.env.STRIPE_WEBHOOK_SECRET = STRIPE_SECRET;
process.env.STRIPE_ACCOUNT_ID = "acct_delivery_order";
const SW_SECRET = `whsec_${Buffer.from("delivery-order-test-key-0001").toString("base64")}`;
process.env.STANDARD_WEBHOOKS_SECRET = SW_SECRET;
process.env.STANDARD_WEBHOOKS_ACCOUNT = "acct_sw_delivery_order";

const policy: RetryPolicy = { baseDelayMs: 60_000, maxDelayMs: 600_000, maxAttempts: 5, maxAgeSeconds: 86_400 };
after(closeDb);

/** One delivery: a Stripe event (its object built for run `run`) or a Standard Webhooks message. */
interface Delivery {
  id: string;
  send: (run: string) => Promise<{ status: number }>;
}

const stripe = (id: string, type: string, object: (run: string) => Record<string, unknown>, created: number): Delivery => ({
  id,
  send: (run) => deliverStripe(JSON.stringify(stripeEvent(`${id}_${run}`, type, object(run), { created })), { secret: STRIPE_SECRET }),
});

const standardWebhooks = (id: string, data: (run: string) => Record<string, unknown>, type: string, secondsAgo: number): Delivery => ({
  id,
  send: (run) => {
    const body = JSON.stringify({ type, data: data(run) });
    return deliver("standard-webhooks", body, standardWebhooksHeaders(`${id}_${run}`, body, SW_SECRET, nowSeconds() - secondsAgo));
  },
});

interface Lifecycle {
  name: string;
  amount: number;
  currency: string;
  deliveries: Delivery[];
  /** The books delivery in creation order must end with: status, credited (net), refunded, disputed, ledger kinds and amounts. */
  expected: { status: string; credited: number; refunded: number; disputed: number; ledger: [string, number][] };
}

const order = (run: string) => `ord_${run}`;
const intent = (run: string) => `pi_${run}`;
const paid = (amount: number): Delivery =>
  stripe("evt_paid", "checkout.session.completed", (run) => checkoutSession({ id: `cs_${run}`, paymentIntent: intent(run), clientReferenceId: order(run), amount, currency: "usd" }), 100);

const LIFECYCLES: Lifecycle[] = [
  {
    name: "payment + two partial refunds + one failed",
    amount: 10_000,
    currency: "USD",
    deliveries: (() => {
      const refundA = (run: string, status: string) => refundObject({ id: `re_A_${run}`, paymentIntent: intent(run), amount: 1_500, status, created: 200 });
      const refundB = (run: string) => refundObject({ id: `re_B_${run}`, paymentIntent: intent(run), amount: 2_000, status: "succeeded", created: 300 });
      return [
        paid(10_000),
        stripe("evt_snap_A", "charge.refunded", (run) => charge({ id: `ch_${run}`, paymentIntent: intent(run), amount: 10_000, amountRefunded: 1_500, currency: "usd", refunds: [refundA(run, "succeeded")] }), 200),
        stripe("evt_snap_B", "charge.refunded", (run) => charge({ id: `ch_${run}`, paymentIntent: intent(run), amount: 10_000, amountRefunded: 3_500, currency: "usd", refunds: [refundB(run), refundA(run, "succeeded")] }), 300),
        stripe("evt_fail_A", "charge.refund.updated", (run) => refundA(run, "failed"), 400),
      ];
    })(),
    expected: { status: "paid", credited: 8_000, refunded: 2_000, disputed: 0, ledger: [["credit", 10_000], ["refund", -1_500], ["refund", -2_000], ["refund_failed", 1_500]] },
  },
  {
    name: "payment + partial refund + dispute lost",
    amount: 10_000,
    currency: "USD",
    deliveries: (() => {
      const dp = (run: string, status: string, withReinstatement: boolean) =>
        disputeObject({ id: `dp_${run}`, paymentIntent: intent(run), amount: 10_000, status, balanceTransactions: [{ id: `txn_w_${run}`, amount: -10_000 }, ...(withReinstatement ? [{ id: `txn_r_${run}`, amount: 3_000 }] : [])] });
      return [
        paid(10_000),
        stripe("evt_refund", "charge.refunded", (run) => charge({ id: `ch_${run}`, paymentIntent: intent(run), amount: 10_000, amountRefunded: 3_000, currency: "usd" }), 200),
        stripe("evt_dp_created", "charge.dispute.created", (run) => dp(run, "needs_response", false), 300),
        stripe("evt_dp_closed", "charge.dispute.closed", (run) => dp(run, "lost", true), 400),
      ];
    })(),
    expected: { status: "dispute_lost", credited: 0, refunded: 3_000, disputed: 7_000, ledger: [["credit", 10_000], ["dispute_reinstatement", 3_000], ["dispute_withdrawal", -10_000], ["refund", -3_000]] },
  },
  {
    name: "dispute won",
    amount: 2_500,
    currency: "USD",
    deliveries: (() => {
      const dp = (run: string, status: string, withReinstatement: boolean) =>
        disputeObject({ id: `dp_${run}`, paymentIntent: intent(run), amount: 2_500, status, balanceTransactions: [{ id: `txn_w_${run}`, amount: -2_500 }, ...(withReinstatement ? [{ id: `txn_r_${run}`, amount: 2_500 }] : [])] });
      return [
        paid(2_500),
        stripe("evt_dp_withdrawn", "charge.dispute.funds_withdrawn", (run) => dp(run, "needs_response", false), 200),
        stripe("evt_dp_reinstated", "charge.dispute.funds_reinstated", (run) => dp(run, "won", true), 300),
        stripe("evt_dp_closed", "charge.dispute.closed", (run) => dp(run, "won", true), 300),
      ];
    })(),
    expected: { status: "paid", credited: 2_500, refunded: 0, disputed: 0, ledger: [["credit", 2_500], ["dispute_reinstatement", 2_500], ["dispute_withdrawal", -2_500]] },
  },
  {
    name: "async payment, then a refund",
    amount: 4_200,
    currency: "USD",
    deliveries: [
      stripe("evt_completed", "checkout.session.completed", (run) => checkoutSession({ id: `cs_${run}`, paymentIntent: intent(run), clientReferenceId: order(run), amount: 4_200, currency: "usd", paymentStatus: "unpaid" }), 100),
      stripe("evt_async_ok", "checkout.session.async_payment_succeeded", (run) => checkoutSession({ id: `cs_${run}`, paymentIntent: intent(run), clientReferenceId: order(run), amount: 4_200, currency: "usd" }), 200),
      stripe("evt_refund", "charge.refunded", (run) => charge({ id: `ch_${run}`, paymentIntent: intent(run), amount: 4_200, amountRefunded: 4_200, currency: "usd" }), 300),
    ],
    expected: { status: "refunded", credited: 0, refunded: 4_200, disputed: 0, ledger: [["credit", 4_200], ["refund", -4_200]] },
  },
  {
    name: "Standard Webhooks: a payment and two absolute refunded totals",
    amount: 1_000,
    currency: "EUR",
    deliveries: [
      standardWebhooks("msg_paid", (run) => ({ order_id: order(run), payment_id: `pay_${run}`, amount: 1_000, currency: "EUR" }), "payment.succeeded", 30),
      standardWebhooks("msg_refund_250", (run) => ({ order_id: order(run), payment_id: `pay_${run}`, amount: 1_000, currency: "EUR", amount_refunded: 250 }), "payment.refunded", 20),
      standardWebhooks("msg_refund_all", (run) => ({ order_id: order(run), payment_id: `pay_${run}`, amount: 1_000, currency: "EUR", amount_refunded: 1_000 }), "payment.refunded", 10),
    ],
    // Totals only: the money and the status are the same for every order; the refund lines may split differently.
    expected: { status: "refunded", credited: 0, refunded: 1_000, disputed: 0, ledger: [] },
  },
];

let runs = 0;

/** Delivers `sequence` of a lifecycle on a fresh order, drains the worker, and returns the order's books. */
async function runLifecycle(lifecycle: Lifecycle, sequence: Delivery[]) {
  const run = `do${++runs}_${Date.now().toString(36)}`;
  assert.equal((await createOrder(order(run), lifecycle.amount, lifecycle.currency)).status, 201);
  for (const delivery of sequence) assert.equal((await delivery.send(run)).status, 200, delivery.id);
  const worker = new InboxWorker(db, { policy, now: new TestClock().now, random: () => 0.5 });
  await worker.drain();
  const books = await readOrder(order(run));
  const pending = await (await db()).webhookEvent.count({ where: { status: { in: ["received", "failed", "processing"] }, eventId: { endsWith: `_${run}` } } });
  const dead = await (await db()).deadLetter.count({ where: { eventId: { endsWith: `_${run}` } } });
  return {
    status: books.status,
    credited: books.credited,
    refunded: books.refunded,
    disputed: books.disputed,
    ledger: lifecycle.expected.ledger.length === 0 ? [] : books.ledger.map((entry): [string, number] => [entry.kind, entry.amount]).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1])),
    pending,
    dead,
  };
}

describe("the books are the same for every delivery order, through the worker", () => {
  for (const lifecycle of LIFECYCLES) {
    test(`${lifecycle.name}: creation order, newest first, and sampled orders with duplicates`, async () => {
      const want = { ...lifecycle.expected, ledger: [...lifecycle.expected.ledger].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1])), pending: 0, dead: 0 };
      assert.deepEqual(await runLifecycle(lifecycle, lifecycle.deliveries), want, "creation order");
      assert.deepEqual(await runLifecycle(lifecycle, [...lifecycle.deliveries].reverse()), want, "newest first");
      const indices = lifecycle.deliveries.map((_, index) => index);
      await fc.assert(
        fc.asyncProperty(fc.shuffledSubarray(indices, { minLength: indices.length, maxLength: indices.length }), fc.array(fc.nat(indices.length - 1), { maxLength: 2 }), async (shuffled, duplicates) => {
          const sequence = [...shuffled, ...duplicates].map((index) => lifecycle.deliveries[index]);
          assert.deepEqual(await runLifecycle(lifecycle, sequence), want, sequence.map((delivery) => delivery.id).join(", "));
        }),
        { numRuns: 3, seed: 22 },
      );
    });
  }

  test("a refund and a dispute of one order delivered at the same time, applied by two workers at once, book both", async () => {
    const run = `conc_${Date.now().toString(36)}`;
    assert.equal((await createOrder(order(run), 10_000, "USD")).status, 201);
    assert.equal((await paid(10_000).send(run)).status, 200);
    await new InboxWorker(db, { policy, now: new TestClock().now, random: () => 0.5 }).drain();
    const refund = stripe("evt_refund", "charge.refunded", (id) => charge({ id: `ch_${id}`, paymentIntent: intent(id), amount: 10_000, amountRefunded: 3_000, currency: "usd" }), 200);
    const dispute = stripe("evt_dp", "charge.dispute.created", (id) => disputeObject({ id: `dp_${id}`, paymentIntent: intent(id), amount: 10_000, status: "needs_response", balanceTransactions: [{ id: `txn_w_${id}`, amount: -10_000 }] }), 300);
    assert.deepEqual((await Promise.all([refund.send(run), dispute.send(run)])).map((answer) => answer.status), [200, 200]);
    const workers = [1, 2].map(() => new InboxWorker(db, { policy, now: new TestClock().now, random: () => 0.5 }));
    await Promise.all(workers.map((worker) => worker.drain()));
    const books = await readOrder(order(run));
    assert.deepEqual([books.status, books.credited, books.refunded, books.disputed, books.ledger.length], ["disputed", -3_000, 3_000, 10_000, 3]);
  });
});
