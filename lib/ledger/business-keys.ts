/**
 * The kinds of ledger entry, with their sign: a credit (+) per payment; refunds (−); the reversal of a
 * failed refund (+); a dispute's withdrawal (−) and reinstatement (+).
 */
export type LedgerKind = "credit" | "refund" | "refund_failed" | "dispute_withdrawal" | "dispute_reinstatement";

/**
 * The scope a payment lives in: the provider, account and live/test of the endpoint that reported it.
 * A payment id means something only inside its scope: a lab event naming a Stripe PaymentIntent id, or
 * a test endpoint naming a live one, must never touch that payment.
 */
export interface PaymentScope {
  provider: string;
  account: string;
  livemode: boolean;
}

function scopePrefix(scope: PaymentScope): string {
  return `${scope.provider}:${scope.account}:${scope.livemode ? "live" : "test"}`;
}

/**
 * Business key of the credit of a payment: one credit per payment of one scope, whatever the event ids
 * (seed article, control 3): `credit:<provider>:<account>:<live|test>:<payment>`. Accounts hold no colon
 * (endpoint validation), so the key cannot be forged across scopes.
 */
export function creditKey(scope: PaymentScope, paymentKey: string): string {
  return `credit:${scopePrefix(scope)}:${paymentKey}`;
}

/**
 * Business key of a refund entry: `refund:<provider>:<account>:<live|test>:<payment>` for the refund
 * that completes the payment, and `...:<payment>:<absolute refunded total>` for a partial one, so a
 * replayed partial cannot count twice (Stripe charge.refunded reports absolute totals).
 */
export function refundKey(scope: PaymentScope, paymentKey: string, partialTotal: number | null, failedBefore = 0): string {
  const base = `refund:${scopePrefix(scope)}:${paymentKey}`;
  const key = partialTotal === null ? base : `${base}:${partialTotal}`;
  // After a failed refund the same absolute total can be reached again by a new refund: it is another booking.
  return failedBefore === 0 ? key : `${key}:after-${failedBefore}-failed`;
}

/**
 * Business key of the reversal of a failed refund: `refund_failed:<provider>:<account>:<live|test>:<payment>:<refund id>`,
 * one per refund (Stripe refund status `failed`, events charge.refund.updated and refund.failed).
 */
export function refundFailedKey(scope: PaymentScope, paymentKey: string, refundId: string): string {
  return `refund_failed:${scopePrefix(scope)}:${paymentKey}:${refundId}`;
}

/**
 * Business key of a dispute's movement of money: `dispute:<provider>:<account>:<live|test>:<payment>:<dispute id>:withdrawn|reinstated`,
 * one withdrawal and one reinstatement per dispute (Stripe charge.dispute.funds_withdrawn / .funds_reinstated).
 */
export function disputeKey(scope: PaymentScope, paymentKey: string, disputeId: string, movement: "withdrawn" | "reinstated"): string {
  return `dispute:${scopePrefix(scope)}:${paymentKey}:${disputeId}:${movement}`;
}
