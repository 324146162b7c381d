import { ApplyFailure } from "@/lib/core/failures";
import type { DisputeStatus, Effect, OrderRef, ProviderName } from "@/lib/core/effect";
import { planRefunds, type BookedEntry, type PlannedEntry } from "@/lib/core/decide-refund";
import { advanceDisputeStatus, planDisputeMoney } from "@/lib/core/decide-dispute";
import { statusOfBooks, transitionAllowed } from "@/lib/core/order-status";
import type { PaymentScope } from "@/lib/core/business-keys";
import type { OrderRow, RefundObjectFact, RefundSnapshotFact } from "@/lib/core/books";
import { nextStatus, type OrderStatus, type OrderTrigger } from "@/lib/core/order-transitions";
import { because, followedBy, reasonRef, reasonText, type Because, type Money, type ReasonRef } from "@/lib/reasons/reason-codes";

/** The order as a decision needs it: the row the apply reads (amounts in minor units of `currency`). */
export type OrderFacts = OrderRow;

/** The scope and kind of the event being decided: the endpoint's provider and live/test, never the payload's. */
export interface DecisionSource {
  provider: ProviderName;
  livemode: boolean;
}

/**
 * What applying an effect must do, decided without I/O from facts read in the apply transaction:
 * - fail: roll back and dead-letter (or retry, by the failure's category);
 * - ignore / duplicate: record only;
 * - extra_charge: record a second payment of a paid order for review, never credit it;
 * - note_extra_refund: note that an extra charge was refunded, order unchanged;
 * - credit: book the credit (the order's own price) and move the order;
 * - book: book `entries` (refunds, failed refunds, a dispute's movements; each under its business key),
 *   record the dispute's status and the refunded total reported (`snapshot`) when given, and move the
 *   order to `to` with its new running totals. A refund's `duplicate` may carry a `snapshot` to keep too.
 */
export type EffectDecision =
  | { kind: "fail"; failure: ApplyFailure }
  | ({ kind: "ignore"; orderId?: string } & Because)
  | ({ kind: "duplicate"; orderId: string; snapshot?: RefundSnapshotFact; refundObjects?: RefundObjectFact[] } & Because)
  | ({ kind: "extra_charge"; orderId: string; amount: number; currency: string } & Because)
  | ({ kind: "note_extra_refund"; orderId: string } & Because)
  | ({ kind: "credit"; orderId: string; amount: number; currency: string; from: string; to: OrderStatus } & Because)
  | ({
      kind: "book";
      orderId: string;
      entries: PlannedEntry[];
      dispute?: { disputeId: string; status: DisputeStatus; amount: number; currency: string };
      snapshot?: RefundSnapshotFact;
      refundObjects?: RefundObjectFact[];
      from: string;
      to: OrderStatus;
      changes: { refundedAmount: number; disputedAmount: number };
    } & Because);

/** Providers whose every payment carries a signed amount and currency (Stripe sessions and intents). */
const ALWAYS_SIGNS_AMOUNT: ReadonlySet<ProviderName> = new Set(["stripe"]);

/** The reason for an order that is not found: by id, by checkout session, or by neither. */
function unknownOrder(ref: OrderRef): Because {
  if (ref.orderId === undefined && ref.checkoutSessionId) return because("unknown_checkout_session", { sessionId: ref.checkoutSessionId });
  return because("unknown_order", { orderId: ref.orderId ?? "(none)" });
}

const money = (amount: number, currency: string): Money => ({ amount, currency });
const mode = (livemode: boolean) => (livemode ? "live" : "test");

function scopeMismatch(source: DecisionSource, order: OrderFacts): EffectDecision | undefined {
  if (order.livemode === source.livemode) return undefined;
  return { kind: "ignore", ...because("live_test_scope", { eventMode: mode(source.livemode), orderMode: mode(order.livemode), orderId: order.id }), orderId: order.id };
}

function fail(category: ConstructorParameters<typeof ApplyFailure>[0], reason: Because, orderId?: string): EffectDecision {
  return { kind: "fail", failure: new ApplyFailure(category, reason, orderId) };
}

