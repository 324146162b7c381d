import type { Db } from "@/lib/db/client";
import { pageOf, pagingSchema, type Page } from "@/lib/lists/paging";

/** A stored reconciliation run as the runs list shows it: scope, period, status, progress, actor, counts. */
export interface RunRow {
  id: string;
  source: string;
  /** How the report came: upload, cli or scheduled (lib/reconciliation/runs.ts, RunOrigin). */
  origin: string;
  format: string;
  scope: string;
  periodFrom: Date | null;
  periodTo: Date | null;
  status: string;
  actor: string;
  startedAt: Date;
  finishedAt: Date | null;
  rowCount: number;
  bytesDone: number;
  bytesTotal: number;
  mismatchCount: number;
}

/** An organization's past and current runs, newest first (the startedAt index). Throws ZodError on invalid paging. */
export async function listRunsPage(db: Db, organizationId: string, input: { page: number; pageSize: number }): Promise<Page<RunRow>> {
  const { page, pageSize } = pagingSchema.parse(input);
  const [rows, count] = await Promise.all([
    db.reconciliationRun.findMany({
      where: { organizationId },
      orderBy: [{ startedAt: "desc" }, { id: "desc" }],
      skip: (page - 1) * pageSize,
      take: pageSize,
      select: { id: true, source: true, origin: true, format: true, scopeKey: true, periodFrom: true, periodTo: true, status: true, actor: true, startedAt: true, finishedAt: true, rowCount: true, bytesDone: true, bytesTotal: true, mismatchCount: true },
    }),
    db.reconciliationRun.count({ where: { organizationId } }),
  ]);
  return pageOf(
    rows.map(({ scopeKey, ...row }) => ({ ...row, scope: scopeKey })),
    count,
    page,
    pageSize,
  );
}
