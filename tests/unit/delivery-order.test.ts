import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import type { NormalizedEvent } from "@/lib/core/effect";
import { stripeProvider } from "@/lib/providers/stripe";
import { yolfiProvider } from "@/lib/providers/yolfi";
import { standardWebhooksOptionsSchema, standardWebhooksProvider } from "@/lib/providers/standard-webhooks";
import { charge, checkoutSession, disputeObject, paymentIntent, refundObject, stripeEvent } from "@/e2e/support/providers";
import { InMemoryBooks, permutations, type BooksSnapshot } from "@/e2e/support/in-memory-books";

// The rule: the books (ledger entries and amounts, the order's status and running totals) are the same
// for every delivery order of the same events, duplicates included (Stripe does not order its events
// and resends them for three days). Each lifecycle's events are Stripe's own objects parsed by the
// provider modules, decided by the core and carried out on books in memory; every permutation of up to
// six events is tried, and fast-check adds duplicate deliveries anywhere.

const STRIPE = { name: "stripe", account: "acct_1", livemode: true };
const now = new Date("2026-12-02T12:00:00Z");

function stripeParsed(id: string, type: string, object: Record<string, unknown>, created: number): NormalizedEvent {
  const body = Buffer.from(JSON.stringify(stripeEvent(id, type, object, { created, account: "acct_1" })));
  const parsed = stripeProvider.parse({ headers: new Headers(), body, now }, undefined, STRIPE);
  assert.ok(parsed.ok, `${id}: ${parsed.ok ? "" : parsed.reason}`);
  return parsed.event;
}

interface Lifecycle {
  name: string;
  books: () => InMemoryBooks;
  events: NormalizedEvent[];
  /** What delivery in creation order ends with (checked exactly). */
  expected: (snapshot: BooksSnapshot) => void;
  /** Entries are compared too (every refund and dispute movement is named by an object); else money and status only. */
  sameEntries: boolean;
}

const stripeBooks = (orders: { id: string; amount: number; checkoutSessionId?: string }[]) => () => {
  const books = new InMemoryBooks({ provider: "stripe", account: "acct_1", livemode: true });
  for (const order of orders) books.addOrder({ ...order, currency: "USD" });
  return books;
};

const paid = (order: string, intent: string, amount: number, created = 100) =>
  stripeParsed(`evt_${order}_paid`, "checkout.session.completed", checkoutSession({ id: `cs_${order}`, paymentIntent: intent, clientReferenceId: order, amount, currency: "usd" }), created);

const refundA = (status: string) => refundObject({ id: "re_A", paymentIntent: "pi_1", amount: 1_500, status, created: 200 });
const refundB = refundObject({ id: "re_B", paymentIntent: "pi_1", amount: 2_000, status: "succeeded", created: 300 });

