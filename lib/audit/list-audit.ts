import { z } from "zod";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { Db } from "@/lib/db/client";
import { lenient, pageOf, pagingFromParams, param, timeFromParams, type Page, type SearchParams } from "@/lib/lists/paging";

/** The audit log's filters: exact actor email and action, a time range [from, to), and paging. */
export interface AuditQuery {
  page: number;
  pageSize: number;
  actor?: string;
  action?: string;
  from?: Date;
  to?: Date;
}

/** Lenient parsing of /admin/audit's URL (a bad value is dropped, never an error). */
export function auditQueryFromParams(params: SearchParams): AuditQuery {
  return {
    ...pagingFromParams(params),
    actor: lenient(z.string().max(254).optional(), param(params, "actor")?.toLowerCase(), undefined),
    action: lenient(z.string().max(64).optional(), param(params, "action"), undefined),
    from: timeFromParams(params, "from"),
    to: timeFromParams(params, "to"),
  };
}

/** The WHERE of an audit query (each filter has an `(x, at)` index). */
export function auditWhere(query: Omit<AuditQuery, "page" | "pageSize">): Prisma.AuditEntryWhereInput {
  return {
    ...(query.actor ? { actorEmail: query.actor } : {}),
    ...(query.action ? { action: query.action } : {}),
    ...(query.from || query.to ? { at: { ...(query.from ? { gte: query.from } : {}), ...(query.to ? { lt: query.to } : {}) } } : {}),
  };
}

/** An audit row as the page shows it. */
export interface AuditRow {
  id: string;
  at: Date;
  actorEmail: string;
  action: string;
  targetType: string;
  targetId: string;
  /** The note as written (a person's words, or the system's English sentence). */
  note: string | null;
  /** The reason code of a note the system wrote, and its parameters (JSON); null for a person's words. */
  noteCode: string | null;
  noteParams: string | null;
}

/** One page of the audit log, newest first: `{ data, count, page, pageSize, totalPages }`. */
export async function listAuditPage(db: Db, query: AuditQuery): Promise<Page<AuditRow>> {
  const where = auditWhere(query);
  const [data, count] = await Promise.all([
    db.auditEntry.findMany({
      where,
      orderBy: [{ at: "desc" }, { id: "desc" }],
      skip: (query.page - 1) * query.pageSize,
      take: query.pageSize,
      select: { id: true, at: true, actorEmail: true, action: true, targetType: true, targetId: true, note: true, noteCode: true, noteParams: true },
    }),
    db.auditEntry.count({ where }),
  ]);
  return pageOf(data, count, query.page, query.pageSize);
}

/** The actors and actions present in the log, for the filter menus (bounded). */
export async function auditFilterOptions(db: Db): Promise<{ actors: string[]; actions: string[] }> {
  const [actors, actions] = await Promise.all([
    db.auditEntry.findMany({ distinct: ["actorEmail"], select: { actorEmail: true }, orderBy: { actorEmail: "asc" }, take: 200 }),
    db.auditEntry.findMany({ distinct: ["action"], select: { action: true }, orderBy: { action: "asc" }, take: 200 }),
  ]);
  return { actors: actors.map((row) => row.actorEmail), actions: actions.map((row) => row.action) };
}
