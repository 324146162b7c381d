/** Order statuses. */
export type OrderStatus = "created" | "paid" | "refunded";

/** What happens to an order, named after the normalised effect. */
export type OrderTrigger = "payment.approved" | "payment.refunded" | "payment.partially_refunded";

/**
 * The written transition table: the only order state changes that exist (seed article, control 4).
 * A partial refund keeps the order paid with its refunded total (Stripe charge.refunded).
 */
export const ORDER_TRANSITIONS: ReadonlyArray<{ from: OrderStatus; on: OrderTrigger; to: OrderStatus }> = [
  { from: "created", on: "payment.approved", to: "paid" },
  { from: "paid", on: "payment.refunded", to: "refunded" },
  { from: "paid", on: "payment.partially_refunded", to: "paid" },
];

/** Returns the target status for `from` + `on`, or undefined when the table has no such row. */
export function nextStatus(from: string, on: OrderTrigger): OrderStatus | undefined {
  return ORDER_TRANSITIONS.find((row) => row.from === from && row.on === on)?.to;
}
