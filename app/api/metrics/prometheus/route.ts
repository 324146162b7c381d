// GET /api/metrics/prometheus: the operational counts in Prometheus text format (Bearer API_TOKEN, or an API key or session of a support or admin user).
import { authorizeApi } from "@/lib/api/authorize-api";
import { jsonError, refusal } from "@/lib/api/responses";
import { serverRestarts } from "@/lib/background/server-supervisor";
import { db } from "@/lib/db/client";
import { collectOperationalMetrics } from "@/lib/monitoring/operational-metrics";
import { PROMETHEUS_CONTENT_TYPE, renderPrometheus } from "@/lib/monitoring/prometheus";

export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  const denied = refusal(await authorizeApi(request, "metrics.read"));
  if (denied) return denied;
  let text: string;
  try {
    text = await renderPrometheus(await collectOperationalMetrics(await db()), serverRestarts());
  } catch {
    return jsonError(503, "database_unavailable", "database unavailable; retry later");
  }
  return new Response(text, { headers: { "content-type": PROMETHEUS_CONTENT_TYPE, "cache-control": "no-store" } });
}
