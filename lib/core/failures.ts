import type { Because, ReasonRef } from "@/lib/reasons/reason-codes";

/** Why an event could not be applied; decides the HTTP status, the dead letter and whether a retry may help. */
export type FailureCategory =
  | "transition"
  | "unknown_order"
  | "amount_mismatch"
  | "amount_missing"
  | "demo_secret"
  | "currency_mismatch"
  | "org_mismatch"
  | "conflict"
  | "schema"
  | "retries_exhausted";

const RETRYABLE: Record<FailureCategory, boolean> = {
  transition: true,
  unknown_order: true,
  amount_mismatch: false,
  amount_missing: false,
  demo_secret: false,
  currency_mismatch: false,
  org_mismatch: false,
  conflict: false,
  schema: false,
  retries_exhausted: false,
};

const HTTP_STATUS: Record<FailureCategory, 409 | 422> = {
  transition: 409,
  unknown_order: 409,
  amount_mismatch: 422,
  amount_missing: 422,
  demo_secret: 422,
  currency_mismatch: 422,
  org_mismatch: 422,
  conflict: 409,
  schema: 422,
  retries_exhausted: 409,
};

const NEXT_ACTION: Record<FailureCategory, string> = {
  transition: "wait for the missing transition (e.g. the approval), then retry",
  unknown_order: "check the order exists in the store, then retry",
  amount_mismatch: "review the payment against the order; refund or correct the order",
  amount_missing: "check the payment's amount with the provider before crediting it by hand; never retry blindly",
  demo_secret: "signed with a public demo secret while the demo ran: anyone could have sent it; never apply it, ask the provider for the real event",
  currency_mismatch: "review the payment against the order; refund or correct the order",
  org_mismatch: "check which organisation the endpoint is bound to; never retry blindly",
  conflict: "compare both bodies with the provider; the stored event was kept",
  schema: "check the provider's payload format",
  retries_exhausted: "investigate the last error, then retry",
};

/**
 * Thrown inside the apply transaction to roll it back (the event mark included, so the provider's retry
 * is not taken for a duplicate). Carries the category, the HTTP status (409 retryable conflict with the
 * order's state, 422 a mismatch that will not resolve) and a reason safe to show.
 */
export class ApplyFailure extends Error {
  readonly httpStatus: 409 | 422;
  readonly retryable: boolean;
  readonly nextAction: string;
  /** The English sentence (logs, answers, the `reason` columns). */
  readonly reason: string;
  /** The reason's code and parameters, when its writer gave one (pages render it in the reader's locale). */
  readonly reasonRef?: ReasonRef;
  constructor(
    readonly category: FailureCategory,
    reason: string | Because,
    readonly orderId?: string,
  ) {
    super(typeof reason === "string" ? reason : reason.reason);
    this.reason = typeof reason === "string" ? reason : reason.reason;
    if (typeof reason !== "string") this.reasonRef = reason.reasonRef;
    this.name = "ApplyFailure";
    this.httpStatus = HTTP_STATUS[category];
    this.retryable = RETRYABLE[category];
    this.nextAction = NEXT_ACTION[category];
  }
}

/** Thrown to restart the whole apply transaction after a concurrent writer changed the row it relied on. */
export class ConcurrentChange extends Error {
  constructor(what: string) {
    super(`concurrent change: ${what}`);
    this.name = "ConcurrentChange";
  }
}
