// GET /api/reconciliations/[id]/mismatches: every mismatch of a run as CSV (?code= filters), streamed
// 1,000 rows at a time; amounts in minor units of the row's currency. 404 for an unknown run.
import { authorizeApi } from "@/lib/api/authorize-api";
import { jsonError, refusal } from "@/lib/api/responses";
import { db } from "@/lib/db/client";
import { allMismatches, MISMATCH_CODES, mismatchCsvHeader, mismatchCsvLine } from "@/lib/reconciliation/run-report";

export const dynamic = "force-dynamic";

export async function GET(request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> {
  const caller = await authorizeApi(request, "reconciliation.read", { scoped: true });
  if (typeof caller === "string") return refusal(caller) as Response;
  const { id } = await context.params;
  const code = new URL(request.url).searchParams.get("code") ?? undefined;
  if (code && !(MISMATCH_CODES as readonly string[]).includes(code)) return jsonError(400, "invalid_query", `code: must be one of ${MISMATCH_CODES.join(", ")}`);
  const client = await db();
  const run = await client.reconciliationRun.findFirst({ where: { id: id.slice(0, 100), organizationId: caller.organizationId }, select: { id: true } });
  if (!run) return jsonError(404, "not_found", "no reconciliation run with this id");
  const rows = allMismatches(client, run.id, code);
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(`${mismatchCsvHeader()}\n`));
    },
    async pull(controller) {
      const next = await rows.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(`${mismatchCsvLine(next.value)}\n`));
    },
  });
  return new Response(body, { headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="reconciliation-${run.id}-mismatches.csv"` } });
}
