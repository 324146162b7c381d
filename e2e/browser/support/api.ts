// Seeding through HTTP, as the store and the provider would: orders by the JSON API (Bearer token) and
// signed lab deliveries to the webhook route.
import { expect, type APIRequestContext } from "@playwright/test";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";
import { E2E } from "./e2e-env";

const bearer = { authorization: `Bearer ${E2E.apiToken}` };

/** POST /api/orders; expects 201 (created) or 200 (same order again). */
export async function createOrder(request: APIRequestContext, id: string, amount: number, currency = "ARS"): Promise<void> {
  const response = await request.post("/api/orders", { data: { id, amount, currency }, headers: bearer });
  expect([200, 201], `create ${id}`).toContain(response.status());
}

/** A lab event as the lab provider sends it. */
export interface LabEventInput {
  id: string;
  /** The lab's two types, or another (stored and answered "unhandled event type", e.g. a long one for the layout). */
  type: "payment.approved" | "payment.refunded" | (string & {});
  orderId: string;
  paymentId: string;
  amount: number;
  currency?: string;
}

/**
 * Signs (with `secret`, default the lab's current one, at `timestamp`, unix seconds, default now) and
 * posts one lab delivery; returns the HTTP status and the receiver's answer.
 */
export async function deliverLab(
  request: APIRequestContext,
  event: LabEventInput,
  secret: string = E2E.labSecret,
  timestamp: number = Math.floor(Date.now() / 1000),
): Promise<{ status: number; outcome: string; reason: string }> {
  const body = JSON.stringify({ id: event.id, type: event.type, created: 1760181330, data: { payment_id: event.paymentId, order_id: event.orderId, amount: event.amount, currency: event.currency ?? "ARS" } });
  const response = await request.post("/api/webhooks/lab", {
    data: body,
    headers: { "content-type": "application/json", "Lab-Signature": signTimestamped(secret, timestamp, body) },
  });
  const json = (await response.json()) as { outcome: string; reason: string };
  return { status: response.status(), ...json };
}
