import { because } from "@/lib/reasons/reason-codes";
import { z } from "zod";
import { describeZodError, parseJsonBody, untrustedId } from "@/lib/providers/json";
import { currencySchema, eventTypeSchema, idSchema, minorAmountSchema } from "@/lib/money/amount-schemas";
import { firstEmailAt } from "@/lib/providers/search-facts";
import { verifyTimestampedHeader } from "@/lib/providers/signatures/timestamped-header";
import type { DisputeMovement, DisputeStatus, Effect, RefundFact } from "@/lib/core/effect";
import type { ParseResult, ProviderModule } from "@/lib/providers/types";

/**
 * A Stripe object id as Stripe writes them (`pi_3Nq…`, `re_…`, `du_…`, `txn_…`: letters, digits and
 * underscores). The ids that go into business keys are held to it, so no id can reach into another's key
 * (a `:` would). At most 255 characters, like every id Acredita stores.
 */
const stripeIdSchema = z.string().regex(/^[A-Za-z0-9_]{1,255}$/, "must be a Stripe id (letters, digits and _)");
/** A Stripe time (unix seconds): bounded so it is a date (year 2286 at most). */
const stripeTimeSchema = z.number().int().nonnegative().max(9_999_999_999);

/** Stripe's signature header: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>." + body)>[,v1=...]`. */
export const STRIPE_SIGNATURE_HEADER = "Stripe-Signature";

/** A Stripe event envelope (docs.stripe.com/api/events/object). Connect events name the connected `account`. */
export const stripeEventSchema = z.object({
  id: idSchema,
  object: z.literal("event"),
  type: eventTypeSchema,
  livemode: z.boolean(),
  created: stripeTimeSchema,
  account: idSchema.optional(),
  data: z.object({ object: z.record(z.string(), z.unknown()) }),
});

const metadataSchema = z.record(z.string(), z.string()).nullish();
/** Stripe sends expandable references as ids in webhooks; an expanded object is reduced to its id. */
const reference = z.union([stripeIdSchema, z.object({ id: stripeIdSchema }).transform((value) => value.id)]).nullish();

/** checkout.session (docs.stripe.com/api/checkout/sessions/object), the fields Acredita uses. */
const checkoutSessionSchema = z.object({
  id: idSchema,
  object: z.literal("checkout.session"),
  payment_status: z.string().max(50),
  payment_intent: reference,
  client_reference_id: idSchema.nullish(),
  metadata: metadataSchema,
  amount_total: minorAmountSchema.nullish(),
  currency: currencySchema.nullish(),
});

/** payment_intent (docs.stripe.com/api/payment_intents/object), the fields Acredita uses. */
const paymentIntentSchema = z.object({
  id: stripeIdSchema,
  object: z.literal("payment_intent"),
  // Stripe always sends both; a payload without them is signed but not credited (dead letter), so the
  // schema takes them as optional and the handler decides.
  amount: minorAmountSchema.nullish(),
  amount_received: minorAmountSchema.nullish(),
  currency: currencySchema,
  metadata: metadataSchema,
});

/** refund (docs.stripe.com/api/refunds/object), the fields Acredita uses. */
const refundSchema = z.object({
  id: stripeIdSchema,
  object: z.literal("refund"),
  amount: minorAmountSchema,
  currency: currencySchema,
  charge: reference,
  payment_intent: reference,
  status: z.string().max(50).nullish(),
  created: stripeTimeSchema.nullish(),
  metadata: metadataSchema,
});

/**
 * charge (docs.stripe.com/api/charges/object): `amount_refunded` is the charge's running total of refunds
 * not failed; `refunds`, when the payload includes it (API versions before 2022-11-15 and expanded
 * payloads), lists the refund objects themselves (`has_more`: the list is cut, the total explains the rest).
 */
const chargeSchema = z.object({
  id: stripeIdSchema,
  object: z.literal("charge"),
  amount: minorAmountSchema,
  amount_refunded: minorAmountSchema,
  currency: currencySchema,
  payment_intent: reference,
  metadata: metadataSchema,
  refunds: z.object({ data: z.array(refundSchema).max(100) }).nullish(),
});

