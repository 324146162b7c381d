import { because } from "@/lib/reasons/reason-codes";
import { z } from "zod";
import { describeZodError, parseJsonBody, untrustedId } from "@/lib/providers/json";
import { currencySchema, eventTypeSchema, idSchema, minorAmountSchema } from "@/lib/money/amount-schemas";
import { verifyTimestampedHeader } from "@/lib/providers/signatures/timestamped-header";
import type { DisputePhase, Effect } from "@/lib/core/effect";
import type { ParseResult, ProviderModule } from "@/lib/providers/types";

/** Stripe's signature header: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>." + body)>[,v1=...]`. */
export const STRIPE_SIGNATURE_HEADER = "Stripe-Signature";

/** A Stripe event envelope (docs.stripe.com/api/events/object). Connect events name the connected `account`. */
export const stripeEventSchema = z.object({
  id: idSchema,
  object: z.literal("event"),
  type: eventTypeSchema,
  livemode: z.boolean(),
  created: z.number().int().nonnegative(),
  account: idSchema.optional(),
  data: z.object({ object: z.record(z.string(), z.unknown()) }),
});

const metadataSchema = z.record(z.string(), z.string()).nullish();
/** Stripe sends expandable references as ids in webhooks; an expanded object is reduced to its id. */
const reference = z.union([idSchema, z.object({ id: idSchema }).transform((value) => value.id)]).nullish();

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
  id: idSchema,
  object: z.literal("payment_intent"),
  // Stripe always sends both; a payload without them is signed but not credited (dead letter), so the
  // schema takes them as optional and the handler decides.
  amount: minorAmountSchema.nullish(),
  amount_received: minorAmountSchema.nullish(),
  currency: currencySchema,
  metadata: metadataSchema,
});

/** charge (docs.stripe.com/api/charges/object): `amount_refunded` is the charge's absolute refunded total. */
const chargeSchema = z.object({
  id: idSchema,
  object: z.literal("charge"),
  amount: minorAmountSchema,
  amount_refunded: minorAmountSchema,
  currency: currencySchema,
  payment_intent: reference,
  metadata: metadataSchema,
});

/** dispute (docs.stripe.com/api/disputes/object), the fields Acredita uses. `warning_*` statuses are inquiries: no funds move. */
const disputeSchema = z.object({
  id: idSchema,
  object: z.literal("dispute"),
  amount: minorAmountSchema,
  currency: currencySchema,
  charge: reference,
  payment_intent: reference,
  status: z.string().max(50),
});

/** refund (docs.stripe.com/api/refunds/object), the fields Acredita uses. */
const refundSchema = z.object({
  id: idSchema,
  object: z.literal("refund"),
  amount: minorAmountSchema,
  currency: currencySchema,
  payment_intent: reference,
  status: z.string().max(50).nullish(),
  metadata: metadataSchema,
});

type Handler = (object: Record<string, unknown>) => Effect | z.ZodError;

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

/** charge.refunded: full or partial; the absolute `amount_refunded` is handed to the core, which books only the difference. */
function chargeRefunded(object: Record<string, unknown>): Effect | z.ZodError {
  const parsed = chargeSchema.safeParse(object);
  if (!parsed.success) return parsed.error;
  const charge = parsed.data;
  if (!charge.payment_intent) return { kind: "record_only", ...because("charge_without_intent", { chargeId: charge.id }) };
  return {
    kind: "refund",
    paymentKey: charge.payment_intent,
    orderRef: { orderId: orderIdFromMetadata(charge.metadata) },
    refundedTotal: charge.amount_refunded,
    currency: charge.currency,
  };
}

/**
 * A dispute event (charge.dispute.created, .funds_withdrawn, .funds_reinstated, .closed) as the phase it
 * reports. The payment is the dispute's PaymentIntent; the order is the one its credit belongs to.
 * Inquiries (status `warning_*`) move no funds and leave the order as it is.
 */
function disputeEvent(phaseOf: (status: string) => DisputePhase | undefined): Handler {
  return (object) => {
    const parsed = disputeSchema.safeParse(object);
    if (!parsed.success) return parsed.error;
    const dispute = parsed.data;
    if (!dispute.payment_intent) return { kind: "record_only", ...because("dispute_without_intent", { disputeId: dispute.id }) };
    const phase = dispute.status.startsWith("warning_") ? undefined : phaseOf(dispute.status);
    if (!phase) return { kind: "record_only", ...because("dispute_no_funds_moved", { disputeId: dispute.id, status: String(dispute.status) }) };
    return { kind: "dispute", paymentKey: dispute.payment_intent, orderRef: {}, disputeId: dispute.id, phase, amount: dispute.amount, currency: dispute.currency };
  };
}

/** charge.refund.updated, refund.updated and refund.failed: a refund whose status became `failed` is booked back. */
function refundUpdated(object: Record<string, unknown>): Effect | z.ZodError {
  const parsed = refundSchema.safeParse(object);
  if (!parsed.success) return parsed.error;
  const refund = parsed.data;
  if (refund.status !== "failed") return { kind: "record_only", ...because("refund_status_not_failed", { refundId: refund.id, status: refund.status ?? "(none)" }) };
  if (!refund.payment_intent) return { kind: "record_only", ...because("refund_without_intent", { refundId: refund.id }) };
  return { kind: "refund_failed", paymentKey: refund.payment_intent, orderRef: { orderId: orderIdFromMetadata(refund.metadata) }, refundId: refund.id, amount: refund.amount, currency: refund.currency };
}

/** The event types that change money or order state; every other type is stored and answered `ignored`. */
export const STRIPE_HANDLED_TYPES: Record<string, Handler> = {
  "checkout.session.completed": checkoutSessionPaid,
  "checkout.session.async_payment_succeeded": checkoutSessionPaid,
  "checkout.session.async_payment_failed": checkoutSessionFailed,
  "payment_intent.succeeded": paymentIntentSucceeded,
  "payment_intent.payment_failed": paymentIntentFailed,
  "charge.refunded": chargeRefunded,
  "charge.refund.updated": refundUpdated,
  "refund.updated": refundUpdated,
  "refund.failed": refundUpdated,
  "charge.dispute.created": disputeEvent(() => "opened"),
  "charge.dispute.funds_withdrawn": disputeEvent(() => "funds_withdrawn"),
  "charge.dispute.funds_reinstated": disputeEvent(() => "funds_reinstated"),
  "charge.dispute.closed": disputeEvent((status) => (status === "won" ? "won" : status === "lost" ? "lost" : undefined)),
};

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
    const handler = STRIPE_HANDLED_TYPES[event.type];
    const effect: Effect | z.ZodError = handler ? handler(event.data.object) : { kind: "record_only", ...because("unhandled_stripe_event_type", { type: event.type }) };
    if (effect instanceof z.ZodError) {
      return { ok: false, status: 422, ...because("invalid_event_object", { type: event.type, details: describeZodError(effect) }), eventId: event.id, eventType: event.type };
    }
    return { ok: true, event: { eventId: event.id, type: event.type, livemode: event.livemode, account: event.account, createdAt: event.created, effect } };
  },
  untrustedEventId: (input) => untrustedId(input.body),
};
