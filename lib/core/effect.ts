import type { ReasonRef } from "@/lib/reasons/reason-codes";

/**
 * The core's vocabulary: what a verified event asks the core to do, independent of any provider.
 * Providers produce these (lib/providers); the core applies them and never imports a provider.
 */

/** Outcomes a decision can have. Response bodies use the first four and `ignored`/`accepted`. */
export type DecisionOutcome = "applied" | "duplicate" | "ignored" | "accepted" | "rejected" | "dead_lettered" | "retry_scheduled";

/** Provider names known to Acredita; each has one module under lib/providers/. */
export type ProviderName = "lab" | "stripe" | "yolfi" | "standard-webhooks";

/** How an order is found for an event: the merchant's order id, or a checkout session stored with the order. */
export interface OrderRef {
  orderId?: string;
  checkoutSessionId?: string;
}

/**
 * A refund as the provider names it (Stripe's refund object: docs.stripe.com/api/refunds/object): its
 * id, amount (minor units of the payment's currency), status and creation time (unix seconds, when
 * given). `failed` and `canceled` refunds moved money out and back: both are booked, then reversed.
 */
export interface RefundFact {
  refundId: string;
  amount: number;
  status: string;
  createdAt: number | null;
}

/** A dispute's status as the books need it: open until closed; a closed dispute never reopens. */
export type DisputeStatus = "open" | "won" | "lost";

/**
 * One movement of a dispute's money (Stripe: an entry of the dispute's `balance_transactions`): its id
 * and signed amount in minor units of the payment's currency (negative: withdrawn; positive: reinstated).
 */
export interface DisputeMovement {
  id: string;
  amount: number;
}

/**
 * What an event asks the core to do, provider-independent. Amounts are integers in minor units.
 * - payment: a completed payment under `paymentKey`; `amount`/`currency` null when the provider's
 *   figures are not comparable with the order's (the order's own price is credited then); `amount`
 *   "missing" when the provider always signs an amount (Stripe sessions and intents, a mapped Standard
 *   Webhooks field) and this payload has none: it is dead-lettered, never credited at the order's price.
 * - refund: what the payload says of the payment's refunds: `refunds`, the refund objects it names
 *   (each booked once by its id); `refundedTotal`, the payment's absolute refunded total when the payload
 *   gives one (null = the whole payment; absent = the payload gives none), used only for what no refund
 *   object explains; `at`, the provider's creation time of the event (unix seconds), which tells a
 *   snapshot taken before a refund failed from one taken after.
 * - dispute: a dispute `disputeId` of the payment (Stripe charge.dispute.*): its `status` when the
 *   payload says one (the most advanced status seen wins: a closed dispute stays closed), its money
 *   `movements` (balance transactions; null when the payload has none, then `fallback` names the
 *   movement the event type stands for, of `amount`).
 * - payment_failed: recorded, never blocks a later success.
 * - record_only: stored and answered `ignored` (unhandled type, subscription event, ...).
 * `chargeId`, when given, names the provider's charge so a parked event can say what it waits for.
 */
export type Effect =
  | { kind: "payment"; paymentKey: string; orderRef: OrderRef; amount: number | null | "missing"; currency: string | null }
  | { kind: "refund"; paymentKey: string; orderRef: OrderRef; chargeId?: string; currency: string | null; refundedTotal?: number | null; refunds?: RefundFact[]; at?: number }
  | {
      kind: "dispute";
      paymentKey: string;
      orderRef: OrderRef;
      chargeId?: string;
      disputeId: string;
      status: DisputeStatus | null;
      amount: number;
      currency: string;
      movements: DisputeMovement[] | null;
      fallback: "withdrawn" | "reinstated" | null;
    }
  | { kind: "payment_failed"; paymentKey: string; orderRef: OrderRef }
  | { kind: "record_only"; reason: string; reasonRef?: ReasonRef };

/**
 * Effects as inbox payloads stored by earlier versions held them: a failed refund as its own kind, a
 * dispute as a phase. {@link currentEffect} reads them as today's effects, so an event stored before an
 * upgrade applies after it.
 */
export type StoredEffect =
  | Effect
  | { kind: "refund_failed"; paymentKey: string; orderRef: OrderRef; refundId: string; amount: number; currency: string }
  | { kind: "dispute"; paymentKey: string; orderRef: OrderRef; disputeId: string; phase: "opened" | "funds_withdrawn" | "funds_reinstated" | "won" | "lost"; amount: number; currency: string };

/** Today's effect for a stored one (see {@link StoredEffect}); an effect of today's shape is returned as it is. */
export function currentEffect(effect: StoredEffect): Effect {
  if (effect.kind === "refund_failed") {
    return { kind: "refund", paymentKey: effect.paymentKey, orderRef: effect.orderRef, currency: effect.currency, refunds: [{ refundId: effect.refundId, amount: effect.amount, status: "failed", createdAt: null }] };
  }
  if (effect.kind === "dispute" && "phase" in effect) {
    const { phase, ...rest } = effect;
    const status: DisputeStatus | null = phase === "opened" || phase === "funds_withdrawn" ? "open" : phase === "won" || phase === "lost" ? phase : null;
    const fallback = phase === "funds_withdrawn" ? "withdrawn" : phase === "funds_reinstated" ? "reinstated" : null;
    return { ...rest, kind: "dispute", status, movements: null, fallback };
  }
  return effect;
}

/** A verified, schema-valid event reduced to what processing needs (stored as the inbox payload). */
export interface NormalizedEvent {
  eventId: string;
  type: string;
  livemode: boolean;
  /** The account/organisation the payload claims, when it names one (checked against the endpoint). */
  account?: string;
  /** Provider's creation time, unix seconds, when given. */
  createdAt?: number;
  effect: StoredEffect;
  /**
   * The customer's e-mail when the payload gives one (lower-cased; Stripe's `customer_details.email`,
   * `receipt_email`, `billing_details.email`, or an endpoint's mapped field), kept for search only.
   * Personal data: stored beside the payload and emptied with it by retention. Decides nothing.
   */
  customerEmail?: string;
  /** The provider's charge id when the payload names one (Stripe `ch_…`), kept for search only. */
  chargeId?: string;
}


/** The endpoint an event came through, as the core needs it: its name and the scope it stands for. */
export interface EndpointScope {
  name: string;
  /** The organization whose orders and books the endpoint's events touch. */
  organizationId: string;
  provider: ProviderName;
  livemode: boolean;
}

/** The answer to one delivery: HTTP status plus the JSON body `{outcome, reason}`. */
export interface ProcessResult {
  httpStatus: number;
  outcome: DecisionOutcome;
  reason: string;
  /** The reason's code and parameters, when its writer gave one (stored beside `reason`, never sent to the provider). */
  reasonRef?: ReasonRef;
  orderId?: string;
  /** For a duplicate: the status of the stored event (received, processing, processed, ...). */
  eventStatus?: string;
}
