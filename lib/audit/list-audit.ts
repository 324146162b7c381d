import { z } from "zod";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { Db } from "@/lib/db/client";
import { lenient, pageOf, pagingFromParams, param, timeFromParams, type Page, type SearchParams } from "@/lib/lists/paging";

/** The audit log's filters: exact actor email and action, a target by the id people search by, a time range [from, to), and paging. */
export interface AuditQuery {
  page: number;
  pageSize: number;
  actor?: string;
  action?: string;
  /** A provider's event id, a merchant's order id, a payment id or a user's e-mail (exact), or a target's own id. */
  target?: string;
  from?: Date;
  to?: Date;
}

/** Lenient parsing of /admin/audit's URL (a bad value is dropped, never an error). */
export function auditQueryFromParams(params: SearchParams): AuditQuery {
  return {
    ...pagingFromParams(params),
    actor: lenient(z.string().max(254).optional(), param(params, "actor")?.toLowerCase(), undefined),
    action: lenient(z.string().max(64).optional(), param(params, "action"), undefined),
    target: lenient(z.string().max(255).optional(), param(params, "target"), undefined),
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
  /** The target by the ids people search by (a dead letter's event and order, a user's e-mail), when it still exists. */
  named?: AuditTargetNames;
}

/** What an audited object is called outside Acredita: the provider's event id, the merchant's order id, a payment, an e-mail. */
export interface AuditTargetNames {
  provider?: string;
  eventId?: string;
  orderId?: string;
  paymentKey?: string;
  email?: string;
}

/**
 * The names people search by for the targets of `rows` (internal row ids otherwise mean nothing to a
 * reader): one query per kind of target on the page, keyed `<targetType>:<targetId>`. A target deleted
 * since (a user) has no entry; the page then shows its id.
 */
async function targetNames(db: Db, rows: { targetType: string; targetId: string }[]): Promise<Map<string, AuditTargetNames>> {
  const ids = (type: string) => [...new Set(rows.filter((row) => row.targetType === type).map((row) => row.targetId))];
  const [letters, charges, messages, users] = await Promise.all([
    ids("dead_letter").length ? db.deadLetter.findMany({ where: { id: { in: ids("dead_letter") } }, select: { id: true, provider: true, eventId: true, orderId: true } }) : [],
    ids("extra_charge").length ? db.extraCharge.findMany({ where: { id: { in: ids("extra_charge") } }, select: { id: true, provider: true, eventId: true, orderId: true, paymentKey: true } }) : [],
    ids("outbox_message").length ? db.outboxMessage.findMany({ where: { id: { in: ids("outbox_message") } }, select: { id: true, orderId: true } }) : [],
    ids("user").length ? db.user.findMany({ where: { id: { in: ids("user") } }, select: { id: true, email: true } }) : [],
  ]);
  const names = new Map<string, AuditTargetNames>();
  for (const row of letters) names.set(`dead_letter:${row.id}`, { provider: row.provider, eventId: row.eventId, ...(row.orderId ? { orderId: row.orderId } : {}) });
  for (const row of charges) names.set(`extra_charge:${row.id}`, { provider: row.provider, eventId: row.eventId, orderId: row.orderId, paymentKey: row.paymentKey });
  for (const row of messages) names.set(`outbox_message:${row.id}`, { orderId: row.orderId });
  for (const row of users) names.set(`user:${row.id}`, { email: row.email });
  return names;
}

/**
 * The targets a search by `term` means: the dead letters and extra charges of that event, order or
 * payment, the outbox messages of that order, the user with that e-mail, and whatever has `term` as its
 * own id. Each kind is one indexed-or-bounded query (at most 500 rows each: a search is for a case).
 */
async function targetsNamed(db: Db, term: string): Promise<Prisma.AuditEntryWhereInput> {
  const [letters, charges, messages, users] = await Promise.all([
    db.deadLetter.findMany({ where: { OR: [{ eventId: term }, { orderId: term }] }, select: { id: true }, take: 500 }),
    db.extraCharge.findMany({ where: { OR: [{ eventId: term }, { orderId: term }, { paymentKey: term }] }, select: { id: true }, take: 500 }),
    db.outboxMessage.findMany({ where: { orderId: term }, select: { id: true }, take: 500 }),
    db.user.findMany({ where: { email: term.toLowerCase() }, select: { id: true }, take: 1 }),
  ]);
  return {
    OR: [
      { targetId: term },
      { targetType: "dead_letter", targetId: { in: letters.map((row) => row.id) } },
      { targetType: "extra_charge", targetId: { in: charges.map((row) => row.id) } },
      { targetType: "outbox_message", targetId: { in: messages.map((row) => row.id) } },
      { targetType: "user", targetId: { in: users.map((row) => row.id) } },
    ],
  };
}

/** One page of an organization's audit log, newest first, each target named by the ids people search by: `{ data, count, page, pageSize, totalPages }`. */
export async function listAuditPage(db: Db, organizationId: string, query: AuditQuery): Promise<Page<AuditRow>> {
  const where = { AND: [{ organizationId }, auditWhere(query), ...(query.target ? [await targetsNamed(db, query.target)] : [])] };
  const [rows, count] = await Promise.all([
    db.auditEntry.findMany({
      where,
      orderBy: [{ at: "desc" }, { id: "desc" }],
      skip: (query.page - 1) * query.pageSize,
      take: query.pageSize,
      select: { id: true, at: true, actorEmail: true, action: true, targetType: true, targetId: true, note: true, noteCode: true, noteParams: true },
    }),
    db.auditEntry.count({ where }),
  ]);
  const names = await targetNames(db, rows);
  const data = rows.map((row) => {
    const named = names.get(`${row.targetType}:${row.targetId}`);
    return named ? { ...row, named } : row;
  });
  return pageOf(data, count, query.page, query.pageSize);
}

/** The actors and actions present in an organization's log, for the filter menus (bounded). */
export async function auditFilterOptions(db: Db, organizationId: string): Promise<{ actors: string[]; actions: string[] }> {
  const [actors, actions] = await Promise.all([
    db.auditEntry.findMany({ where: { organizationId }, distinct: ["actorEmail"], select: { actorEmail: true }, orderBy: { actorEmail: "asc" }, take: 200 }),
    db.auditEntry.findMany({ where: { organizationId }, distinct: ["action"], select: { action: true }, orderBy: { action: "asc" }, take: 200 }),
  ]);
  return { actors: actors.map((row) => row.actorEmail), actions: actions.map((row) => row.action) };
}
