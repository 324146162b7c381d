// GET /api/orders: list orders (?limit=&offset=|cursor=&status=&currency=&from=&to=&q=&attention=; another
// parameter is 400); POST /api/orders: create one idempotently. Bearer API_TOKEN, an API key or a session.
import { authorizeApi, callerCan } from "@/lib/api/authorize-api";
import { invalidBody, jsonError, methodNotAllowed, optionsAnswer, refusal, withDatabaseErrors } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { contentTypeProblem } from "@/lib/http/content-type";
import { createOrder, listOrders, newOrderSchema, parseListQuery } from "@/lib/orders/orders";

export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  const caller = await authorizeApi(request, "orders.read", { scoped: true });
  if (typeof caller === "string") return refusal(caller)!;
  const query = parseListQuery(new URL(request.url).searchParams);
  if (!query.ok) return jsonError(400, "invalid_query", query.error);
  // Searching by a customer's e-mail reads personal data: only for roles that may (payloads.read).
  return withDatabaseErrors(async () => Response.json(await listOrders(await db(), caller.organizationId, query.query, { emails: callerCan(caller, "payloads.read") })));
}

export async function POST(request: Request): Promise<Response> {
  const caller = await authorizeApi(request, "orders.create", { scoped: true });
  if (typeof caller === "string") return refusal(caller)!;
  const unsupported = contentTypeProblem(request.headers.get("content-type"));
  if (unsupported) return jsonError(415, "unsupported_media_type", unsupported);
  let json: unknown;
  try {
    json = await request.json();
  } catch {
    return jsonError(400, "invalid_json", "body is not valid JSON");
  }
  const parsed = newOrderSchema.safeParse(json);
  if (!parsed.success) return invalidBody(parsed.error);
  return withDatabaseErrors(async () => {
    const result = await createOrder(await db(), caller.organizationId, parsed.data);
    if (result.kind === "conflict") return jsonError(409, "conflict", result.reason);
    return Response.json(result.order, { status: result.kind === "created" ? 201 : 200 });
  });
}

export const PUT = methodNotAllowed(["GET", "POST"]);
export const OPTIONS = optionsAnswer(["GET", "POST"]);
export { PUT as PATCH, PUT as DELETE };
