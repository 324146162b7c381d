// GET /api/metrics: the operational counts as JSON (Bearer API_TOKEN, or an API key or session of a support or admin user).
import { authorizeApi } from "@/lib/api/authorize-api";
import { jsonError, refusal } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { collectOperationalMetrics } from "@/lib/monitoring/operational-metrics";

export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  const denied = refusal(await authorizeApi(request, "metrics.read"));
  if (denied) return denied;
  try {
    return Response.json(await collectOperationalMetrics(await db()), { headers: { "cache-control": "no-store" } });
  } catch {
    return jsonError(503, "database_unavailable", "database unavailable; retry later");
  }
}
