import { because } from "@/lib/reasons/reason-codes";
import { z } from "zod";
import { parseJsonBody } from "@/lib/providers/json";
import { readJsonPath, type JsonPathStep } from "@/lib/providers/json-path";
import { customerEmailFrom, mappedPathSchema } from "@/lib/providers/search-facts";
import { currencySchema, eventTypeSchema, idSchema, minorAmountSchema } from "@/lib/money/amount-schemas";
import { decodeStandardWebhooksSecret, STANDARD_WEBHOOKS_HEADERS, verifyStandardWebhooks } from "@/lib/providers/signatures/standard-webhooks-signature";
import type { Effect } from "@/lib/core/effect";
import type { EndpointContext, ParseResult, ProviderModule } from "@/lib/providers/types";

/** A JSON path in the supported subset (see {@link parseJsonPath}), parsed into its steps at load time. */
const jsonPathSchema = mappedPathSchema;

const typeListSchema = z.array(eventTypeSchema).default([]);

/**
 * An endpoint's Standard Webhooks field mapping: where the sender's own payload keeps each field
 * (JSON paths) and which of its event types are payments, refunds and failed payments. Validated when
 * the endpoints are loaded. Amounts must be integers in minor units; `refundedTotal` is the payment's
 * absolute refunded total (absent: a refund event refunds the whole payment).
 */
export const standardWebhooksOptionsSchema = z
  .object({
    fields: z.object({
      type: jsonPathSchema,
      orderId: jsonPathSchema,
      paymentId: jsonPathSchema,
      amount: jsonPathSchema.optional(),
      currency: jsonPathSchema.optional(),
      refundedTotal: jsonPathSchema.optional(),
      livemode: jsonPathSchema.optional(),
      account: jsonPathSchema.optional(),
      /** The customer's e-mail, kept for search (personal data, emptied with the payload); a value that is not an e-mail is left out, never refused. */
      customerEmail: jsonPathSchema.optional(),
    }),
    eventTypes: z.object({ payment: typeListSchema, refund: typeListSchema, paymentFailed: typeListSchema }),
    /**
     * "not-sent": the sender's payments carry no amount, so the order's own price is credited. Must be
     * said explicitly: otherwise `fields.amount` is required, and a payment without it is dead-lettered.
     */
    amount: z.literal("not-sent").optional(),
  })
  .superRefine((options, context) => {
    const seen = new Map<string, string>();
    for (const [kind, types] of Object.entries(options.eventTypes)) {
      for (const type of types) {
        const other = seen.get(type);
        if (other) context.addIssue({ code: "custom", path: ["eventTypes", kind], message: `type ${type} is also listed under ${other}` });
        seen.set(type, kind);
      }
    }
    if ((options.fields.amount === undefined) !== (options.fields.currency === undefined)) {
      context.addIssue({ code: "custom", path: ["fields"], message: "amount and currency are mapped together or not at all" });
    }
    if (options.fields.amount === undefined && options.amount !== "not-sent") {
      context.addIssue({ code: "custom", path: ["fields", "amount"], message: 'map the payment\'s amount and currency, or set amount: "not-sent" when the sender never sends one' });
    }
    if (options.fields.amount !== undefined && options.amount === "not-sent") {
      context.addIssue({ code: "custom", path: ["amount"], message: '"not-sent" contradicts the mapped fields.amount' });
    }
  });

/** Options as written in the endpoint config (JSON paths as strings). */
export type StandardWebhooksOptionsInput = z.input<typeof standardWebhooksOptionsSchema>;
/** Options after validation (each JSON path parsed). */
export type StandardWebhooksOptions = z.output<typeof standardWebhooksOptionsSchema>;

type Mapped = { path: string; steps: JsonPathStep[] };

/** A mapped field that is missing or invalid in a verified payload (answered 422). */
class MappingError extends Error {}

/** Reads and validates the field at `mapped`; undefined when the field is not mapped. Throws {@link MappingError}. */
function read<T>(document: unknown, mapped: Mapped | undefined, schema: z.ZodType<T>, name: string): T | undefined {
  if (!mapped) return undefined;
  const raw = readJsonPath(document, mapped.steps);
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new MappingError(`${name} at ${mapped.path}: ${raw === undefined ? "missing" : parsed.error.issues[0].message}`);
  return parsed.data;
}

/** Like {@link read}, for fields the payload may leave out: absent gives undefined, present but invalid throws. */
function readOptional<T>(document: unknown, mapped: Mapped | undefined, schema: z.ZodType<T>, name: string): T | undefined {
  if (!mapped || readJsonPath(document, mapped.steps) === undefined) return undefined;
  return read(document, mapped, schema, name);
}

