// GET /api/ledger: ledger entries as JSON in booking order, filtered as the ledger export is (the orders
// page's filters, ?orderId=, ?bookedFrom=&bookedTo=), `limit` rows after `cursor`: {data, count, nextCursor}.
import { authorizeApi, callerCan } from "@/lib/api/authorize-api";
import { jsonError, methodNotAllowed, optionsAnswer, refusal, withDatabaseErrors } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { listLedgerApi, parseLedgerList } from "@/lib/exports/exports";

export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  const caller = await authorizeApi(request, "orders.read", { scoped: true });
  if (typeof caller === "string") return refusal(caller)!;
  const query = parseLedgerList(new URL(request.url).searchParams);
  if (!query.ok) return jsonError(400, "invalid_query", query.error);
  return withDatabaseErrors(async () => Response.json(await listLedgerApi(await db(), caller.organizationId, query.query, { emails: callerCan(caller, "payloads.read") })));
}

export const POST = methodNotAllowed(["GET"]);
export const OPTIONS = optionsAnswer(["GET"]);
export { POST as PUT, POST as PATCH, POST as DELETE };