/**
 * Decides a payment. Takes the order it names (null when none was found), the event id that already
 * credited this payment in this scope (null when none) and whether an extra charge of this payment is
 * already recorded (only asked when the order is paid). Rules: one credit per payment of a scope
 * (seed article, control 3), the written transition table (control 4), the signed amount and currency
 * must equal the order's; Stripe always signs them, so a Stripe payment without them is never credited
 * at the order's price.
 */
export function decidePayment(
  source: DecisionSource,
  effect: Extract<Effect, { kind: "payment" }>,
  facts: { order: OrderFacts | null; creditedBy: string | null; extraChargeRecorded: boolean },
): EffectDecision {
  const { order } = facts;
  if (!order) return fail("unknown_order", unknownOrder(effect.orderRef), effect.orderRef.orderId);
  const other = scopeMismatch(source, order);
  if (other) return other;
  if (effect.amount === "missing" || (ALWAYS_SIGNS_AMOUNT.has(source.provider) && (effect.amount === null || effect.currency === null))) {
    return fail("amount_missing", because("amount_missing", { paymentKey: effect.paymentKey, orderId: order.id, provider: source.provider }), order.id);
  }
  if (facts.creditedBy !== null) return { kind: "duplicate", ...because("already_credited", { paymentKey: effect.paymentKey, eventId: facts.creditedBy }), orderId: order.id };
  if (order.status === "paid") {
    if (facts.extraChargeRecorded) return { kind: "duplicate", ...because("extra_charge_duplicate", { paymentKey: effect.paymentKey }), orderId: order.id };
    return {
      kind: "extra_charge",
      ...because("extra_charge", { paymentKey: effect.paymentKey, amount: money(effect.amount ?? order.amount, effect.currency ?? order.currency) }),
      orderId: order.id,
      amount: effect.amount ?? order.amount,
      currency: effect.currency ?? order.currency,
    };
  }
  const to = nextStatus(order.status, "payment.approved");
  if (!to) return fail("transition", because("no_transition", { from: order.status, trigger: "payment.approved", orderId: order.id }), order.id);
  if (effect.currency !== null && effect.currency.toUpperCase() !== order.currency.toUpperCase()) {
    return fail("currency_mismatch", because("currency_mismatch_payment", { orderId: order.id, paid: effect.currency.toUpperCase(), expected: order.currency }), order.id);
  }
  if (effect.amount !== null && effect.amount !== order.amount) {
    return fail("amount_mismatch", because("amount_mismatch_payment", { orderId: order.id, paid: money(effect.amount, order.currency), expected: money(order.amount, order.currency) }), order.id);
  }
  return { kind: "credit", ...because("credited", { amount: money(order.amount, order.currency), orderId: order.id, from: order.status, to }), orderId: order.id, amount: order.amount, currency: order.currency, from: order.status, to };
}

/** A dispute of the order as the books know it. */
export interface KnownDispute {
  disputeId: string;
  status: DisputeStatus;
}

/** The facts every decision about an already credited payment starts from. */
export interface PaymentFacts {
  order: OrderFacts | null;
  credit: { amount: number; currency: string } | null;
  /** The payment's refund, failed-refund and dispute entries in this scope. */
  entries: readonly BookedEntry[];
  /** The order's disputes (every one, this payment's and any other's). */
  disputes: readonly KnownDispute[];
  /** Every refunded total reported for the payment (refund decisions only; empty otherwise). */
  snapshots: readonly RefundSnapshotFact[];
  /** Every refund object named for the payment (refund decisions only; empty otherwise). */
  refundObjects: readonly RefundObjectFact[];
}

/** A refund, failed refund or dispute of a payment never credited: it waits for the payment (retryable), saying which. */
function waitForPayment(what: "refund" | "failed_refund" | "dispute", effect: { paymentKey: string; chargeId?: string; orderRef: OrderRef }, order: OrderFacts | null): EffectDecision {
  if (order && order.status === "created" && what !== "dispute") {
    return fail("transition", because("refund_not_credited", { from: order.status, orderId: order.id, paymentKey: effect.paymentKey }), order.id);
  }
  const reason = effect.chargeId ? because("waiting_for_payment_charge", { what, paymentKey: effect.paymentKey, chargeId: effect.chargeId }) : because("waiting_for_payment", { what, paymentKey: effect.paymentKey });
  return fail("transition", reason, order?.id ?? effect.orderRef.orderId);
}

