import { because } from "@/lib/reasons/reason-codes";
import { z } from "zod";
import { currencySchema, eventTypeSchema, idSchema, minorAmountSchema } from "@/lib/money/amount-schemas";
import { describeZodError, parseJsonBody, untrustedId } from "@/lib/providers/json";
import { verifyTimestampedHeader } from "@/lib/providers/signatures/timestamped-header";
import type { Effect } from "@/lib/core/effect";
import type { ProviderModule } from "@/lib/providers/types";

/** Header carrying the lab's signature: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>." + body)>`. */
export const LAB_SIGNATURE_HEADER = "Lab-Signature";

/** The lab provider's event, as the seed article's lab sends it. Amounts in minor units. */
export const labEventSchema = z.object({
  id: idSchema,
  type: eventTypeSchema,
  created: z.number().int().nonnegative().optional(),
  data: z.object({
    payment_id: idSchema,
    order_id: idSchema,
    amount: minorAmountSchema,
    currency: currencySchema,
  }),
});

export type LabEvent = z.infer<typeof labEventSchema>;

function labEffect(event: LabEvent): Effect {
  const { payment_id: paymentKey, order_id: orderId, amount, currency } = event.data;
  switch (event.type) {
    case "payment.approved":
      return { kind: "payment", paymentKey, orderRef: { orderId }, amount, currency };
    case "payment.refunded":
      // The lab only sends full refunds: the refunded total is the payment's amount.
      return { kind: "refund", paymentKey, orderRef: { orderId }, refundedTotal: amount, currency, ...(event.created === undefined ? {} : { at: event.created }) };
    default:
      return { kind: "record_only", ...because("unhandled_event_type", { type: event.type }) };
  }
}

/**
 * The lab provider (the seed article's lab): Lab-Signature over `<t>.<body>`, tolerance from
 * WEBHOOK_TOLERANCE_SECONDS; types payment.approved and payment.refunded (a full refund).
 */
export const labProvider: ProviderModule = {
  name: "lab",
  verify: (input, keys) => verifyTimestampedHeader(LAB_SIGNATURE_HEADER, input.headers.get(LAB_SIGNATURE_HEADER), input.body, keys, input.now),
  parse(input) {
    const json = parseJsonBody(input.body);
    if (json === undefined) return { ok: false, status: 400, ...because("body_not_json", {}) };
    const parsed = labEventSchema.safeParse(json);
    if (!parsed.success) {
      return { ok: false, status: 422, ...because("invalid_event", { provider: "lab", details: describeZodError(parsed.error) }), eventId: untrustedId(input.body) };
    }
    const event = parsed.data;
    return { ok: true, event: { eventId: event.id, type: event.type, livemode: true, createdAt: event.created, effect: labEffect(event) } };
  },
  untrustedEventId: (input) => untrustedId(input.body),
};
