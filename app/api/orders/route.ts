// GET /api/orders: list orders; POST /api/orders: create one idempotently. Bearer API_TOKEN.
import { hasApiToken } from "@/lib/api/bearer";
import { invalidBody, jsonError, unauthorized } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { createOrder, listOrders, newOrderSchema } from "@/lib/orders/orders";

export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  if (!hasApiToken(request.headers)) return unauthorized();
  const url = new URL(request.url);
  const limit = Number(url.searchParams.get("limit") ?? 100) || 100;
  const offset = Number(url.searchParams.get("offset") ?? 0) || 0;
  return Response.json(await listOrders(await db(), { limit, offset }));
}

export async function POST(request: Request): Promise<Response> {
  if (!hasApiToken(request.headers)) return unauthorized();
  let json: unknown;
  try {
    json = await request.json();
  } catch {
    return jsonError(400, "invalid_json", "body is not valid JSON");
  }
  const parsed = newOrderSchema.safeParse(json);
  if (!parsed.success) return invalidBody(parsed.error);
  const result = await createOrder(await db(), parsed.data);
  if (result.kind === "conflict") return jsonError(409, "conflict", result.reason);
  return Response.json(result.order, { status: result.kind === "created" ? 201 : 200 });
}
