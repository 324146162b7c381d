// The load of the scale-out test: orders, 500 distinct lab events and 2,000 deliveries of
// them in a shuffled order (duplicates, two event ids for one payment, refunds before approvals), plus
// the provider's settlement for the reconciliation. Deterministic for a given seed.
import { seededRandom } from "./provider-burst";

export interface PlannedEvent {
  id: string;
  type: "payment.approved" | "payment.refunded";
  orderId: string;
  paymentId: string;
  amount: number;
  /** The lab event body, as the provider signs it. */
  body: string;
}

export interface ScaleOutPlan {
  orders: { id: string; amount: number; currency: string }[];
  events: PlannedEvent[];
  /** Indexes into `events`, in delivery order; each event at least once. */
  deliveries: number[];
  /** order_id,provider_status,amount,currency (with header). */
  settlementCsv: string;
  expected: { paid: number; refunded: number; created: number; credits: number; refunds: number; secondEventIds: number; refundsDeliveredBeforeApproval: number };
}


/**
 * Builds the plan: `paidOnly` + `refunded` orders get an approval (refunded ones also a full refund),
 * `secondIds` of the approved payments are also announced under a second event id (the provider sending
 * two events for one payment: one credit), `untouched` orders get nothing. Every event is delivered once,
 * then `totalDeliveries - events` extra deliveries repeat random events; the whole list is shuffled, so
 * refunds often arrive before their approvals.
 */
export function scaleOutPlan({ seed = 6, paidOnly = 100, refunded = 150, secondIds = 100, untouched = 50, totalDeliveries = 2_000, createdSeconds = 1_764_000_000 } = {}): ScaleOutPlan {
  const next = seededRandom(seed);
  const orders: ScaleOutPlan["orders"] = [];
  const events: PlannedEvent[] = [];
  const settlement: string[] = ["order_id,provider_status,amount,currency"];
  const event = (id: string, type: PlannedEvent["type"], orderId: string, paymentId: string, amount: number): PlannedEvent => ({
    id,
    type,
    orderId,
    paymentId,
    amount,
    body: JSON.stringify({ id, type, created: createdSeconds, data: { payment_id: paymentId, order_id: orderId, amount, currency: "ARS" } }),
  });
  const total = paidOnly + refunded + untouched;
  for (let i = 1; i <= total; i++) {
    const id = `ord_so${String(i).padStart(4, "0")}`;
    const amount = 10_000 + Math.floor(next() * 990_000);
    orders.push({ id, amount, currency: "ARS" });
    const pay = `pay_so${String(i).padStart(4, "0")}`;
    if (i <= paidOnly + refunded) {
      events.push(event(`evt_so${i}_approved`, "payment.approved", id, pay, amount));
      if (i > paidOnly) events.push(event(`evt_so${i}_refunded`, "payment.refunded", id, pay, amount));
      settlement.push(`${id},${i > paidOnly ? "refunded" : "approved"},${amount},ARS`);
    } else {
      settlement.push(`${id},none,0,ARS`);
    }
  }
  // Second event ids for the same payments, spread over paid and refunded orders.
  for (let k = 0; k < secondIds; k++) {
    const i = 1 + Math.floor((k * (paidOnly + refunded)) / secondIds);
    const order = orders[i - 1];
    events.push(event(`evt_so${i}_approved_again`, "payment.approved", order.id, `pay_so${String(i).padStart(4, "0")}`, order.amount));
  }

  const deliveries = events.map((_, index) => index);
  while (deliveries.length < totalDeliveries) deliveries.push(Math.floor(next() * events.length));
  for (let i = deliveries.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [deliveries[i], deliveries[j]] = [deliveries[j], deliveries[i]];
  }

  const firstDelivery = new Map<string, number>();
  deliveries.forEach((index, position) => {
    if (!firstDelivery.has(events[index].id)) firstDelivery.set(events[index].id, position);
  });
  let refundsDeliveredBeforeApproval = 0;
  for (const candidate of events.filter((e) => e.type === "payment.refunded")) {
    const approvals = events.filter((e) => e.type === "payment.approved" && e.paymentId === candidate.paymentId).map((e) => firstDelivery.get(e.id)!);
    if (firstDelivery.get(candidate.id)! < Math.min(...approvals)) refundsDeliveredBeforeApproval++;
  }

  return {
    orders,
    events,
    deliveries,
    settlementCsv: `${settlement.join("\n")}\n`,
    expected: { paid: paidOnly, refunded, created: untouched, credits: paidOnly + refunded, refunds: refunded, secondEventIds: secondIds, refundsDeliveredBeforeApproval },
  };
}