/**
 * The order's move after its books changed: its status is derived from the books ({@link statusOfBooks}),
 * never from which event came last, and must be a transition the table writes down. Returns the
 * decision, or a `fail` when the table has no such row.
 */
function moveByBooks(
  order: OrderFacts,
  credit: { amount: number },
  trigger: OrderTrigger,
  after: { refunded: number; disputedAmount: number; disputes: readonly DisputeStatus[] },
  booked: Omit<Extract<EffectDecision, { kind: "book" }>, "kind" | "from" | "to" | "changes" | "orderId" | "reason" | "reasonRef">,
  steps: ReasonRef[],
): EffectDecision {
  const to = statusOfBooks({ credit: credit.amount, refunded: after.refunded, disputes: after.disputes });
  if (!transitionAllowed(order.status, trigger, to)) return fail("transition", because("no_transition", { from: order.status, trigger, orderId: order.id }), order.id);
  const moved = reasonRef("order_books", { orderId: order.id, from: order.status, to, refunded: { amount: after.refunded, currency: order.currency }, disputed: { amount: after.disputedAmount, currency: order.currency } });
  const [first, ...rest] = [...steps, moved];
  const reason = rest.reduce<Because>((sentence, step) => followedBy(sentence, step), { reason: reasonText(first), reasonRef: first });
  return { kind: "book", ...reason, ...booked, orderId: order.id, from: order.status, to, changes: { refundedAmount: after.refunded, disputedAmount: after.disputedAmount } };
}

/**
 * Decides a refund event (Stripe charge.refunded, refund.*, charge.refund.updated; the refund types of
 * Standard Webhooks and the lab) by the refund objects and totals it carries ({@link planRefunds}): the
 * books are the same for every delivery order of the same events. A refund of a never-credited payment
 * waits for its credit (retryable; an extra charge's refund is noted instead). Refunds are booked whether
 * or not a dispute is open; the order's status then follows its books ({@link statusOfBooks}). A total
 * past the credit is refused (amount_mismatch, never booked).
 */
export function decideRefund(source: DecisionSource & PaymentScope, effect: Extract<Effect, { kind: "refund" }>, facts: PaymentFacts & { extraChargeRecorded: boolean }): EffectDecision {
  const { order, credit } = facts;
  if (order) {
    const other = scopeMismatch(source, order);
    if (other) return other;
  }
  if (!credit || !order) {
    if (order && facts.extraChargeRecorded) return { kind: "note_extra_refund", ...because("extra_refund_noted", { paymentKey: effect.paymentKey }), orderId: order.id };
    const failedOnly = (effect.refunds ?? []).length > 0 && effect.refundedTotal === undefined && (effect.refunds ?? []).every((refund) => refund.status === "failed" || refund.status === "canceled");
    return waitForPayment(failedOnly ? "failed_refund" : "refund", effect, order);
  }
  if (effect.currency !== null && effect.currency.toUpperCase() !== credit.currency.toUpperCase()) {
    return fail("currency_mismatch", because("currency_mismatch_refund", { orderId: order.id, refund: effect.currency.toUpperCase(), payment: credit.currency }), order.id);
  }
  const oversized = (effect.refunds ?? []).find((refund) => refund.amount <= 0 || refund.amount > credit.amount);
  if (oversized || (effect.refundedTotal !== undefined && effect.refundedTotal !== null && (effect.refundedTotal <= 0 || effect.refundedTotal > credit.amount))) {
    const total = oversized ? oversized.amount : (effect.refundedTotal as number);
    return fail("amount_mismatch", because("refund_out_of_range", { total: money(total, credit.currency), max: money(credit.amount, credit.currency), orderId: order.id }), order.id);
  }
  const plan = planRefunds(source, effect, credit, facts.entries, facts.snapshots, facts.refundObjects, order.id);
  if (plan.kind === "over_refund" || plan.kind === "too_many") return fail("amount_mismatch", plan.reason, order.id);
  const kept = { ...(plan.snapshot ? { snapshot: plan.snapshot } : {}), ...(plan.newObjects.length > 0 ? { refundObjects: plan.newObjects } : {}) };
  if (plan.kind === "nothing_new") return { kind: "duplicate", ...plan.reason, orderId: order.id, ...kept };
  const trigger: OrderTrigger = plan.refunded < plan.refundedBefore ? "refund.failed" : plan.refunded >= credit.amount ? "payment.refunded" : "payment.partially_refunded";
  const after = { refunded: plan.refunded, disputedAmount: order.disputedAmount, disputes: facts.disputes.map((dispute) => dispute.status) };
  const decision = moveByBooks(order, credit, trigger, after, { entries: plan.entries, ...kept }, [plan.reason.reasonRef]);
  if (decision.kind !== "book") return decision;
  // One movement reads as it always has: "refunded 300 USD (total 300); order ... paid -> paid".
  if (plan.single === "total") {
    return { ...decision, ...because("refunded", { amount: money(-plan.entries[0].amount, credit.currency), total: money(plan.refunded, credit.currency), orderId: order.id, from: order.status, to: decision.to }) };
  }
  if (plan.single === "reversal") {
    const [reversal] = plan.entries;
    const refundId = reversal.businessKey.slice(reversal.businessKey.lastIndexOf(":") + 1);
    return { ...decision, ...because("refund_failed_booked", { refundId, amount: money(reversal.amount, credit.currency), refunded: money(plan.refunded, credit.currency), orderId: order.id, from: order.status, to: decision.to }) };
  }
  return decision;
}