/** A balance transaction as a dispute lists it (docs.stripe.com/api/balance_transactions/object): its id, signed amount, currency and exchange rate. */
const balanceTransactionSchema = z.object({
  id: stripeIdSchema,
  amount: z.number().int().min(-1e12).max(1e12),
  currency: currencySchema,
  exchange_rate: z.number().positive().nullish(),
});

/** dispute (docs.stripe.com/api/disputes/object), the fields Acredita uses. `warning_*` statuses are inquiries: no funds move. */
const disputeSchema = z.object({
  id: stripeIdSchema,
  object: z.literal("dispute"),
  amount: minorAmountSchema,
  currency: currencySchema,
  charge: reference,
  payment_intent: reference,
  status: z.string().max(50),
  balance_transactions: z.array(balanceTransactionSchema).max(50).nullish(),
});

/**
 * Where a Stripe object keeps its customer's e-mail, first found wins: a Checkout Session's
 * `customer_details.email` (what the customer typed) then `customer_email` (what the merchant
 * prefilled); a Charge's `billing_details.email`; a PaymentIntent's or Charge's `receipt_email`
 * (docs.stripe.com/api/checkout/sessions/object, /api/charges/object, /api/payment_intents/object).
 */
const STRIPE_EMAIL_FIELDS = [["customer_details", "email"], ["customer_email"], ["billing_details", "email"], ["receipt_email"]];

/**
 * The search facts of a Stripe object: its customer's e-mail ({@link STRIPE_EMAIL_FIELDS}) and the charge
 * it is or names (a Charge's own id; `charge` on a Refund or Dispute; a PaymentIntent's `latest_charge`),
 * each only when it is one (an e-mail address; a Stripe id).
 */
function stripeSearchFacts(object: Record<string, unknown>): { customerEmail?: string; chargeId?: string } {
  const customerEmail = firstEmailAt(object, STRIPE_EMAIL_FIELDS);
  const named = object.object === "charge" ? object.id : (object.charge ?? object.latest_charge);
  const charge = reference.safeParse(named);
  return { ...(customerEmail ? { customerEmail } : {}), ...(charge.success && charge.data ? { chargeId: charge.data } : {}) };
}

/** A handler reads an event's `data.object`; `created` is the event's creation time (unix seconds). */
type Handler = (object: Record<string, unknown>, created: number) => Effect | z.ZodError;

/** A refund object as the core's fact (status `pending` when Stripe leaves it out). */
function refundFact(refund: z.infer<typeof refundSchema>): RefundFact {
  return { refundId: refund.id, amount: refund.amount, status: refund.status ?? "pending", createdAt: refund.created ?? null };
}

function orderIdFromMetadata(metadata: Record<string, string> | null | undefined): string | undefined {
  const value = metadata?.order_id;
  return value && value.length <= 255 ? value : undefined;
}

/** checkout.session.completed and .async_payment_succeeded: only a paid session is a payment; the payment key is its intent. */
function checkoutSessionPaid(object: Record<string, unknown>): Effect | z.ZodError {
  const parsed = checkoutSessionSchema.safeParse(object);
  if (!parsed.success) return parsed.error;
  const session = parsed.data;
  if (session.payment_status !== "paid") {
    return { kind: "record_only", ...because("session_not_paid", { sessionId: session.id, paymentStatus: String(session.payment_status) }) };
  }
  if (!session.payment_intent) {
    return { kind: "record_only", ...because("session_without_intent", { sessionId: session.id }) };
  }
  return {
    kind: "payment",
    paymentKey: session.payment_intent,
    orderRef: { orderId: session.client_reference_id ?? orderIdFromMetadata(session.metadata), checkoutSessionId: session.id },
    // Stripe signs the session's amount_total: without it the payment is not credited at the order's price.
    amount: session.amount_total === null || session.amount_total === undefined || !session.currency ? "missing" : session.amount_total,
    currency: session.currency ?? null,
  };
}

/** checkout.session.async_payment_failed: a failed delayed payment of the session's intent. */
function checkoutSessionFailed(object: Record<string, unknown>): Effect | z.ZodError {
  const parsed = checkoutSessionSchema.safeParse(object);
  if (!parsed.success) return parsed.error;
  const session = parsed.data;
  if (!session.payment_intent) return { kind: "record_only", ...because("session_failed_without_intent", { sessionId: session.id }) };
  return { kind: "payment_failed", paymentKey: session.payment_intent, orderRef: { orderId: session.client_reference_id ?? orderIdFromMetadata(session.metadata), checkoutSessionId: session.id } };
}

