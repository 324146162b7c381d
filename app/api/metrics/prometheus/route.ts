// GET /api/metrics/prometheus: the operational counts in Prometheus text format (Bearer API_TOKEN).
import { hasApiToken } from "@/lib/api/bearer";
import { jsonError, unauthorized } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { collectOperationalMetrics } from "@/lib/monitoring/operational-metrics";
import { PROMETHEUS_CONTENT_TYPE, renderPrometheus } from "@/lib/monitoring/prometheus";

export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  if (!hasApiToken(request.headers)) return unauthorized();
  let text: string;
  try {
    text = await renderPrometheus(await collectOperationalMetrics(await db()));
  } catch {
    return jsonError(503, "database_unavailable", "database unavailable; retry later");
  }
  return new Response(text, { headers: { "content-type": PROMETHEUS_CONTENT_TYPE, "cache-control": "no-store" } });
}
