// GET /api/metrics: the operational counts as JSON (Bearer API_TOKEN).
import { hasApiToken } from "@/lib/api/bearer";
import { jsonError, unauthorized } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { collectOperationalMetrics } from "@/lib/monitoring/operational-metrics";

export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  if (!hasApiToken(request.headers)) return unauthorized();
  try {
    return Response.json(await collectOperationalMetrics(await db()), { headers: { "cache-control": "no-store" } });
  } catch {
    return jsonError(503, "database_unavailable", "database unavailable; retry later");
  }
}
