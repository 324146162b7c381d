import type { SqlSession } from "@/lib/db/driver";
import { newRowId } from "@/lib/db/row-id";
import { insertOutboxMessage } from "@/lib/outbox/outbox-store";
import { DEFAULT_ORGANIZATION } from "@/lib/organizations/organizations";

/** What the merchant's fulfilment endpoint receives (JSON body of the POST). Amounts in minor units. */
export interface FulfilmentBody {
  type: "order.paid";
  order_id: string;
  amount: number;
  currency: string;
  payment_key: string;
  provider: string;
  /** false for a test-mode payment (a test endpoint's secret can trigger one): never ship for it. */
  livemode: boolean;
  event_id: string;
  paid_at: string;
}

/**
 * The stable idempotency key of an organization's order's fulfilment: an order is paid at most once
 * (transition table), so one key per order. Sent as `Idempotency-Key` so the merchant can drop a repeat
 * (IETF draft-ietf-httpapi-idempotency-key-header). The default organization's keys keep the form they
 * had before organizations (`fulfilment:<order>`), so a message queued before the upgrade is not sent twice.
 */
export function fulfilmentIdempotencyKey(organizationId: string, orderId: string): string {
  return organizationId === DEFAULT_ORGANIZATION.id ? `fulfilment:${orderId}` : `fulfilment:${organizationId}:${orderId}`;
}

/**
 * Writes the fulfilment message of a newly paid order into the outbox, inside the transaction that made
 * the transition: the message exists if and only if the payment was applied. Returns its id. Throws the
 * database's errors (a second message for one order violates the UNIQUE key and rolls back).
 */
export async function queueFulfilment(
  session: SqlSession,
  target: string,
  paid: { organizationId: string; orderId: string; amount: number; currency: string; paymentKey: string; provider: string; livemode: boolean; eventId: string },
  now: Date,
): Promise<string> {
  const body: FulfilmentBody = {
    type: "order.paid",
    order_id: paid.orderId,
    amount: paid.amount,
    currency: paid.currency,
    payment_key: paid.paymentKey,
    provider: paid.provider,
    livemode: paid.livemode,
    event_id: paid.eventId,
    paid_at: now.toISOString(),
  };
  const id = newRowId(now);
  await insertOutboxMessage(session, { id, organizationId: paid.organizationId, idempotencyKey: fulfilmentIdempotencyKey(paid.organizationId, paid.orderId), orderId: paid.orderId, target, body: JSON.stringify(body) }, now);
  return id;
}
