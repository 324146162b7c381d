// GET /api/exports/decisions.csv: every decision matching the decision log's filters (?outcome=&provider=
// &status=&eventId=&orderId=&from=&to=) as CSV, newest first, streamed in batches; reasons in the
// reader's language (the language switch's cookie, else Accept-Language).
import { authorizeApi } from "@/lib/api/authorize-api";
import { csvResponse, fileStamp } from "@/lib/api/csv-response";
import { jsonError, methodNotAllowed, optionsAnswer, refusal, withDatabaseErrors } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { decisionsExport, parseDecisionsExport } from "@/lib/exports/exports";
import { localeOfRequest } from "@/lib/i18n/locales";
import { cliReasons } from "@/lib/reasons/cli-reasons";

export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  const caller = await authorizeApi(request, "decisions.read", { scoped: true });
  if (typeof caller === "string") return refusal(caller)!;
  const query = parseDecisionsExport(new URL(request.url).searchParams);
  if (!query.ok) return jsonError(400, "invalid_query", query.error);
  return withDatabaseErrors(async () => csvResponse(decisionsExport(await db(), caller.organizationId, query.query, cliReasons(localeOfRequest(request.headers))), `decisions-${fileStamp(new Date())}.csv`));
}

export const POST = methodNotAllowed(["GET"]);
export const OPTIONS = optionsAnswer(["GET"]);
export { POST as PUT, POST as PATCH, POST as DELETE };
