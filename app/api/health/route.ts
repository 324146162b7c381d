// GET /api/health: liveness and database reachability for load balancers. No sign-in, no counts.
import { checkDatabase } from "@/lib/health/health-summary";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  const ok = await checkDatabase();
  return Response.json({ status: ok ? "ok" : "unavailable", database: ok ? "ok" : "unreachable" }, { status: ok ? 200 : 503, headers: { "cache-control": "no-store" } });
}
