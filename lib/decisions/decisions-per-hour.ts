import type { Db } from "@/lib/db/client";
import { decisionWhere, type DecisionFilter } from "@/lib/decisions/list-decisions";

const HOUR_MS = 60 * 60 * 1000;

/** Decisions in one UTC hour, by outcome. */
export interface HourBucket {
  start: Date;
  counts: Record<string, number>;
  total: number;
}

/**
 * Counts decisions per UTC hour and outcome for the `hours` hours ending at the hour that contains
 * `end` (default now), under the same filters as the log (its own time filter replaced by the window).
 * One grouped count per hour on the (at) index, run together; portable SQL (no strftime/date_trunc).
 */
export async function decisionsPerHour(db: Db, filters: DecisionFilter, { hours = 24, end = new Date() } = {}): Promise<HourBucket[]> {
  const lastStart = Math.floor(end.getTime() / HOUR_MS) * HOUR_MS;
  const starts = Array.from({ length: hours }, (_, index) => new Date(lastStart - (hours - 1 - index) * HOUR_MS));
  return Promise.all(
    starts.map(async (start) => {
      const rows = await db.decision.groupBy({
        by: ["outcome"],
        where: { ...decisionWhere({ ...filters, from: undefined, to: undefined }), at: { gte: start, lt: new Date(start.getTime() + HOUR_MS) } },
        _count: { _all: true },
      });
      const counts = Object.fromEntries(rows.map((row) => [row.outcome, row._count._all]));
      return { start, counts, total: rows.reduce((sum, row) => sum + row._count._all, 0) };
    }),
  );
}