const LIFECYCLES: Lifecycle[] = [
  {
    name: "payment + two partial refunds (snapshots listing their refunds) + one failed, reported twice",
    books: stripeBooks([{ id: "ord_1", amount: 10_000 }]),
    events: [
      paid("ord_1", "pi_1", 10_000),
      stripeParsed("evt_snap_A", "charge.refunded", charge({ id: "ch_1", paymentIntent: "pi_1", amount: 10_000, amountRefunded: 1_500, currency: "usd", refunds: [refundA("succeeded")] }), 200),
      stripeParsed("evt_snap_B", "charge.refunded", charge({ id: "ch_1", paymentIntent: "pi_1", amount: 10_000, amountRefunded: 3_500, currency: "usd", refunds: [refundB, refundA("succeeded")] }), 300),
      stripeParsed("evt_fail_A", "charge.refund.updated", refundA("failed"), 400),
      stripeParsed("evt_fail_A2", "refund.failed", refundA("failed"), 400),
    ],
    sameEntries: true,
    expected: (books) => {
      assert.deepEqual(books.orders.ord_1, { status: "paid", refundedAmount: 2_000, disputedAmount: 0, net: 8_000 });
      assert.deepEqual(books.entries, [
        ["credit:stripe:acct_1:live:pi_1", "credit", 10_000],
        ["refund:stripe:acct_1:live:pi_1:id:re_A", "refund", -1_500],
        ["refund:stripe:acct_1:live:pi_1:id:re_B", "refund", -2_000],
        ["refund_failed:stripe:acct_1:live:pi_1:re_A", "refund_failed", 1_500],
      ]);
    },
  },
  {
    name: "payment + three partial refunds (running totals only, as API versions since 2022-11-15 send), the first failed, + the second refund's own event",
    books: stripeBooks([{ id: "ord_1", amount: 10_000 }]),
    events: [
      paid("ord_1", "pi_1", 10_000),
      stripeParsed("evt_snap_A", "charge.refunded", charge({ id: "ch_1", paymentIntent: "pi_1", amount: 10_000, amountRefunded: 1_500, currency: "usd" }), 200),
      stripeParsed("evt_snap_B", "charge.refunded", charge({ id: "ch_1", paymentIntent: "pi_1", amount: 10_000, amountRefunded: 3_500, currency: "usd" }), 300),
      stripeParsed("evt_fail_A", "refund.failed", refundA("failed"), 400),
      stripeParsed("evt_created_B", "refund.created", refundB, 300),
      // A third refund (1000) after A failed: the running total is B + C.
      stripeParsed("evt_snap_C", "charge.refunded", charge({ id: "ch_1", paymentIntent: "pi_1", amount: 10_000, amountRefunded: 3_000, currency: "usd" }), 500),
    ],
    sameEntries: false,
    expected: (books) => assert.deepEqual(books.orders.ord_1, { status: "paid", refundedAmount: 3_000, disputedAmount: 0, net: 7_000 }),
  },
  {
    name: "payment + partial refund + dispute lost (withdrawn in full, the refunded part reinstated)",
    books: stripeBooks([{ id: "ord_1", amount: 10_000 }]),
    events: (() => {
      const withdrawal = { id: "txn_w", amount: -10_000 };
      const reinstatement = { id: "txn_r", amount: 3_000 };
      const dp = (status: string, balanceTransactions: { id: string; amount: number }[]) => disputeObject({ id: "dp_1", paymentIntent: "pi_1", amount: 10_000, status, balanceTransactions });
      return [
        paid("ord_1", "pi_1", 10_000),
        stripeParsed("evt_refund", "charge.refunded", charge({ id: "ch_1", paymentIntent: "pi_1", amount: 10_000, amountRefunded: 3_000, currency: "usd", refunds: [refundObject({ id: "re_1", paymentIntent: "pi_1", amount: 3_000, status: "succeeded", created: 200 })] }), 200),
        stripeParsed("evt_dp_created", "charge.dispute.created", dp("needs_response", [withdrawal]), 300),
        stripeParsed("evt_dp_withdrawn", "charge.dispute.funds_withdrawn", dp("needs_response", [withdrawal]), 300),
        stripeParsed("evt_dp_closed", "charge.dispute.closed", dp("lost", [withdrawal, reinstatement]), 400),
        stripeParsed("evt_dp_reinstated", "charge.dispute.funds_reinstated", dp("lost", [withdrawal, reinstatement]), 400),
      ];
    })(),
    sameEntries: true,
    expected: (books) => {
      assert.deepEqual(books.orders.ord_1, { status: "dispute_lost", refundedAmount: 3_000, disputedAmount: 7_000, net: 0 });
      assert.deepEqual(books.entries.map(([, kind, amount]) => [kind, amount]), [["credit", 10_000], ["dispute_reinstatement", 3_000], ["dispute_withdrawal", -10_000], ["refund", -3_000]]);
    },
  },
  {
    name: "dispute won",
    books: stripeBooks([{ id: "ord_1", amount: 2_500 }]),
    events: (() => {
      const withdrawal = { id: "txn_w", amount: -2_500 };
      const reinstatement = { id: "txn_r", amount: 2_500 };
      const dp = (status: string, balanceTransactions: { id: string; amount: number }[]) => disputeObject({ id: "dp_1", paymentIntent: "pi_1", amount: 2_500, status, balanceTransactions });
      return [
        paid("ord_1", "pi_1", 2_500),
        stripeParsed("evt_dp_created", "charge.dispute.created", dp("needs_response", []), 200),
        stripeParsed("evt_dp_withdrawn", "charge.dispute.funds_withdrawn", dp("needs_response", [withdrawal]), 200),
        stripeParsed("evt_dp_review", "charge.dispute.updated", dp("under_review", [withdrawal]), 250),
        stripeParsed("evt_dp_reinstated", "charge.dispute.funds_reinstated", dp("won", [withdrawal, reinstatement]), 300),
        stripeParsed("evt_dp_closed", "charge.dispute.closed", dp("won", [withdrawal, reinstatement]), 300),
      ];
    })(),
    sameEntries: true,
    expected: (books) => assert.deepEqual([books.orders.ord_1, books.entries.length], [{ status: "paid", refundedAmount: 0, disputedAmount: 0, net: 2_500 }, 3]),
  },
  {
    name: "async payment: completed unpaid, then async_payment_succeeded, then fully refunded",
    books: stripeBooks([{ id: "ord_1", amount: 4_200, checkoutSessionId: "cs_async" }]),
    events: [
      stripeParsed("evt_completed", "checkout.session.completed", checkoutSession({ id: "cs_async", paymentIntent: "pi_1", amount: 4_200, currency: "usd", paymentStatus: "unpaid" }), 100),
      stripeParsed("evt_async_ok", "checkout.session.async_payment_succeeded", checkoutSession({ id: "cs_async", paymentIntent: "pi_1", amount: 4_200, currency: "usd" }), 200),
      stripeParsed("evt_intent", "payment_intent.succeeded", paymentIntent({ id: "pi_1", amount: 4_200, currency: "usd" }), 200),
      stripeParsed("evt_refunded", "charge.refunded", charge({ id: "ch_1", paymentIntent: "pi_1", amount: 4_200, amountRefunded: 4_200, currency: "usd", refunds: [refundObject({ id: "re_1", paymentIntent: "pi_1", amount: 4_200, status: "succeeded", created: 300 })] }), 300),
    ],
    sameEntries: true,
    expected: (books) => assert.deepEqual([books.orders.ord_1, books.entries.length, books.parked], [{ status: "refunded", refundedAmount: 4_200, disputedAmount: 0, net: 0 }, 2, []]),
  },
  {
    name: "two partial refunds, each snapshot listing its refunds",
    books: stripeBooks([{ id: "ord_1", amount: 10_000 }]),
    events: (() => {
      const first = refundObject({ id: "re_1", paymentIntent: "pi_1", amount: 2_000, status: "succeeded", created: 200 });
      const second = refundObject({ id: "re_2", paymentIntent: "pi_1", amount: 3_000, status: "pending", created: 300 });
      return [
        paid("ord_1", "pi_1", 10_000),
        stripeParsed("evt_r1", "charge.refunded", charge({ id: "ch_1", paymentIntent: "pi_1", amount: 10_000, amountRefunded: 2_000, currency: "usd", refunds: [first] }), 200),
        stripeParsed("evt_r2", "charge.refunded", charge({ id: "ch_1", paymentIntent: "pi_1", amount: 10_000, amountRefunded: 5_000, currency: "usd", refunds: [second, first] }), 300),
        stripeParsed("evt_r2_done", "refund.updated", { ...second, status: "succeeded" }, 350),
      ];
    })(),
    sameEntries: true,
    expected: (books) => {
      assert.deepEqual(books.orders.ord_1, { status: "paid", refundedAmount: 5_000, disputedAmount: 0, net: 5_000 });
      assert.deepEqual(books.entries.filter(([, kind]) => kind === "refund").map(([, , amount]) => amount), [-2_000, -3_000]);
    },
  },
  {
    name: "Yolfi: a payment confirmed twice under two event ids, with invoice events",
    books: () => new InMemoryBooks({ provider: "yolfi", account: "org_1", livemode: true }).addOrder({ id: "ord_y", amount: 150_000, currency: "ARS" }),
    events: [
      ["evt_y_invoice", "invoice.created"],
      ["evt_y_paid", "payment.confirmed"],
      ["evt_y_paid_again", "payment.confirmed"],
      ["evt_y_overdue", "invoice.overdue"],
    ].map(([id, type]) => {
      const body = Buffer.from(JSON.stringify({ id, type, orgId: "org_1", livemode: true, createdAt: "2026-11-29T12:00:00.000Z", data: { paymentId: "ypay_1", merchantOrderId: "ord_y", amount: "24.95", token: "USDT" } }));
      const parsed = yolfiProvider.parse({ headers: new Headers(), body, now }, { fields: {} }, { name: "yolfi", account: "org_1", livemode: true });
      assert.ok(parsed.ok);
      return parsed.event;
    }),
    sameEntries: true,
    expected: (books) => assert.deepEqual([books.orders.ord_y, books.entries.length], [{ status: "paid", refundedAmount: 0, disputedAmount: 0, net: 150_000 }, 1]),
  },
  {
    name: "Standard Webhooks: a payment and two absolute refunded totals, the second the whole payment",
    books: () => new InMemoryBooks({ provider: "standard-webhooks", account: "acct_sw", livemode: true }).addOrder({ id: "ord_sw", amount: 1_000, currency: "EUR" }),
    events: (() => {
      const options = standardWebhooksOptionsSchema.parse({
        fields: { type: "$.type", orderId: "$.data.order_id", paymentId: "$.data.payment_id", amount: "$.data.amount", currency: "$.data.currency", refundedTotal: "$.data.amount_refunded" },
        eventTypes: { payment: ["payment.succeeded"], refund: ["payment.refunded"], paymentFailed: ["payment.failed"] },
      });
      return (
        [
          ["msg_paid", "payment.succeeded", 100, undefined],
          ["msg_refund_250", "payment.refunded", 200, 250],
          ["msg_refund_all", "payment.refunded", 300, 1_000],
        ] as const
      ).map(([id, type, timestamp, refunded]) => {
        const body = Buffer.from(JSON.stringify({ type, data: { order_id: "ord_sw", payment_id: "pay_sw", amount: 1_000, currency: "EUR", ...(refunded === undefined ? {} : { amount_refunded: refunded }) } }));
        const headers = new Headers({ "webhook-id": id, "webhook-timestamp": String(timestamp) });
        const parsed = standardWebhooksProvider.parse({ headers, body, now }, options, { name: "standard-webhooks", account: "acct_sw", livemode: true });
        assert.ok(parsed.ok);
        return parsed.event;
      });
    })(),
    sameEntries: false,
    expected: (books) => assert.deepEqual(books.orders.ord_sw, { status: "refunded", refundedAmount: 1_000, disputedAmount: 0, net: 0 }),
  },
  {
    name: "a refund before its payment",
    books: stripeBooks([{ id: "ord_1", amount: 5_000 }]),
    events: [
      paid("ord_1", "pi_1", 5_000),
      stripeParsed("evt_refund", "charge.refunded", charge({ id: "ch_1", paymentIntent: "pi_1", amount: 5_000, amountRefunded: 5_000, currency: "usd" }), 200),
    ],
    sameEntries: true,
    expected: (books) => assert.deepEqual([books.orders.ord_1, books.parked, books.deadLetters], [{ status: "refunded", refundedAmount: 5_000, disputedAmount: 0, net: 0 }, [], []]),
  },
];

