// The pure parts of a replay: which dead letters a reason code names, the order events are applied in,
// how a preview is split into batches without separating an order's events, and the filter's rules.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { deadLetterHasReason, inCreationOrder, reasonNames, type ReplayCandidate } from "@/lib/replay/replay-candidates";
import { previewBatches } from "@/lib/replay/preview-replay";
import { filterFormValues, filterFromFields, normalizedFilter, replayFilterSchema } from "@/lib/replay/replay-filter";
import { because, reasonColumns } from "@/lib/reasons/reason-codes";

function candidate(eventId: string, fields: { orderId?: string; paymentKey?: string; session?: string; createdAt?: number; arrivedAt?: number } = {}): ReplayCandidate {
  const effect = { kind: "payment" as const, paymentKey: fields.paymentKey ?? `pay_${eventId}`, orderRef: { ...(fields.orderId ? { orderId: fields.orderId } : {}), ...(fields.session ? { checkoutSessionId: fields.session } : {}) }, amount: 1, currency: "ARS" };
  return {
    storedEventId: `row_${eventId}`, deadLetterId: null, organizationId: "org_default", provider: "lab", account: "lab", livemode: true, eventId, endpoint: "lab", type: "payment.approved", bodyHash: "h", secretLabel: null,
    orderId: null, status: "dead", arrivedAt: new Date(fields.arrivedAt ?? 0), payload: "{}", event: { eventId, type: "payment.approved", livemode: true, ...(fields.createdAt !== undefined ? { createdAt: fields.createdAt } : {}), effect }, bodyDiffers: false,
  };
}

describe("a dead letter's reason", () => {
  test("matches its own code, a nested cause (a give-up after retries) or a follow-up, and nothing else", () => {
    const gaveUp = because("retries_exhausted_attempts", { attempts: 5, max: 5, cause: { code: "unknown_order", params: { orderId: "ord_1" } } });
    assert.equal(reasonNames(gaveUp.reasonRef, "unknown_order"), true);
    assert.equal(reasonNames(gaveUp.reasonRef, "retries_exhausted_attempts"), true);
    assert.equal(reasonNames(gaveUp.reasonRef, "no_transition"), false);
    const letter = { category: "retries_exhausted", ...reasonColumns(gaveUp.reasonRef) };
    assert.equal(deadLetterHasReason(letter, "unknown_order"), true);
    assert.equal(deadLetterHasReason(letter, "unknown_checkout_session"), false);
    // A row written before reason codes: its category stands for it.
    assert.equal(deadLetterHasReason({ category: "unknown_order", reasonCode: null, reasonParams: null }, "unknown_order"), true);
    assert.equal(deadLetterHasReason({ category: "transition", reasonCode: null, reasonParams: null }, "unknown_order"), false);
  });
});

describe("the order events are applied in", () => {
  test("the provider's creation time, ties by arrival, then by id; an event without one by its arrival", () => {
    const ordered = inCreationOrder([
      candidate("evt_c", { createdAt: 300, arrivedAt: 1_000 }),
      candidate("evt_b2", { createdAt: 200, arrivedAt: 5_000 }),
      candidate("evt_b1", { createdAt: 200, arrivedAt: 4_000 }),
      candidate("evt_none", { arrivedAt: 250_000 }),
      candidate("evt_a", { createdAt: 100, arrivedAt: 9_000 }),
    ]);
    assert.deepEqual(ordered.map((event) => event.eventId), ["evt_a", "evt_b1", "evt_b2", "evt_none", "evt_c"]);
  });
});

describe("preview batches", () => {
  test("never separate events tied by an order, a checkout session or a payment, and keep creation order inside", () => {
    const events = [
      candidate("e1", { orderId: "ord_1" }),
      candidate("e2", { orderId: "ord_2" }),
      candidate("e3", { session: "cs_1", paymentKey: "pi_1" }),
      candidate("e4", { orderId: "ord_1", paymentKey: "pi_1" }),
      candidate("e5", { orderId: "ord_3" }),
      candidate("e6", { session: "cs_1" }),
    ];
    const batches = previewBatches(events, 2);
    assert.deepEqual(batches.map((batch) => batch.map((event) => event.eventId)), [["e1", "e3", "e4", "e6"], ["e2", "e5"]]);
    assert.deepEqual(previewBatches(events, 50).map((batch) => batch.length), [6]);
  });
});

describe("the filter", () => {
  test("needs one field, takes only known reason codes and statuses, and a window in order", () => {
    assert.equal(replayFilterSchema.safeParse({}).success, false);
    assert.equal(replayFilterSchema.safeParse({ reason: "unknown_order" }).success, true);
    assert.equal(replayFilterSchema.safeParse({ reason: "not_a_code" }).success, false);
    assert.equal(replayFilterSchema.safeParse({ status: "received" }).success, false);
    assert.equal(replayFilterSchema.safeParse({ from: "2026-12-02T10:00:00Z", to: "2026-12-02T09:00:00Z" }).success, false);
    assert.equal(replayFilterSchema.safeParse({ from: "2026-12-02T10:00:00" }).success, false, "a time without a zone is refused");
    assert.equal(replayFilterSchema.safeParse({ orderId: "o", colour: "red" }).success, false);
  });

  test("from a form: ids by spaces, commas or lines, times read in UTC; and back to the form's values", () => {
    const parsed = filterFromFields({ eventIds: "evt_1, evt_2\nevt_3", from: "2026-12-02T09:00", to: "", reason: "unknown_order", endpoint: "" });
    assert.equal(parsed.success, true);
    assert.deepEqual(normalizedFilter(parsed.data!), { eventIds: ["evt_1", "evt_2", "evt_3"], reason: "unknown_order", from: "2026-12-02T09:00:00.000Z" });
    assert.deepEqual(filterFormValues(normalizedFilter(parsed.data!)), { eventIds: "evt_1 evt_2 evt_3", reason: "unknown_order", from: "2026-12-02T09:00" });
  });
});
