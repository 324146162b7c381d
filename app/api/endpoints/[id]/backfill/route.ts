// POST /api/endpoints/[id]/backfill {sinceHours?}: asks for a backfill of the endpoint's missed events
// (default the last 72 hours, at most 720), run by a worker with the endpoint's API key: 202 with the run
// (queued; the one already queued or running when there is one). GET: the latest backfill asked for by
// hand (dashboard or command line), with its counts once done; 404 when none. An admin or API_TOKEN, in
// the organization it acts in.
import { endpointActor, endpointRequest } from "@/lib/api/endpoint-answers";
import { jsonError, methodNotAllowed, optionsAnswer, withDatabaseErrors } from "@/lib/api/responses";
import { backfillRequestSchema, requestBackfill } from "@/lib/backfill/backfill-requests";
import { db } from "@/lib/db/client";
import { latestBackfills } from "@/lib/monitoring/gap-checks";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

export async function POST(request: Request, context: Context): Promise<Response> {
  const call = await endpointRequest(request, context, backfillRequestSchema);
  if (!call.ok) return call.response;
  const { caller, params, body } = call;
  return withDatabaseErrors(async () => {
    const result = await requestBackfill(await db(), params.id, { ...endpointActor(caller), organizationId: caller.organizationId }, { sinceHours: body.sinceHours });
    if (result.kind === "queued") return Response.json(result.run, { status: 202 });
    if (result.kind === "forbidden") return jsonError(403, "forbidden", result.message);
    if (result.kind === "not_found") return jsonError(404, "not_found", result.message);
    return jsonError(409, result.code, result.message);
  });
}

export async function GET(request: Request, context: Context): Promise<Response> {
  const call = await endpointRequest(request, context);
  if (!call.ok) return call.response;
  const { caller, params } = call;
  return withDatabaseErrors(async () => {
    const run = (await latestBackfills(await db(), caller.organizationId, [params.id])).get(params.id);
    return run ? Response.json(run) : jsonError(404, "not_found", `no backfill of endpoint ${params.id.slice(0, 40)} here`);
  });
}

export const PUT = methodNotAllowed(["POST", "GET"]);
export const OPTIONS = optionsAnswer(["POST", "GET"]);
export { PUT as PATCH, PUT as DELETE };
