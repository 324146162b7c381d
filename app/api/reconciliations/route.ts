// POST /api/reconciliations: queue a reconciliation of the settlement report in the body (streamed to
// disk under RECONCILIATION_UPLOAD_MAX_BYTES), answered 202 with the run's id; a worker runs it.
// Query: format, provider, account, mode=live|test, from, to (ISO 8601, the period [from, to)), source.
// Bearer API_TOKEN, an API key or a session allowed to run it; audited with the caller as actor.
// 413 names the limit; 400 gives the line and the problem (empty, binary, a missing column, a bad scope),
// in English and as a reason code.
import { apiActor, authorizeApi } from "@/lib/api/authorize-api";
import { refusal } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { submitReport, type UploadVia } from "@/lib/reconciliation/submit-report";

export const dynamic = "force-dynamic";

export async function POST(request: Request): Promise<Response> {
  const caller = await authorizeApi(request, "reconciliation.run", { scoped: true });
  if (typeof caller === "string") return refusal(caller) as Response;
  const via: UploadVia = caller.kind === "key" ? { kind: "key", keyStart: caller.keyStart } : caller.kind === "token" ? { kind: "token" } : { kind: "dashboard" };
  const result = await submitReport(await db(), { body: request.body, contentLength: request.headers.get("content-length"), params: Object.fromEntries(new URL(request.url).searchParams), actor: apiActor(caller), via });
  if (result.kind === "too_large") return Response.json({ error: result.message, code: "too_large", limitBytes: result.limitBytes }, { status: 413, headers: { connection: "close" } });
  if (result.kind === "too_many_runs") return Response.json({ error: result.message, code: "too_many_runs", limit: result.limit, scope: result.scope }, { status: 429, headers: { connection: "close", "retry-after": "60" } });
  // `reason`: the problem as a reason code and parameters, which the upload page renders in the reader's locale.
  if (result.kind === "invalid") return Response.json({ error: result.message, code: "invalid_settlement", reason: result.reason }, { status: 400 });
  const location = `/api/reconciliations/${result.runId}`;
  return Response.json({ runId: result.runId, status: "queued", bytes: result.bytes, location }, { status: 202, headers: { location } });
}
