// GET /api/reconciliations/[id]: a run's summary (scope, period, status, progress, totals per currency)
// and one page of its mismatches (?page, pageSize <= 500, code, sort, direction); with ?mismatches=none
// the summary alone (a progress poll: no sort or count over a large run's mismatches). 404 for an unknown id.
import { authorizeApi } from "@/lib/api/authorize-api";
import { jsonError, refusal } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { mismatchesPage, mismatchQuerySchema, runSummary } from "@/lib/reconciliation/run-report";

export const dynamic = "force-dynamic";

export async function GET(request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> {
  const caller = await authorizeApi(request, "reconciliation.read", { scoped: true });
  if (typeof caller === "string") return refusal(caller) as Response;
  const { id } = await context.params;
  const search = new URL(request.url).searchParams;
  const number = (name: string) => (search.has(name) ? Number(search.get(name)) : undefined);
  const query = mismatchQuerySchema.safeParse({ page: number("page"), pageSize: number("pageSize"), code: search.get("code") ?? undefined, sort: search.get("sort") ?? undefined, direction: search.get("direction") ?? undefined });
  if (!query.success) return jsonError(400, "invalid_query", query.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; "));
  const client = await db();
  const run = await runSummary(client, caller.organizationId, id.slice(0, 100));
  if (!run) return jsonError(404, "not_found", "no reconciliation run with this id");
  if (search.get("mismatches") === "none") return Response.json({ run });
  return Response.json({ run, mismatches: await mismatchesPage(client, run.id, query.data) });
}
