// POST /api/reconciliations: run a reconciliation against the settlement CSV in the body (text/csv).
// Bearer API_TOKEN, an API key or a session allowed to run it; audited with the caller as actor. 200 with the report (mismatches may be empty), 400 with the line number on bad CSV.
import { apiActor, authorizeApi } from "@/lib/api/authorize-api";
import { jsonError, refusal } from "@/lib/api/responses";
import { recordAudit } from "@/lib/audit/record-audit";
import { db } from "@/lib/db/client";
import { reconcile, reportJson } from "@/lib/reconciliation/reconcile";
import { readSettlementCsv, SettlementCsvError } from "@/lib/reconciliation/settlement-csv";

export const dynamic = "force-dynamic";

export async function POST(request: Request): Promise<Response> {
  const caller = await authorizeApi(request, "reconciliation.run");
  if (caller === "unauthenticated" || caller === "forbidden") return refusal(caller) as Response;
  const csv = Buffer.from(await request.arrayBuffer());
  const source = new URL(request.url).searchParams.get("source") ?? "api upload";
  try {
    const client = await db();
    const report = await reconcile(client, readSettlementCsv(csv), source);
    const via = caller.kind === "key" ? `API key ${caller.keyStart}…` : caller.kind === "token" ? "API_TOKEN" : "session";
    await recordAudit(client, apiActor(caller), { action: "reconciliation.run", targetType: "reconciliation_run", targetId: report.runId, note: `${source.slice(0, 100)}: ${report.mismatches.length} mismatches (API, ${via})` });
    return Response.json(reportJson(report));
  } catch (error) {
    if (error instanceof SettlementCsvError) return jsonError(400, "invalid_settlement", error.message);
    throw error;
  }
}
