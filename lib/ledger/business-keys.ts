/** Business key of the credit of a payment: one credit per payment, whatever the event ids (seed article, control 3). */
export function creditKey(paymentKey: string): string {
  return `credit:${paymentKey}`;
}

/**
 * Business key of a refund entry: `refund:<payment>` for the refund that completes the payment, and
 * `refund:<payment>:<absolute refunded total>` for a partial one, so a replayed partial cannot count twice.
 */
export function refundKey(paymentKey: string, partialTotal: number | null): string {
  return partialTotal === null ? `refund:${paymentKey}` : `refund:${paymentKey}:${partialTotal}`;
}
