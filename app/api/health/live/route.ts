// GET /api/health/live: liveness only: the process answers HTTP. Reads nothing but the process's own
// ACREDITA_MODE (no database, no settings validation), so an orchestrator can tell a hung process from
// an unreachable database (/api/health), and the benchmark can measure what one route handler costs in
// this build (bench/). The mode lets `npm run lab` refuse to play its demo orders against a production
// server; the demo banner already shows it on every page, so it tells nobody anything new.
import { runMode } from "@/lib/config/settings";

export const dynamic = "force-dynamic";

export function GET(): Response {
  return Response.json({ ok: true, mode: runMode(process.env) });
}
