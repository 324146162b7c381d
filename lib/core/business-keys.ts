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

/** The prefix every refund entry of a payment shares: `refund:<provider>:<account>:<live|test>:<payment>`. */
export function refundKeyPrefix(scope: PaymentScope, paymentKey: string): string {
  return `refund:${scopePrefix(scope)}:${paymentKey}`;
}

/**
 * Business key of one refund the provider names by its id (Stripe's refund object):
 * `refund:<provider>:<account>:<live|test>:<payment>:id:<refund id>`, booked once whatever event reports it.
 */
export function refundObjectKey(scope: PaymentScope, paymentKey: string, refundId: string): string {
  return `${refundKeyPrefix(scope, paymentKey)}:id:${refundId}`;
}

/**
 * Business key of the part of a payment's refunds that only an absolute refunded total explains (a
 * snapshot without refund objects: Stripe charge.refunded without its `refunds` list, Standard Webhooks'
 * mapped total, the lab): `...:<payment>:total:<total>:at:<snapshot unix seconds or ?>`. The key keeps the
 * snapshot's figure and time, so later facts (a refund that failed before it) are weighed against it.
 */
export function refundTotalKey(scope: PaymentScope, paymentKey: string, total: number, at: number | null): string {
  return `${refundKeyPrefix(scope, paymentKey)}:total:${total}:at:${at ?? "?"}`;
}

/**
 * What a refund entry's key says, read back: a refund object (`id`), a snapshot's total (`total`, with its
 * time when known), or a key written before refunds were booked by object (`legacy`: the running total
 * it reached, or null for the refund that completed the payment).
 */
export type RefundKeyParts = { kind: "id"; refundId: string } | { kind: "total"; total: number; at: number | null } | { kind: "legacy"; total: number | null };

/** Parses a refund entry's business key of payment `paymentKey` in `scope` (see {@link RefundKeyParts}); null when it is not one. */
export function parseRefundKey(scope: PaymentScope, paymentKey: string, businessKey: string): RefundKeyParts | null {
  const prefix = refundKeyPrefix(scope, paymentKey);
  if (!businessKey.startsWith(prefix)) return null;
  const rest = businessKey.slice(prefix.length);
  if (rest === "") return { kind: "legacy", total: null };
  if (rest.startsWith(":id:")) return { kind: "id", refundId: rest.slice(4) };
  const total = /^:total:(\d+):at:(\d+|\?)$/.exec(rest);
  if (total) return { kind: "total", total: Number(total[1]), at: total[2] === "?" ? null : Number(total[2]) };
  const legacy = /^:(\d+)(?::after-\d+-failed)?$/.exec(rest);
  return legacy ? { kind: "legacy", total: Number(legacy[1]) } : null;
}

/**
 * Business key of the reversal of a failed refund: `refund_failed:<provider>:<account>:<live|test>:<payment>:<refund id>`,
 * one per refund (Stripe refund status `failed`, events charge.refund.updated and refund.failed).
 */
export function refundFailedKey(scope: PaymentScope, paymentKey: string, refundId: string): string {
  return `refund_failed:${scopePrefix(scope)}:${paymentKey}:${refundId}`;
}

/** The prefix of every entry of one dispute: `dispute:<provider>:<account>:<live|test>:<payment>:<dispute id>`. */
export function disputeKeyPrefix(scope: PaymentScope, paymentKey: string, disputeId: string): string {
  return `dispute:${scopePrefix(scope)}:${paymentKey}:${disputeId}`;
}

/**
 * Business key of a dispute's movement of money. By balance transaction (Stripe: the dispute's
 * `balance_transactions`, each booked once by its id): `<dispute prefix>:txn:<balance transaction id>`.
 * Without one (a payload that has none): `<dispute prefix>:withdrawn|reinstated`, one of each per dispute
 * (Stripe charge.dispute.funds_withdrawn / .funds_reinstated, of the dispute's amount).
 */
export function disputeKey(scope: PaymentScope, paymentKey: string, disputeId: string, movement: "withdrawn" | "reinstated" | { transactionId: string }): string {
  const prefix = disputeKeyPrefix(scope, paymentKey, disputeId);
  return typeof movement === "string" ? `${prefix}:${movement}` : `${prefix}:txn:${movement.transactionId}`;
}
