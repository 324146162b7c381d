// GET /api/decisions: the decision log as JSON, newest first, filtered as the page is (?outcome=&provider=
// &status=&eventId=&orderId=&from=&to=), `limit` rows after `cursor`: {data, count, nextCursor}.
import { authorizeApi } from "@/lib/api/authorize-api";
import { jsonError, methodNotAllowed, optionsAnswer, refusal, withDatabaseErrors } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { listDecisionsApi, parseDecisionList } from "@/lib/exports/exports";
import { localeOfRequest } from "@/lib/i18n/locales";
import { cliReasons } from "@/lib/reasons/cli-reasons";

export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  const caller = await authorizeApi(request, "decisions.read", { scoped: true });
  if (typeof caller === "string") return refusal(caller)!;
  const query = parseDecisionList(new URL(request.url).searchParams);
  if (!query.ok) return jsonError(400, "invalid_query", query.error);
  return withDatabaseErrors(async () => Response.json(await listDecisionsApi(await db(), caller.organizationId, query.query, cliReasons(localeOfRequest(request.headers)))));
}

export const POST = methodNotAllowed(["GET"]);
export const OPTIONS = optionsAnswer(["GET"]);
export { POST as PUT, POST as PATCH, POST as DELETE };