/** What must be the same for every delivery order: entries too, when every movement is named by an object. */
function comparable(snapshot: BooksSnapshot, sameEntries: boolean): unknown {
  if (sameEntries) return snapshot;
  const byKind: Record<string, number> = {};
  for (const [, kind, amount] of snapshot.entries) byKind[kind] = (byKind[kind] ?? 0) + amount;
  return { orders: snapshot.orders, parked: snapshot.parked, deadLetters: snapshot.deadLetters, netByKind: byKind.credit };
}

describe("the books are the same for every delivery order", () => {
  for (const lifecycle of LIFECYCLES) {
    test(`${lifecycle.name}: every permutation, then duplicates anywhere`, () => {
      assert.ok(lifecycle.events.length <= 6);
      const inOrder = lifecycle.books().deliver(lifecycle.events).snapshot();
      lifecycle.expected(inOrder);
      assert.deepEqual([inOrder.parked, inOrder.deadLetters], [[], []]);
      const want = comparable(inOrder, lifecycle.sameEntries);
      for (const order of permutations(lifecycle.events)) {
        const got = comparable(lifecycle.books().deliver(order).snapshot(), lifecycle.sameEntries);
        assert.deepEqual(got, want, `delivered as ${order.map((event) => event.eventId).join(", ")}`);
      }
      const indices = lifecycle.events.map((_, index) => index);
      fc.assert(
        fc.property(fc.shuffledSubarray(indices, { minLength: indices.length, maxLength: indices.length }), fc.array(fc.tuple(fc.nat(indices.length - 1), fc.nat(20)), { maxLength: 6 }), (order, duplicates) => {
          const sequence = order.map((index) => lifecycle.events[index]);
          for (const [index, position] of duplicates) sequence.splice(position % (sequence.length + 1), 0, lifecycle.events[index]);
          assert.deepEqual(comparable(lifecycle.books().deliver(sequence).snapshot(), lifecycle.sameEntries), want);
        }),
        { numRuns: 200 },
      );
    });
  }
});

