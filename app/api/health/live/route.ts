// GET /api/health/live: liveness only: the process answers HTTP. Reads nothing (no database, no
// settings), so an orchestrator can tell a hung process from an unreachable database (/api/health),
// and the benchmark can measure what one route handler costs in this build (bench/).
export const dynamic = "force-dynamic";

export function GET(): Response {
  return Response.json({ ok: true });
}
