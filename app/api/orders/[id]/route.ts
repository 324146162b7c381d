// GET /api/orders/[id]: one order with its ledger and events. Bearer API_TOKEN or a session.
import { authorizeApi } from "@/lib/api/authorize-api";
import { jsonError, methodNotAllowed, optionsAnswer, refusal, withDatabaseErrors } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { getOrder } from "@/lib/orders/orders";

export const dynamic = "force-dynamic";

export async function GET(request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> {
  const caller = await authorizeApi(request, "orders.read", { scoped: true });
  if (typeof caller === "string") return refusal(caller)!;
  const { id } = await context.params;
  return withDatabaseErrors(async () => {
    const order = await getOrder(await db(), caller.organizationId, id);
    if (!order) return jsonError(404, "not_found", `order ${id} not found`);
    return Response.json(order);
  });
}

export const POST = methodNotAllowed(["GET"]);
export const OPTIONS = optionsAnswer(["GET"]);
export { POST as PUT, POST as PATCH, POST as DELETE };
