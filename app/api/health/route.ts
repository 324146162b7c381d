// GET /api/health: liveness and database reachability, no authentication, no details that help an attacker.
import { checkHealth } from "@/lib/monitoring/health";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  const health = await checkHealth();
  return Response.json(health, { status: health.ok ? 200 : 503 });
}
