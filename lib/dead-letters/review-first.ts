import type { FailureCategory } from "@/lib/core/failures";

/**
 * Dead-letter categories a retry cannot fix by itself: the same stored event meets the same check
 * (the amount or currency against the order, the organisation, the payload's format, a public demo
 * signature) and fails again, one more attempt on the count. A person reviews first: corrects the order
 * or refunds, then retries, or resolves with a note (lib/core/failures.ts gives each its next action).
 * A conflict is not in the list: it is never retried at all (retry-dead-letter.ts).
 */
export const REVIEW_FIRST_CATEGORIES = ["amount_mismatch", "currency_mismatch", "amount_missing", "org_mismatch", "demo_secret", "schema"] as const satisfies readonly FailureCategory[];
export type ReviewFirstCategory = (typeof REVIEW_FIRST_CATEGORIES)[number];

/** True when a dead letter of `category` fails again on a plain retry (see {@link REVIEW_FIRST_CATEGORIES}). */
export function isReviewFirst(category: string): category is ReviewFirstCategory {
  return (REVIEW_FIRST_CATEGORIES as readonly string[]).includes(category);
}