function mapEffect(document: unknown, type: string, options: StandardWebhooksOptions): Effect {
  const { fields, eventTypes } = options;
  const kind = eventTypes.payment.includes(type) ? "payment" : eventTypes.refund.includes(type) ? "refund" : eventTypes.paymentFailed.includes(type) ? "payment_failed" : undefined;
  if (!kind) return { kind: "record_only", ...because("unmapped_event_type", { type }) };
  const orderRef = { orderId: read(document, fields.orderId, idSchema, "orderId") };
  const paymentKey = read(document, fields.paymentId, idSchema, "paymentId")!;
  if (kind === "payment_failed") return { kind, paymentKey, orderRef };
  const currency = readOptional(document, fields.currency, currencySchema, "currency") ?? null;
  if (kind === "payment") {
    // amount: "not-sent" (no mapping): the order's price is credited. Mapped but absent from the payload:
    // "missing", a dead letter, never a credit at the order's price.
    if (!fields.amount) return { kind, paymentKey, orderRef, amount: null, currency: null };
    const amount = readOptional(document, fields.amount, minorAmountSchema, "amount") ?? null;
    if (amount === null && currency === null) return { kind, paymentKey, orderRef, amount: "missing", currency: null };
    // Amount and currency are compared with the order together or not at all.
    if ((amount === null) !== (currency === null)) throw new MappingError(`${amount === null ? "amount" : "currency"} at ${(amount === null ? fields.amount : fields.currency)!.path}: missing (amount and currency come together)`);
    return { kind, paymentKey, orderRef, amount, currency };
  }
  return { kind, paymentKey, orderRef, refundedTotal: readOptional(document, fields.refundedTotal, minorAmountSchema, "refundedTotal") ?? null, currency };
}

/**
 * Standard Webhooks (standardwebhooks.com): `webhook-id`, `webhook-timestamp` and `webhook-signature`
 * (`v1,<base64>` values) over `<id>.<timestamp>.<body>` with a `whsec_` base64 secret, tolerance 300 s.
 * The event id is `webhook-id`. The payload is the sender's own: the endpoint's field mapping says
 * where type, order, payment, amount and currency are. Live/test comes from the mapped `livemode` field
 * when the payload has it, else the endpoint's own mode; a mapped `account` is checked when present; a
 * mapped `customerEmail` is kept for search.
 */
export const standardWebhooksProvider: ProviderModule<StandardWebhooksOptions> = {
  name: "standard-webhooks",
  optionsSchema: standardWebhooksOptionsSchema,
  checkSecret: (secret) => (decodeStandardWebhooksSecret(secret) ? undefined : "must be whsec_ followed by base64"),
  verify: (input, keys) => verifyStandardWebhooks(input.headers, input.body, keys, input.now),
  parse(input, options, endpoint: EndpointContext): ParseResult {
    const eventId = idSchema.safeParse(input.headers.get(STANDARD_WEBHOOKS_HEADERS.id)?.trim());
    if (!eventId.success) return { ok: false, status: 400, ...because("webhook_id_invalid", {}) };
    const document = parseJsonBody(input.body);
    if (document === undefined) return { ok: false, status: 400, ...because("body_not_json", {}), eventId: eventId.data };
    let eventType: string | undefined;
    try {
      eventType = read(document, options.fields.type, eventTypeSchema, "type")!;
      const livemode = read(document, options.fields.livemode, z.boolean().optional(), "livemode");
      const account = read(document, options.fields.account, idSchema.optional(), "account");
      const mapped = mapEffect(document, eventType, options);
      const timestamp = Number(input.headers.get(STANDARD_WEBHOOKS_HEADERS.timestamp));
      const customerEmail = options.fields.customerEmail ? customerEmailFrom(readJsonPath(document, options.fields.customerEmail.steps)) : undefined;
      // A refunded total is a snapshot taken when the message was signed (webhook-timestamp, unix seconds).
      const effect: Effect = mapped.kind === "refund" && Number.isSafeInteger(timestamp) ? { ...mapped, at: timestamp } : mapped;
      return {
        ok: true,
        event: {
          eventId: eventId.data,
          type: eventType,
          livemode: livemode ?? endpoint.livemode,
          account,
          createdAt: timestamp,
          effect,
          ...(customerEmail ? { customerEmail } : {}),
        },
      };
    } catch (error) {
      if (!(error instanceof MappingError)) throw error;
      return { ok: false, status: 422, ...(eventType ? because("invalid_typed_event", { type: eventType, details: error.message }) : because("invalid_untyped_event", { details: error.message })), eventId: eventId.data, eventType };
    }
  },
  untrustedEventId: (input) => input.headers.get(STANDARD_WEBHOOKS_HEADERS.id)?.trim().slice(0, 255) || undefined,
};
