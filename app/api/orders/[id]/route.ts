// GET /api/orders/[id]: one order with its ledger and events. Bearer API_TOKEN.
import { hasApiToken } from "@/lib/api/bearer";
import { jsonError, unauthorized } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { getOrder } from "@/lib/orders/orders";

export const dynamic = "force-dynamic";

export async function GET(request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> {
  if (!hasApiToken(request.headers)) return unauthorized();
  const { id } = await context.params;
  const order = await getOrder(await db(), id);
  if (!order) return jsonError(404, "not_found", `order ${id} not found`);
  return Response.json(order);
}