/** payment_intent.succeeded: the order comes from metadata.order_id, the amount from amount_received. */
function paymentIntentSucceeded(object: Record<string, unknown>): Effect | z.ZodError {
  const parsed = paymentIntentSchema.safeParse(object);
  if (!parsed.success) return parsed.error;
  const intent = parsed.data;
  const orderId = orderIdFromMetadata(intent.metadata);
  if (!orderId) {
    // Checkout does not copy the session's metadata to its intent: checkout.session.completed credits that payment.
    return { kind: "record_only", ...because("intent_without_order", { intentId: intent.id }) };
  }
  return { kind: "payment", paymentKey: intent.id, orderRef: { orderId }, amount: intent.amount_received ?? "missing", currency: intent.currency };
}

/** payment_intent.payment_failed: recorded; a later success of the same intent still credits. */
function paymentIntentFailed(object: Record<string, unknown>): Effect | z.ZodError {
  const parsed = paymentIntentSchema.safeParse(object);
  if (!parsed.success) return parsed.error;
  return { kind: "payment_failed", paymentKey: parsed.data.id, orderRef: { orderId: orderIdFromMetadata(parsed.data.metadata) } };
}

/**
 * charge.refunded: the charge's refunds as a snapshot. Its `refunds` list, when present, names each refund
 * (booked by id); `amount_refunded`, the running total, explains the rest. The core weighs the snapshot
 * by its event time against failures it knows of.
 */
function chargeRefunded(object: Record<string, unknown>, created: number): Effect | z.ZodError {
  const parsed = chargeSchema.safeParse(object);
  if (!parsed.success) return parsed.error;
  const charge = parsed.data;
  if (!charge.payment_intent) return { kind: "record_only", ...because("charge_without_intent", { chargeId: charge.id }) };
  return {
    kind: "refund",
    paymentKey: charge.payment_intent,
    orderRef: { orderId: orderIdFromMetadata(charge.metadata) },
    chargeId: charge.id,
    refundedTotal: charge.amount_refunded,
    ...(charge.refunds ? { refunds: charge.refunds.data.map(refundFact) } : {}),
    currency: charge.currency,
    at: created,
  };
}

/**
 * refund.created, refund.updated, refund.failed and charge.refund.updated: one refund object, booked by its
 * id whatever its status; a `failed` or `canceled` refund is booked back (docs.stripe.com/refunds#failed-refunds).
 */
function refundEvent(object: Record<string, unknown>, created: number): Effect | z.ZodError {
  const parsed = refundSchema.safeParse(object);
  if (!parsed.success) return parsed.error;
  const refund = parsed.data;
  if (!refund.payment_intent) return { kind: "record_only", ...because("refund_without_intent", { refundId: refund.id }) };
  return {
    kind: "refund",
    paymentKey: refund.payment_intent,
    orderRef: { orderId: orderIdFromMetadata(refund.metadata) },
    ...(refund.charge ? { chargeId: refund.charge } : {}),
    currency: refund.currency,
    refunds: [refundFact(refund)],
    at: created,
  };
}

/** A dispute's status as the books read it: inquiries (`warning_*`) move no funds; won and lost close it; any other status is open. */
function disputeStatus(status: string): DisputeStatus | "inquiry" {
  if (status.startsWith("warning_")) return "inquiry";
  // `prevented`: closed before any funds moved, in the merchant's favour; `charge_refunded` (an older
  // API version's): closed because the charge was refunded (the refund is booked by its own events).
  return status === "won" || status === "prevented" || status === "charge_refunded" ? "won" : status === "lost" ? "lost" : "open";
}

/**
 * A dispute event (charge.dispute.created, .updated, .funds_withdrawn, .funds_reinstated, .closed): the
 * dispute's status and its balance transactions, each a movement of the payment's money. A balance
 * transaction in the account's settlement currency is converted back to the charge's by its
 * `exchange_rate` (Stripe: amount = charge amount × exchange_rate). `fallback` is the movement the event
 * type names, for a payload that lists none: the dispute's `amount` is used then.
 */
