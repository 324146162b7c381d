import type { z } from "zod";

/** Provider names known to Acredita; each has one module under lib/providers/. */
export type ProviderName = "lab" | "stripe" | "yolfi" | "standard-webhooks";

/** One configured signing secret. `label` is safe to store and show; `value` never leaves memory. */
export interface SigningSecret {
  label: string;
  value: string;
}

/** How an order is found for an event: the merchant's order id, or a checkout session stored with the order. */
export interface OrderRef {
  orderId?: string;
  checkoutSessionId?: string;
}

/**
 * What an event asks the core to do, provider-independent. Amounts are integers in minor units.
 * - payment: a completed payment under `paymentKey`; `amount`/`currency` null when the provider's
 *   figures are not comparable with the order's (the order's own price is credited then); `amount`
 *   "missing" when the provider always signs an amount (Stripe sessions and intents, a mapped Standard
 *   Webhooks field) and this payload has none: it is dead-lettered, never credited at the order's price.
 * - refund: `refundedTotal` is the absolute refunded total of that payment (null = the whole payment).
 * - payment_failed: recorded, never blocks a later success.
 * - record_only: stored and answered `ignored` (unhandled type, subscription event, ...).
 */
export type Effect =
  | { kind: "payment"; paymentKey: string; orderRef: OrderRef; amount: number | null | "missing"; currency: string | null }
  | { kind: "refund"; paymentKey: string; orderRef: OrderRef; refundedTotal: number | null; currency: string | null }
  | { kind: "payment_failed"; paymentKey: string; orderRef: OrderRef }
  | { kind: "record_only"; reason: string };

/** A verified, schema-valid event reduced to what processing needs (stored as the inbox payload). */
export interface NormalizedEvent {
  eventId: string;
  type: string;
  livemode: boolean;
  /** The account/organisation the payload claims, when it names one (checked against the endpoint). */
  account?: string;
  /** Provider's creation time, unix seconds, when given. */
  createdAt?: number;
  effect: Effect;
}

/**
 * What a verifier checks a delivery against: the endpoint's active secrets (any may match), its retired
 * secrets (never accepted: only used to diagnose a rejection) and the timestamp window in seconds.
 */
export interface VerificationKeys {
  secrets: SigningSecret[];
  retiredSecrets: SigningSecret[];
  toleranceSeconds: number;
}

/** What a provider module may know of the endpoint a delivery came through (never its secrets). */
export interface EndpointContext {
  name: string;
  account: string;
  livemode: boolean;
}

/**
 * Result of verifying a delivery's signature over its raw bytes. `diagnosis` says, when it can be found
 * safely, WHY a signature failed (retired secret, whitespace, re-serialised body, clock, encoding); it
 * names secrets by label only.
 */
export type VerifyResult =
  | { ok: true; secretLabel: string }
  | { ok: false; status: 400 | 401; reason: string; diagnosis?: string };

/** Result of parsing a verified body. `status` 400 for malformed JSON or headers, 422 for schema or account failures. */
export type ParseResult =
  | { ok: true; event: NormalizedEvent }
  | { ok: false; status: 400 | 422; reason: string; eventId?: string; eventType?: string };

/** Input a provider module sees: header lookup is case-insensitive (Web `Headers`). */
export interface DeliveryInput {
  headers: Headers;
  body: Buffer;
  now: Date;
}

/** The contract every provider module implements: verify on bytes, then normalise. */
export interface ProviderModule<Options = unknown> {
  name: ProviderName;
  /** Verifies the signature (constant time, every secret) and, where the provider signs one, the timestamp window. */
  verify(input: DeliveryInput, keys: VerificationKeys): VerifyResult;
  /** Parses and validates a VERIFIED body into a {@link NormalizedEvent}; `options` were validated by {@link optionsSchema}. */
  parse(input: DeliveryInput, options: Options, endpoint: EndpointContext): ParseResult;
  /** Validates an endpoint's provider options when the endpoints are loaded (absent: the provider takes none). */
  optionsSchema?: z.ZodType<Options>;
  /** Checks a configured secret's format when the endpoints are loaded; returns a problem (never echoing the value) or undefined. */
  checkSecret?(secret: string): string | undefined;
  /** Best-effort event id from an UNVERIFIED body, for the decision log only (marked unverified). */
  untrustedEventId(input: DeliveryInput): string | undefined;
}
