import { because } from "@/lib/reasons/reason-codes";
import { z } from "zod";
import { describeZodError, parseJsonBody, untrustedId } from "@/lib/providers/json";
import { eventTypeSchema, idSchema } from "@/lib/money/amount-schemas";
import { verifyBodyHmacBase64 } from "@/lib/providers/signatures/body-hmac-base64";
import type { Effect } from "@/lib/core/effect";
import type { ParseResult, ProviderModule } from "@/lib/providers/types";
import { readJsonPath } from "@/lib/providers/json-path";
import { customerEmailFrom, mappedPathSchema } from "@/lib/providers/search-facts";

/** Base64 HMAC-SHA256 of the raw body with the endpoint's signing secret. */
export const YOLFI_SIGNATURE_HEADER = "X-Yolfi-Signature";
/** A convenience copy of the payload's `id`: when present it must equal the signed id. */
export const YOLFI_EVENT_ID_HEADER = "X-Yolfi-Event-ID";

/** A token amount: a decimal string in the payment token's own units (e.g. "24.95" USDT), never minor units of the order's currency. */
const tokenAmountSchema = z.string().regex(/^\d{1,30}(?:\.\d{1,30})?$/, "must be a decimal string");

/** Yolfi's webhook payload (docs.yolfi.com/webhooks, the seed guide). `data` fields vary by event type. */
export const yolfiEventSchema = z.object({
  id: idSchema,
  type: eventTypeSchema,
  orgId: idSchema.nullish(),
  livemode: z.boolean(),
  createdAt: z.union([z.string().max(64), z.number().nonnegative()]).nullish(),
  data: z
    .object({
      paymentId: idSchema.nullish(),
      invoiceId: idSchema.nullish(),
      checkoutSessionId: idSchema.nullish(),
      merchantOrderId: idSchema.nullish(),
      paylinkId: idSchema.nullish(),
      amount: tokenAmountSchema.nullish(),
      token: z.string().max(32).nullish(),
    })
    .default({}),
});

export type YolfiEvent = z.infer<typeof yolfiEventSchema>;

/**
 * A Yolfi endpoint's options: where, if anywhere, its payloads carry the payer's e-mail
 * (`fields.customerEmail`, a JSON path such as `$.data.customerEmail`), kept for search. The payload the
 * seed guide describes has none, so without a mapping no e-mail is kept.
 */
export const yolfiOptionsSchema = z
  .object({ fields: z.object({ customerEmail: mappedPathSchema.optional() }).strict().default({}) })
  .strict()
  .default({ fields: {} });

/** Yolfi options after validation. */
export type YolfiOptions = z.output<typeof yolfiOptionsSchema>;

/** Event types that are stored and change nothing: an invoice is not a payment, a subscription event names no single order. */
export const YOLFI_RECORD_ONLY_TYPES: Record<string, string> = {
  "invoice.created": "an invoice is not a payment: nothing changed",
  "invoice.overdue": "invoice overdue: recorded; never reverts a delivered order",
  "subscription.overdue": "subscription event: recorded; changes no single order",
  "subscription.cancelled": "subscription event: recorded; changes no single order",
};

/** The reason code of each record-only Yolfi type (their English sentences are {@link YOLFI_RECORD_ONLY_TYPES}). */
const YOLFI_RECORD_ONLY_CODES: Record<string, "yolfi_invoice_created" | "yolfi_invoice_overdue" | "yolfi_subscription_event"> = {
  "invoice.created": "yolfi_invoice_created",
  "invoice.overdue": "yolfi_invoice_overdue",
  "subscription.overdue": "yolfi_subscription_event",
  "subscription.cancelled": "yolfi_subscription_event",
};

function unixSeconds(createdAt: YolfiEvent["createdAt"]): number | undefined {
  if (typeof createdAt === "number") return Math.floor(createdAt > 1e11 ? createdAt / 1000 : createdAt);
  if (typeof createdAt === "string") {
    const ms = Date.parse(createdAt);
    return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
  }
  return undefined;
}

function yolfiEffect(event: YolfiEvent): Effect | string {
  if (event.type !== "payment.confirmed") {
    return { kind: "record_only", ...because(YOLFI_RECORD_ONLY_CODES[event.type] ?? "yolfi_unhandled_type", { type: event.type }) };
  }
  const { paymentId, merchantOrderId, checkoutSessionId } = event.data;
  if (!paymentId) return "payment.confirmed needs data.paymentId";
  if (!merchantOrderId && !checkoutSessionId) return "payment.confirmed needs data.merchantOrderId or data.checkoutSessionId";
  // The token amount is what the merchant nets in the payment token, not the order's price in its own
  // currency: amount and currency stay null so the core credits the order's own price (seed guide).
  return { kind: "payment", paymentKey: paymentId, orderRef: { orderId: merchantOrderId ?? undefined, checkoutSessionId: checkoutSessionId ?? undefined }, amount: null, currency: null };
}

/**
 * Yolfi crypto payments: X-Yolfi-Signature is the base64 HMAC-SHA256 of the raw body with the
 * endpoint's signing secret. No timestamp is signed, so replay protection is the stored event id alone.
 * Only payment.confirmed delivers; it correlates by the server-stored order (merchantOrderId, else the
 * checkoutSessionId stored with the order). `orgId` must be the endpoint's account (else 422, dead letter).
 */
export const yolfiProvider: ProviderModule<YolfiOptions> = {
  name: "yolfi",
  optionsSchema: yolfiOptionsSchema,
  verify: (input, keys) => verifyBodyHmacBase64(YOLFI_SIGNATURE_HEADER, input.headers.get(YOLFI_SIGNATURE_HEADER), input.body, keys),
  parse(input, options): ParseResult {
    const json = parseJsonBody(input.body);
    if (json === undefined) return { ok: false, status: 400, ...because("body_not_json", {}) };
    const parsed = yolfiEventSchema.safeParse(json);
    if (!parsed.success) return { ok: false, status: 422, ...because("invalid_event", { provider: "Yolfi", details: describeZodError(parsed.error) }), eventId: untrustedId(input.body) };
    const event = parsed.data;
    const headerId = input.headers.get(YOLFI_EVENT_ID_HEADER)?.trim();
    if (headerId && headerId !== event.id) {
      return { ok: false, status: 400, ...because("event_id_header_mismatch", { header: YOLFI_EVENT_ID_HEADER, eventId: event.id }), eventId: event.id, eventType: event.type };
    }
    const effect = yolfiEffect(event);
    if (typeof effect === "string") return { ok: false, status: 422, ...because("invalid_event", { provider: "Yolfi", details: effect }), eventId: event.id, eventType: event.type };
    const mapped = options?.fields.customerEmail;
    const customerEmail = mapped ? customerEmailFrom(readJsonPath(json, mapped.steps)) : undefined;
    return {
      ok: true,
      event: { eventId: event.id, type: event.type, livemode: event.livemode, account: event.orgId ?? undefined, createdAt: unixSeconds(event.createdAt), effect, ...(customerEmail ? { customerEmail } : {}) },
    };
  },
  untrustedEventId: (input) => untrustedId(input.body),
};
