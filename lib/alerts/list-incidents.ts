import type { Db } from "@/lib/db/client";
import type { IncidentRow } from "@/lib/alerts/alert-store";

/** An incident as the API and the Alerts page show it. Times ISO 8601 UTC; `detail` as the rule saw it. */
export interface IncidentView {
  id: string;
  rule: string;
  key: string;
  status: "open" | "resolved";
  openedAt: string;
  resolvedAt: string | null;
  count: number;
  lastSeenAt: string;
  detail: Record<string, unknown>;
}

export function incidentView(row: IncidentRow): IncidentView {
  return { id: row.id, rule: row.rule, key: row.key, status: row.status, openedAt: row.openedAt.toISOString(), resolvedAt: row.resolvedAt?.toISOString() ?? null, count: row.count, lastSeenAt: row.lastSeenAt.toISOString(), detail: JSON.parse(row.detail) as Record<string, unknown> };
}

/** An organization's incidents, newest first, optionally of one status: `{data, count, page, pageSize, totalPages}` (pageSize at most 100). */
export async function listIncidents(db: Db, organizationId: string, { status, page = 1, pageSize = 50 }: { status?: "open" | "resolved"; page?: number; pageSize?: number } = {}) {
  const size = Math.min(Math.max(Math.trunc(pageSize), 1), 100);
  const current = Math.max(Math.trunc(page), 1);
  const where = { organizationId, ...(status ? { status } : {}) };
  const [rows, count] = await Promise.all([db.incident.findMany({ where, orderBy: [{ openedAt: "desc" }, { id: "desc" }], skip: (current - 1) * size, take: size }), db.incident.count({ where })]);
  return { data: (rows as IncidentRow[]).map(incidentView), count, page: current, pageSize: size, totalPages: Math.max(1, Math.ceil(count / size)) };
}
