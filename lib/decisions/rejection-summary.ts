import type { Db } from "@/lib/db/client";

/** Refusals before a valid signature over a window, per endpoint and reason, most first. */
export interface RejectionSummary {
  total: number;
  rows: { endpoint: string; reason: string; httpStatus: number; count: number }[];
}

/**
 * Sums RejectionCount over the `hours` hours before `now` (default 24 and now; whole minutes), per
 * endpoint ("(unknown)" for every unknown name) and reason code, largest first. Counts written within
 * the last flush interval (a second) are not in yet. One grouped query on the minute index.
 */
export async function rejectionSummary(db: Db, { hours = 24, now = new Date() } = {}): Promise<RejectionSummary> {
  const since = new Date(now.getTime() - hours * 3_600_000 - 60_000);
  const groups = await db.rejectionCount.groupBy({ by: ["endpoint", "reason", "httpStatus"], where: { minute: { gt: since, lte: now } }, _sum: { count: true } });
  const rows = groups
    .map((group) => ({ endpoint: group.endpoint, reason: group.reason, httpStatus: group.httpStatus, count: group._sum.count ?? 0 }))
    .sort((a, b) => b.count - a.count || a.endpoint.localeCompare(b.endpoint) || a.reason.localeCompare(b.reason));
  return { total: rows.reduce((sum, row) => sum + row.count, 0), rows };
}
