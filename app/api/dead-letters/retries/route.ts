// POST /api/dead-letters/retries {filter, dryRun: true}: counts the open dead letters of the events the
// filter names (the replay's filter) and lists them; {filter, expectedCount}: retries them through the same
// core, each audited, only while their count is still the one shown (409 `count_changed` otherwise).
// Support and admin (dead_letters.manage), an API key or API_TOKEN.
import { apiActor, authorizeApi } from "@/lib/api/authorize-api";
import { jsonError, methodNotAllowed, optionsAnswer, refusal, withDatabaseErrors } from "@/lib/api/responses";
import { isRole } from "@/lib/auth/roles";
import { db } from "@/lib/db/client";
import { filterRetryRequestSchema, readBody } from "@/lib/replay/replay-requests";
import { deadLettersByFilter, retryDeadLettersByFilter } from "@/lib/replay/retry-by-filter";

export const dynamic = "force-dynamic";

export async function POST(request: Request): Promise<Response> {
  const caller = await authorizeApi(request, "dead_letters.manage", { scoped: true });
  if (typeof caller === "string") return refusal(caller) as Response;
  const body = await readBody(request, filterRetryRequestSchema);
  if (!body.ok) return jsonError(body.status, body.code, body.message);
  const { filter, dryRun, expectedCount, confirmReviewFirst } = body.data;
  // The operator token acts as an admin; a key or a session with its owner's role (already checked above).
  const actor = { ...apiActor(caller), name: apiActor(caller).email, role: caller.kind === "token" || !isRole(caller.role) ? ("admin" as const) : caller.role };
  return withDatabaseErrors(async () => {
    if (dryRun) {
      const found = await deadLettersByFilter(await db(), caller.organizationId, filter);
      if (found.kind === "too_many") return Response.json({ error: `the filter names ${found.count} dead letters; one retry takes at most ${found.limit}: narrow the filter`, code: "too_many_dead_letters", count: found.count, limit: found.limit }, { status: 422 });
      return Response.json({ count: found.count, deadLetters: found.deadLetters });
    }
    const result = await retryDeadLettersByFilter(await db(), actor, filter, expectedCount!, { confirmReviewFirst });
    if (result.kind === "too_many") return Response.json({ error: `the filter names ${result.count} dead letters; one retry takes at most ${result.limit}: narrow the filter`, code: "too_many_dead_letters", count: result.count, limit: result.limit }, { status: 422 });
    if (result.kind === "count_changed") return Response.json({ error: `the filter now names ${result.count} open dead letters, not ${result.expected}: count again, then retry`, code: "count_changed", count: result.count, expected: result.expected }, { status: 409 });
    const outcomes: Record<string, number> = {};
    for (const one of result.results) outcomes[one.outcome] = (outcomes[one.outcome] ?? 0) + 1;
    return Response.json({ count: result.results.length, outcomes, results: result.results });
  });
}

export const GET = methodNotAllowed(["POST"]);
export const OPTIONS = optionsAnswer(["POST"]);
export { GET as PUT, GET as PATCH, GET as DELETE };
