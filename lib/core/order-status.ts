import type { DisputeStatus } from "@/lib/core/effect";
import { ORDER_TRANSITIONS, type OrderStatus, type OrderTrigger } from "@/lib/core/order-transitions";

/**
 * The status a credited order's books say it has, whatever event was applied last: a lost dispute makes
 * it `dispute_lost`, an open one `disputed`; otherwise it is `refunded` when its refunds (net of failed
 * ones) reach the credit, else `paid`. Amounts in minor units. Deriving the status from the books instead
 * of moving it by the last event is what makes it the same for every delivery order (Stripe does not
 * order its events: docs.stripe.com/webhooks#event-ordering).
 */
export function statusOfBooks(books: { credit: number; refunded: number; disputes: readonly DisputeStatus[] }): OrderStatus {
  if (books.disputes.includes("lost")) return "dispute_lost";
  if (books.disputes.includes("open")) return "disputed";
  return books.refunded >= books.credit ? "refunded" : "paid";
}

/**
 * Whether moving an order `from` -> `to` on `trigger` is written down in the transition table (seed
 * article, control 4). Staying in the same status is not a transition and always allowed.
 */
export function transitionAllowed(from: string, trigger: OrderTrigger, to: OrderStatus): boolean {
  return from === to || ORDER_TRANSITIONS.some((row) => row.from === from && row.on === trigger && row.to === to);
}
