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
export function refundKey(scope: PaymentScope, paymentKey: string, partialTotal: number | null): string {
  const base = `refund:${scopePrefix(scope)}:${paymentKey}`;
  return partialTotal === null ? base : `${base}:${partialTotal}`;
}
