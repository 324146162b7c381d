// POST /api/reconciliations: run a reconciliation against the settlement CSV in the body (text/csv).
// Bearer API_TOKEN or a session allowed to run it. 200 with the report (mismatches may be empty), 400 with the line number on bad CSV.
import { authorizeApi } from "@/lib/api/authorize-api";
import { jsonError, refusal } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { reconcile, reportJson } from "@/lib/reconciliation/reconcile";
import { readSettlementCsv, SettlementCsvError } from "@/lib/reconciliation/settlement-csv";

export const dynamic = "force-dynamic";

export async function POST(request: Request): Promise<Response> {
  const denied = refusal(await authorizeApi(request, "reconciliation.run"));
  if (denied) return denied;
  const csv = Buffer.from(await request.arrayBuffer());
  const source = new URL(request.url).searchParams.get("source") ?? "api upload";
  try {
    const report = await reconcile(await db(), readSettlementCsv(csv), source);
    return Response.json(reportJson(report));
  } catch (error) {
    if (error instanceof SettlementCsvError) return jsonError(400, "invalid_settlement", error.message);
    throw error;
  }
}
