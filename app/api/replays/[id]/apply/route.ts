// POST /api/replays/[id]/apply: applies exactly the previewed events of a replay, once, audited: 200
// {id, status, applied, events}; 200 with `applied: 0, alreadyApplied: true` when it was applied before;
// 409 `stale_preview` when an order's status, totals or ledger changed since the preview (preview again);
// 404 for an unknown id. Support and admin (dead_letters.manage), an API key or API_TOKEN.
import { apiActor, authorizeApi } from "@/lib/api/authorize-api";
import { jsonError, methodNotAllowed, optionsAnswer, refusal, withDatabaseErrors } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { applyReplay } from "@/lib/replay/apply-replay";

export const dynamic = "force-dynamic";

export async function POST(request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> {
  const caller = await authorizeApi(request, "dead_letters.manage", { scoped: true });
  if (typeof caller === "string") return refusal(caller) as Response;
  const { id } = await context.params;
  return withDatabaseErrors(async () => {
    const result = await applyReplay(await db(), apiActor(caller), id.slice(0, 100));
    if (result.kind === "not_found") return jsonError(404, "not_found", "no replay with this id");
    if (result.kind === "stale") {
      const what = result.orders.length > 0 ? `the books of ${result.orders.join(", ")} changed since the preview` : "the books or the events changed since the preview";
      return Response.json({ error: `${what}: nothing was applied; preview the replay again (POST /api/replays)`, code: "stale_preview", orders: result.orders, events: result.events }, { status: 409 });
    }
    const { replay } = result;
    if (result.kind === "already_applied") return Response.json({ id: replay.id, status: replay.status, applied: 0, alreadyApplied: true, appliedAt: replay.appliedAt, appliedBy: replay.appliedBy });
    return Response.json({ id: replay.id, status: replay.status, applied: result.applied, alreadyApplied: false, appliedAt: replay.appliedAt, appliedBy: replay.appliedBy, events: replay.applied, orders: replay.orders });
  });
}

export const GET = methodNotAllowed(["POST"]);
export const OPTIONS = optionsAnswer(["POST"]);
export { GET as PUT, GET as PATCH, GET as DELETE };
