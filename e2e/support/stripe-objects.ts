// Stripe objects as Stripe's API and webhooks carry them (docs.stripe.com/api/events/object), with no
// import of the database: the browser specs build events for the fake Stripe API from these too.

/** A Stripe event envelope as documented (docs.stripe.com/api/events/object). */
export function stripeEvent(id: string, type: string, object: Record<string, unknown>, extra: { livemode?: boolean; account?: string; created?: number } = {}): Record<string, unknown> {
  return {
    id,
    object: "event",
    api_version: "2025-06-30.basil",
    created: extra.created ?? 1764400000,
    ...(extra.account ? { account: extra.account } : {}),
    data: { object },
    livemode: extra.livemode ?? true,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  };
}

/** A PaymentIntent, as in payment_intent.succeeded / payment_intent.payment_failed. */
export function paymentIntent(fields: { id: string; orderId?: string; amount: number; currency: string; status?: string }): Record<string, unknown> {
  return {
    id: fields.id,
    object: "payment_intent",
    amount: fields.amount,
    amount_capturable: 0,
    amount_received: fields.status === "requires_payment_method" ? 0 : fields.amount,
    currency: fields.currency,
    livemode: true,
    metadata: fields.orderId ? { order_id: fields.orderId } : {},
    status: fields.status ?? "succeeded",
  };
}
