// GET /api/replays/[id]: a stored replay (its filter, events, orders with before/after/ledger/delta, and
// once applied what the apply did). 404 for an unknown id. Support and admin (dead_letters.manage).
import { authorizeApi } from "@/lib/api/authorize-api";
import { jsonError, methodNotAllowed, optionsAnswer, refusal, withDatabaseErrors } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { readReplay } from "@/lib/replay/replay-store";

export const dynamic = "force-dynamic";

export async function GET(request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> {
  const caller = await authorizeApi(request, "dead_letters.manage", { scoped: true });
  if (typeof caller === "string") return refusal(caller) as Response;
  const { id } = await context.params;
  return withDatabaseErrors(async () => {
    const replay = await readReplay(await db(), caller.organizationId, id.slice(0, 100));
    if (!replay) return jsonError(404, "not_found", "no replay with this id");
    return Response.json(replay.view);
  });
}

export const POST = methodNotAllowed(["GET"]);
export const OPTIONS = optionsAnswer(["GET"]);
export { POST as PUT, POST as PATCH, POST as DELETE };
