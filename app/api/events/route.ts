// GET /api/events?eventId=…[&provider=…][&endpoint=…]: the stored events holding a provider's event id
// (live and test, or two accounts, may each hold it), newest first, as {data, count}. eventId is
// required; another parameter is 400.
import { authorizeApi } from "@/lib/api/authorize-api";
import { jsonError, methodNotAllowed, optionsAnswer, refusal, withDatabaseErrors } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { findStoredEvents } from "@/lib/events/event-detail";
import { parseEventLookup } from "@/lib/events/event-lookup";

export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  const caller = await authorizeApi(request, "decisions.read", { scoped: true });
  if (typeof caller === "string") return refusal(caller)!;
  const query = parseEventLookup(new URL(request.url).searchParams);
  if (!query.ok) return jsonError(400, "invalid_query", query.error);
  return withDatabaseErrors(async () => Response.json(await findStoredEvents(await db(), caller.organizationId, query.query)));
}

export const POST = methodNotAllowed(["GET"]);
export const OPTIONS = optionsAnswer(["GET"]);
export { POST as PUT, POST as PATCH, POST as DELETE };
