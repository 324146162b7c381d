// POST /api/replays {filter, dryRun: true}: previews a replay of the events the filter names (today's
// code, in a transaction that is rolled back) and stores it: 201 {id, events, orders, ...}; 422 when the
// filter names no event or more than a replay holds. GET /api/replays: the latest replays.
// Bearer API_TOKEN, an API key or a session allowed to manage dead letters (support, admin).
import { apiActor, authorizeApi } from "@/lib/api/authorize-api";
import { jsonError, methodNotAllowed, optionsAnswer, refusal, withDatabaseErrors } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { previewReplay } from "@/lib/replay/preview-replay";
import { previewRequestSchema, readBody } from "@/lib/replay/replay-requests";
import { listReplays } from "@/lib/replay/replay-store";

export const dynamic = "force-dynamic";

export async function POST(request: Request): Promise<Response> {
  const caller = await authorizeApi(request, "dead_letters.manage", { scoped: true });
  if (typeof caller === "string") return refusal(caller) as Response;
  const body = await readBody(request, previewRequestSchema);
  if (!body.ok) return jsonError(body.status, body.code, body.message);
  if (!body.data.dryRun) return jsonError(400, "dry_run_required", "a replay is previewed first: send dryRun: true, then POST /api/replays/<id>/apply");
  return withDatabaseErrors(async () => {
    const result = await previewReplay(await db(), apiActor(caller), body.data.filter);
    if (result.kind === "no_events") return jsonError(422, "no_events", "the filter names no event that can be replayed");
    if (result.kind === "too_many") return Response.json({ error: `the filter names ${result.count} events; a replay holds at most ${result.limit}: narrow the filter`, code: "too_many_events", count: result.count, limit: result.limit }, { status: 422 });
    const location = `/api/replays/${result.replay.id}`;
    return Response.json(result.replay, { status: 201, headers: { location } });
  });
}

export async function GET(request: Request): Promise<Response> {
  const caller = await authorizeApi(request, "dead_letters.manage", { scoped: true });
  if (typeof caller === "string") return refusal(caller) as Response;
  return withDatabaseErrors(async () => {
    const data = await listReplays(await db(), caller.organizationId, 50);
    return Response.json({ data, count: data.length });
  });
}

export const PUT = methodNotAllowed(["GET", "POST"]);
export const OPTIONS = optionsAnswer(["GET", "POST"]);
export { PUT as PATCH, PUT as DELETE };
