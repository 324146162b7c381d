/** Order statuses. */
export type OrderStatus = "created" | "paid" | "refunded" | "disputed" | "dispute_lost";

/** Every order status, in the order a merchant meets them. */
export const ORDER_STATUSES: readonly OrderStatus[] = ["created", "paid", "refunded", "disputed", "dispute_lost"];

/** What happens to an order, named after the normalised effect. */
export type OrderTrigger =
  | "payment.approved"
  | "payment.refunded"
  | "payment.partially_refunded"
  | "refund.failed"
  | "dispute.opened"
  | "dispute.won"
  | "dispute.lost";

/**
 * The written transition table: the only order state changes that exist (seed article, control 4).
 * A partial refund keeps the order paid with its refunded total (Stripe charge.refunded). A failed
 * refund gives the money back: a refunded order is paid again (Stripe refund status `failed`). A
 * dispute holds a paid or refunded order until it closes: won, it is paid (or refunded) again; lost,
 * the money is gone (Stripe charge.dispute.created and .closed with status won or lost). A closing
 * event may be the first one of its dispute to arrive (Stripe does not order events), so a paid or
 * refunded order can be lost directly. Refunds are booked whatever the dispute's state (Stripe refunds
 * a disputed charge all the same); the dispute keeps deciding the order's status meanwhile, so those
 * refunds leave a disputed or lost order where it is (a status that stays is not listed).
 */
export const ORDER_TRANSITIONS: ReadonlyArray<{ from: OrderStatus; on: OrderTrigger; to: OrderStatus }> = [
  { from: "created", on: "payment.approved", to: "paid" },
  { from: "paid", on: "payment.refunded", to: "refunded" },
  { from: "paid", on: "payment.partially_refunded", to: "paid" },
  { from: "refunded", on: "refund.failed", to: "paid" },
  { from: "paid", on: "refund.failed", to: "paid" },
  { from: "paid", on: "dispute.opened", to: "disputed" },
  { from: "refunded", on: "dispute.opened", to: "disputed" },
  { from: "disputed", on: "dispute.won", to: "paid" },
  { from: "disputed", on: "dispute.won", to: "refunded" },
  { from: "disputed", on: "dispute.lost", to: "dispute_lost" },
  { from: "paid", on: "dispute.lost", to: "dispute_lost" },
  { from: "refunded", on: "dispute.lost", to: "dispute_lost" },
];

/** Returns the target status for `from` + `on`, or undefined when the table has no such row. */
export function nextStatus(from: string, on: OrderTrigger): OrderStatus | undefined {
  return ORDER_TRANSITIONS.find((row) => row.from === from && row.on === on)?.to;
}
