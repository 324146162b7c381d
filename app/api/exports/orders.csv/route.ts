// GET /api/exports/orders.csv: every order matching the orders page's filters (?status=&currency=&from=
// &to=&q=&attention=) as CSV, streamed in batches (lib/exports/csv-exports.ts). Another parameter is 400.
// Searching by a customer's e-mail needs payloads.read, as on the page.
import { authorizeApi, callerCan } from "@/lib/api/authorize-api";
import { csvResponse, fileStamp } from "@/lib/api/csv-response";
import { jsonError, methodNotAllowed, optionsAnswer, refusal, withDatabaseErrors } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { ordersExport, parseOrdersExport } from "@/lib/exports/exports";

export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  const caller = await authorizeApi(request, "orders.read", { scoped: true });
  if (typeof caller === "string") return refusal(caller)!;
  const query = parseOrdersExport(new URL(request.url).searchParams);
  if (!query.ok) return jsonError(400, "invalid_query", query.error);
  return withDatabaseErrors(async () => csvResponse(await ordersExport(await db(), caller.organizationId, query.query, { emails: callerCan(caller, "payloads.read") }), `orders-${fileStamp(new Date())}.csv`));
}

export const POST = methodNotAllowed(["GET"]);
export const OPTIONS = optionsAnswer(["GET"]);
export { POST as PUT, POST as PATCH, POST as DELETE };