function disputeEvent(fallback: "withdrawn" | "reinstated" | null): Handler {
  return (object) => {
    const parsed = disputeSchema.safeParse(object);
    if (!parsed.success) return parsed.error;
    const dispute = parsed.data;
    if (!dispute.payment_intent) return { kind: "record_only", ...because("dispute_without_intent", { disputeId: dispute.id }) };
    const status = disputeStatus(dispute.status);
    if (status === "inquiry") return { kind: "record_only", ...because("dispute_no_funds_moved", { disputeId: dispute.id, status: String(dispute.status) }) };
    const movements: DisputeMovement[] = (dispute.balance_transactions ?? []).map((transaction) => ({
      id: transaction.id,
      amount:
        transaction.currency.toLowerCase() === dispute.currency.toLowerCase() || !transaction.exchange_rate
          ? transaction.amount
          : Math.round(transaction.amount / transaction.exchange_rate),
    }));
    return {
      kind: "dispute",
      paymentKey: dispute.payment_intent,
      orderRef: {},
      ...(dispute.charge ? { chargeId: dispute.charge } : {}),
      disputeId: dispute.id,
      status,
      amount: dispute.amount,
      currency: dispute.currency,
      movements: dispute.balance_transactions ? movements : null,
      fallback,
    };
  };
}

/** The event types that change money or order state; every other type is stored and answered `ignored`. A Map: a payload's type is never looked up on an object's prototype. */
export const STRIPE_HANDLED_TYPES: ReadonlyMap<string, Handler> = new Map<string, Handler>([
  ["checkout.session.completed", checkoutSessionPaid],
  ["checkout.session.async_payment_succeeded", checkoutSessionPaid],
  ["checkout.session.async_payment_failed", checkoutSessionFailed],
  ["payment_intent.succeeded", paymentIntentSucceeded],
  ["payment_intent.payment_failed", paymentIntentFailed],
  ["charge.refunded", chargeRefunded],
  ["charge.refund.updated", refundEvent],
  ["refund.created", refundEvent],
  ["refund.updated", refundEvent],
  ["refund.failed", refundEvent],
  ["charge.dispute.created", disputeEvent(null)],
  ["charge.dispute.updated", disputeEvent(null)],
  ["charge.dispute.funds_withdrawn", disputeEvent("withdrawn")],
  ["charge.dispute.funds_reinstated", disputeEvent("reinstated")],
  ["charge.dispute.closed", disputeEvent(null)],
]);

/**
 * Stripe (docs.stripe.com/webhooks): Stripe-Signature over `<t>.<raw body>`, hex HMAC-SHA256 with the
 * endpoint's `whsec_` secret, any v1 against any secret, tolerance 300 s. The payment key is the
 * PaymentIntent id, so a checkout session and its intent credit once. Amounts are Stripe's minor units
 * (zero-decimal currencies such as JPY included); currencies compare case-insensitively.
 */
export const stripeProvider: ProviderModule = {
  name: "stripe",
  verify: (input, keys) => verifyTimestampedHeader(STRIPE_SIGNATURE_HEADER, input.headers.get(STRIPE_SIGNATURE_HEADER), input.body, keys, input.now),
  parse(input): ParseResult {
    const json = parseJsonBody(input.body);
    if (json === undefined) return { ok: false, status: 400, ...because("body_not_json", {}) };
    const parsed = stripeEventSchema.safeParse(json);
    if (!parsed.success) return { ok: false, status: 422, ...because("invalid_event", { provider: "Stripe", details: describeZodError(parsed.error) }), eventId: untrustedId(input.body) };
    const event = parsed.data;
    const handler = STRIPE_HANDLED_TYPES.get(event.type);
    const effect: Effect | z.ZodError = handler ? handler(event.data.object, event.created) : { kind: "record_only", ...because("unhandled_stripe_event_type", { type: event.type }) };
    if (effect instanceof z.ZodError) {
      return { ok: false, status: 422, ...because("invalid_event_object", { type: event.type, details: describeZodError(effect) }), eventId: event.id, eventType: event.type };
    }
    return { ok: true, event: { eventId: event.id, type: event.type, livemode: event.livemode, account: event.account, createdAt: event.created, effect, ...stripeSearchFacts(event.data.object) } };
  },
  untrustedEventId: (input) => untrustedId(input.body),
};