test("refunds created and failed in the same second as a snapshot (running totals only, each refund's own event too): the same books in all 5,040 orders of its seven events", () => {
  // Refunds re_1 (at 10), re_2 (at 20), re_3 (at 30) of 1000 each; re_1 fails at 30, the second re_3 is
  // created: charge.refunded says 1000, 2000, then 2000 again. The truth: 2000 refunded.
  const refund = (id: string, created: number, status = "succeeded") => refundObject({ id, paymentIntent: "pi_1", amount: 1_000, status, created });
  const total = (id: string, amountRefunded: number, created: number) => stripeParsed(id, "charge.refunded", charge({ id: "ch_1", paymentIntent: "pi_1", amount: 10_000, amountRefunded, currency: "usd" }), created);
  const payment = paid("ord_1", "pi_1", 10_000, 1);
  const events = [
    total("evt_ch_1", 1_000, 10),
    stripeParsed("evt_rc_1", "refund.created", refund("re_1", 10), 10),
    total("evt_ch_2", 2_000, 20),
    stripeParsed("evt_rc_2", "refund.created", refund("re_2", 20), 20),
    stripeParsed("evt_rf_1", "refund.failed", refund("re_1", 10, "failed"), 30),
    total("evt_ch_3", 2_000, 30),
    stripeParsed("evt_rc_3", "refund.created", refund("re_3", 30), 30),
  ];
  const books = () => stripeBooks([{ id: "ord_1", amount: 10_000 }])();
  const want = { status: "paid", refundedAmount: 2_000, disputedAmount: 0, net: 8_000 };
  assert.deepEqual(books().deliver([payment, ...events]).snapshot().orders.ord_1, want);
  for (const order of permutations(events)) {
    assert.deepEqual(books().deliver([payment, ...order]).snapshot().orders.ord_1, want, `delivered as ${order.map((event) => event.eventId).join(", ")}`);
  }
});
