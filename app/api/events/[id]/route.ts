// GET /api/events/[id]: one stored event (Acredita's id) with its payload (or when it was purged), header
// names, endpoint and secret label, decisions (reasons in the reader's language), ledger entries, extra
// charges, delivery, dead letters and outbox rows. The payload and the customer's e-mail need
// payloads.read (support, admin); a merchant gets `payload: {state: "hidden"}`. 404 for an unknown id.
import { authorizeApi, callerCan } from "@/lib/api/authorize-api";
import { jsonError, methodNotAllowed, optionsAnswer, refusal, withDatabaseErrors } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { eventDetailJson, getEventDetail } from "@/lib/events/event-detail";
import { localeOfRequest } from "@/lib/i18n/locales";
import { cliReasons } from "@/lib/reasons/cli-reasons";

export const dynamic = "force-dynamic";

export async function GET(request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> {
  const caller = await authorizeApi(request, "decisions.read", { scoped: true });
  if (typeof caller === "string") return refusal(caller)!;
  const { id } = await context.params;
  return withDatabaseErrors(async () => {
    const detail = await getEventDetail(await db(), caller.organizationId, id, { payloads: callerCan(caller, "payloads.read") });
    if (!detail) return jsonError(404, "not_found", "no stored event with this id");
    return Response.json(eventDetailJson(detail, cliReasons(localeOfRequest(request.headers))));
  });
}

export const POST = methodNotAllowed(["GET"]);
export const OPTIONS = optionsAnswer(["GET"]);
export { POST as PUT, POST as PATCH, POST as DELETE };
