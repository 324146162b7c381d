import { POST as postWebhook } from "@/app/api/webhooks/[endpoint]/route";
import { GET as getOrders, POST as postOrders } from "@/app/api/orders/route";
import { GET as getOrderById } from "@/app/api/orders/[id]/route";
import type { OrderView } from "@/lib/orders/orders";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";
import { TEST_API_TOKEN, TEST_LAB_SECRET } from "./test-env";

/** Every signature value (hex/base64 after `v1=` or `v1,`) sent by these helpers, for the secrets grep. */
export const sentSignatures = new Set<string>();

/** Calls the webhook route handler with a real Request, as Next.js would. */
export async function deliver(endpoint: string, body: string | Buffer, headers: Record<string, string>): Promise<{ status: number; json: { outcome: string; reason: string } }> {
  for (const value of Object.values(headers)) for (const match of value.matchAll(/v1[=,]([A-Za-z0-9+/=]{16,})/g)) sentSignatures.add(match[1]);
  const request = new Request(`http://127.0.0.1/api/webhooks/${endpoint}`, { method: "POST", body: typeof body === "string" ? body : new Uint8Array(body), headers: { "content-type": "application/json", ...headers } });
  const response = await postWebhook(request, { params: Promise.resolve({ endpoint }) });
  return { status: response.status, json: await response.json() };
}

/** A lab event body, as the lab provider sends it. */
export function labEvent(id: string, type: "payment.approved" | "payment.refunded", orderId: string, paymentId: string, amount: number, currency = "ARS"): string {
  return JSON.stringify({ id, type, created: 1760181330, data: { payment_id: paymentId, order_id: orderId, amount, currency } });
}

/** Delivers a lab body signed with `secret` at `timestamp` (unix seconds, default now). */
export function deliverLab(body: string, { secret = TEST_LAB_SECRET, timestamp = Math.floor(Date.now() / 1000) } = {}) {
  return deliver("lab", body, { "Lab-Signature": signTimestamped(secret, timestamp, body) });
}

const auth = { authorization: `Bearer ${TEST_API_TOKEN}` };

/** Creates an order through POST /api/orders. */
export async function createOrder(id: string, amount: number, currency = "ARS", extra: Record<string, unknown> = {}): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await postOrders(new Request("http://127.0.0.1/api/orders", { method: "POST", body: JSON.stringify({ id, amount, currency, ...extra }), headers: { ...auth, "content-type": "application/json" } }));
  return { status: response.status, json: await response.json() };
}

export type OrderJson = OrderView;

/** Reads an order through GET /api/orders/{id}. */
export async function readOrder(id: string): Promise<OrderJson> {
  const response = await getOrderById(new Request(`http://127.0.0.1/api/orders/${id}`, { headers: auth }), { params: Promise.resolve({ id }) });
  if (response.status !== 200) throw new Error(`GET /api/orders/${id}: ${response.status}`);
  return response.json();
}

/** GET /api/orders with arbitrary headers (for auth tests). */
export function listOrdersWith(headers: Record<string, string>, query = ""): Promise<Response> {
  return getOrders(new Request(`http://127.0.0.1/api/orders${query}`, { headers }));
}
