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

/** The phases of a dispute that change money or an order (Stripe charge.dispute.created, .funds_withdrawn, .funds_reinstated, .closed). */
export type DisputePhase = "opened" | "funds_withdrawn" | "funds_reinstated" | "won" | "lost";

/**
 * What an event asks the core to do, provider-independent. Amounts are integers in minor units.
 * - payment: a completed payment under `paymentKey`; `amount`/`currency` null when the provider's
 *   figures are not comparable with the order's (the order's own price is credited then); `amount`
 *   "missing" when the provider always signs an amount (Stripe sessions and intents, a mapped Standard
 *   Webhooks field) and this payload has none: it is dead-lettered, never credited at the order's price.
 * - refund: `refundedTotal` is the absolute refunded total of that payment (null = the whole payment).
 * - dispute: a phase of a dispute `disputeId` of the payment (Stripe charge.dispute.*): `opened` moves
 *   the order to disputed; `funds_withdrawn` / `funds_reinstated` book the disputed `amount` out of and
 *   back into the ledger; `won` / `lost` close it (disputed -> paid, or -> dispute_lost).
 * - refund_failed: refund `refundId` of `amount` did not go through (Stripe refund status `failed`):
 *   its amount is booked back and the order's refunded total lowered.
 * - payment_failed: recorded, never blocks a later success.
 * - record_only: stored and answered `ignored` (unhandled type, subscription event, ...).
 */
export type Effect =
  | { kind: "payment"; paymentKey: string; orderRef: OrderRef; amount: number | null | "missing"; currency: string | null }
  | { kind: "refund"; paymentKey: string; orderRef: OrderRef; refundedTotal: number | null; currency: string | null }
  | { kind: "dispute"; paymentKey: string; orderRef: OrderRef; disputeId: string; phase: DisputePhase; amount: number; currency: string }
  | { kind: "refund_failed"; paymentKey: string; orderRef: OrderRef; refundId: string; amount: number; currency: string }
  | { kind: "payment_failed"; paymentKey: string; orderRef: OrderRef }
  | { kind: "record_only"; reason: string; reasonRef?: ReasonRef };

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


/** The endpoint an event came through, as the core needs it: its name and the scope it stands for. */
export interface EndpointScope {
  name: string;
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
