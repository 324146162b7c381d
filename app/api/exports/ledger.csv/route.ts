// GET /api/exports/ledger.csv: the ledger entries of the orders matching the orders page's filters, or of
// one order (?orderId=), booked in a day range (?bookedFrom=&bookedTo=), as CSV streamed in batches.
import { authorizeApi, callerCan } from "@/lib/api/authorize-api";
import { csvResponse, fileStamp } from "@/lib/api/csv-response";
import { jsonError, methodNotAllowed, optionsAnswer, refusal, withDatabaseErrors } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { ledgerExport, parseLedgerExport } from "@/lib/exports/exports";

export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  const caller = await authorizeApi(request, "orders.read", { scoped: true });
  if (typeof caller === "string") return refusal(caller)!;
  const query = parseLedgerExport(new URL(request.url).searchParams);
  if (!query.ok) return jsonError(400, "invalid_query", query.error);
  return withDatabaseErrors(async () => csvResponse(await ledgerExport(await db(), caller.organizationId, query.query, { emails: callerCan(caller, "payloads.read") }), `ledger-${fileStamp(new Date())}.csv`));
}

export const POST = methodNotAllowed(["GET"]);
export const OPTIONS = optionsAnswer(["GET"]);
export { POST as PUT, POST as PATCH, POST as DELETE };