/**
 * Decides a dispute event (Stripe charge.dispute.*): its money by balance transaction ({@link planDisputeMoney}),
 * its status advanced only forward ({@link advanceDisputeStatus}: a closed dispute stays closed), and the
 * order's status derived from its books and its disputes' latest known statuses, so an older event
 * never moves it back. A dispute of a never-credited payment waits (retryable); a disputed amount past
 * the credit, or in another currency, is a dead letter.
 */
export function decideDispute(source: DecisionSource & PaymentScope, effect: Extract<Effect, { kind: "dispute" }>, facts: PaymentFacts): EffectDecision {
  const { order, credit } = facts;
  if (order) {
    const other = scopeMismatch(source, order);
    if (other) return other;
  }
  if (!credit || !order) return waitForPayment("dispute", effect, order);
  const what = "dispute";
  if (effect.currency.toUpperCase() !== credit.currency.toUpperCase()) {
    return fail("currency_mismatch", because("currency_mismatch_other", { what, orderId: order.id, got: effect.currency.toUpperCase(), payment: credit.currency }), order.id);
  }
  if (effect.amount <= 0 || effect.amount > credit.amount) return fail("amount_mismatch", because("amount_out_of_range", { what, amount: money(effect.amount, credit.currency), max: money(credit.amount, credit.currency), orderId: order.id }), order.id);
  const known = facts.disputes.find((dispute) => dispute.disputeId === effect.disputeId)?.status ?? null;
  const status = advanceDisputeStatus(known, effect.status) ?? "open";
  const plan = planDisputeMoney(source, effect, credit, facts.entries, order);
  if (plan.kind === "refuse") return fail(plan.category, plan.reason, order.id);
  const statuses = [...facts.disputes.filter((dispute) => dispute.disputeId !== effect.disputeId).map((dispute) => dispute.status), status];
  const disputedAmount = Math.max(0, order.disputedAmount + plan.withdrawn - plan.reinstated);
  const steps: ReasonRef[] = status !== known ? [reasonRef("dispute_status", { disputeId: effect.disputeId, phase: status === "open" ? "opened" : status })] : [];
  steps.push(...plan.steps);
  if (steps.length === 0) {
    return { kind: "duplicate", ...because("dispute_known", { disputeId: effect.disputeId, phase: status === "open" ? "opened" : status, orderId: order.id }), orderId: order.id };
  }
  const trigger: OrderTrigger = status === "won" ? "dispute.won" : status === "lost" ? "dispute.lost" : "dispute.opened";
  const refunded = order.refundedAmount;
  return moveByBooks(order, credit, trigger, { refunded, disputedAmount, disputes: statuses }, { entries: plan.entries, dispute: { disputeId: effect.disputeId, status, amount: effect.amount, currency: credit.currency } }, steps);
}
