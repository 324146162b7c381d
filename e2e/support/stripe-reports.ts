// Runs Stripe-format reports in this process (reconciliation tests); the CSV writer is in stripe-report-csv.ts.
import { Readable } from "node:stream";
import type { Db } from "@/lib/db/client";
import { formatOfHead } from "@/lib/reconciliation/report-head";
import { allMismatches, runSummary } from "@/lib/reconciliation/run-report";
import { claimRun, executeRun, queueRun } from "@/lib/reconciliation/runs";
import { resolveScope, type ScopeRequest } from "@/lib/reconciliation/run-scope";
import { stripeReport } from "./stripe-report-csv";
const DEFAULT_ORG = "org_default";

export { BALANCE_COLUMNS, PAYOUT_COLUMNS, stripeReport, type ReportLine } from "./stripe-report-csv";

/**
 * Runs a report as an upload would be, in this process: its format from its head, its scope from
 * `request`, queued, claimed, executed. Returns the outcome, the stored summary and every mismatch.
 */
export async function runReport(db: Db, csv: string, request: ScopeRequest = {}) {
  const bytes = Buffer.from(csv);
  const format = formatOfHead(bytes.subarray(0, 65_536), request.format);
  const scope = resolveScope(format, request);
  const runId = await queueRun(db, { organizationId: "org_default", source: "test report", format, scope, actor: "test", bytesTotal: bytes.length });
  const run = await claimRun(db, runId, "test-worker");
  if (!run) throw new Error("run not claimable");
  const outcome = await executeRun(db, run, { input: Readable.from([bytes]) });
  const summary = (await runSummary(db, DEFAULT_ORG, runId))!;
  const mismatches = [];
  for await (const mismatch of allMismatches(db, runId)) mismatches.push(mismatch);
  return { runId, outcome, summary, mismatches };
}
