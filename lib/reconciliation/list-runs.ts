import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { pageOf, pagingSchema, type Page } from "@/lib/lists/paging";

/** A stored reconciliation run as the dashboard lists it; `overcredited` is currency -> minor units. */
export interface RunRow {
  id: string;
  source: string;
  startedAt: Date;
  finishedAt: Date | null;
  rowCount: number;
  orderCount: number;
  mismatchCount: number;
  overcredited: Record<string, number>;
}

const overcreditedSchema = z.record(z.string(), z.number());

function parseOvercredited(json: string): Record<string, number> {
  try {
    const parsed = overcreditedSchema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

/** Past runs, newest first (the startedAt index). Throws ZodError on invalid paging. */
export async function listRunsPage(db: Db, input: { page: number; pageSize: number }): Promise<Page<RunRow>> {
  const { page, pageSize } = pagingSchema.parse(input);
  const [rows, count] = await Promise.all([db.reconciliationRun.findMany({ orderBy: [{ startedAt: "desc" }, { id: "desc" }], skip: (page - 1) * pageSize, take: pageSize }), db.reconciliationRun.count()]);
  return pageOf(
    rows.map((row) => ({ ...row, overcredited: parseOvercredited(row.overcredited) })),
    count,
    page,
    pageSize,
  );
}

/**
 * One run with a page of its mismatches (ordered by order id, the runId index) and its totals per
 * currency; null for an unknown id.
 */
export async function getRunWithMismatches(db: Db, runId: string, input: { page: number; pageSize: number }) {
  const { page, pageSize } = pagingSchema.parse(input);
  const run = await db.reconciliationRun.findUnique({ where: { id: runId } });
  if (!run) return null;
  const [mismatches, count] = await Promise.all([
    db.reconciliationMismatch.findMany({ where: { runId }, orderBy: [{ orderId: "asc" }, { id: "asc" }], skip: (page - 1) * pageSize, take: pageSize }),
    db.reconciliationMismatch.count({ where: { runId } }),
  ]);
  return { run: { ...run, overcredited: parseOvercredited(run.overcredited) } satisfies RunRow, mismatches: pageOf(mismatches, count, page, pageSize) };
}
