import { z } from "zod";
import type { Db } from "@/lib/db/client";
import type { Prisma } from "@/lib/generated/prisma/client";
import { lenient, pageOf, pagingFromParams, pagingSchema, param, timeFromParams, type Page, type SearchParams } from "@/lib/lists/paging";
import { cursorTime, decodeCursor, encodeCursor } from "@/lib/lists/cursor";

export const DECISION_OUTCOMES = ["applied", "duplicate", "ignored", "accepted", "rejected", "dead_lettered", "conflict", "retry_scheduled"] as const;

/** Strict query for {@link listDecisionsPage}. Times UTC; `to` exclusive. */
export const decisionQuerySchema = pagingSchema.extend({
  outcome: z.enum(DECISION_OUTCOMES).optional(),
  provider: z.string().min(1).max(50).optional(),
  httpStatus: z.number().int().min(100).max(599).optional(),
  eventId: z.string().min(1).max(255).optional(),
  orderId: z.string().min(1).max(255).optional(),
  from: z.date().optional(),
  to: z.date().optional(),
});
export type DecisionQuery = z.infer<typeof decisionQuerySchema>;

/** Lenient: reads the decision log's URL (`?outcome=rejected&provider=lab&status=401&eventId=evt_1&orderId=ord_1&from=2026-11-29T10:00`). */
export function decisionQueryFromParams(params: SearchParams): DecisionQuery {
  return {
    ...pagingFromParams(params),
    outcome: lenient(z.enum(DECISION_OUTCOMES).optional(), param(params, "outcome"), undefined),
    provider: lenient(z.string().max(50).optional(), param(params, "provider"), undefined),
    httpStatus: lenient(z.coerce.number().int().min(100).max(599).optional(), param(params, "status"), undefined),
    eventId: lenient(z.string().max(255).optional(), param(params, "eventId"), undefined),
    orderId: lenient(z.string().max(255).optional(), param(params, "orderId"), undefined),
    from: timeFromParams(params, "from"),
    to: timeFromParams(params, "to"),
  };
}

/** A decision query's filters without its paging, in one organization (its rows only). */
export type DecisionFilter = Omit<DecisionQuery, "page" | "pageSize"> & { organizationId: string };

/** The WHERE of a decision query (exact matches, each with an `(x, at)` index), in its organization. */
export function decisionWhere(query: DecisionFilter): Prisma.DecisionWhereInput {
  return {
    organizationId: query.organizationId,
    ...(query.outcome ? { outcome: query.outcome } : {}),
    ...(query.provider ? { provider: query.provider } : {}),
    ...(query.httpStatus ? { httpStatus: query.httpStatus } : {}),
    ...(query.eventId ? { eventId: query.eventId } : {}),
    ...(query.orderId ? { orderId: query.orderId } : {}),
    ...(query.from || query.to ? { at: { ...(query.from ? { gte: query.from } : {}), ...(query.to ? { lt: query.to } : {}) } } : {}),
  };
}

/** Columns the log shows. Decision rows never hold a secret, a signature or a raw body (the receiver's rule 5, README "HTTP contract"). */
const DECISION_COLUMNS = {
  id: true,
  at: true,
  provider: true,
  endpoint: true,
  eventId: true,
  verified: true,
  eventType: true,
  orderId: true,
  outcome: true,
  httpStatus: true,
  reason: true,
  reasonCode: true,
  reasonParams: true,
  secretLabel: true,
  diagnosis: true,
  diagnosisCode: true,
  diagnosisParams: true,
  source: true,
} as const;

export type DecisionRow = Prisma.DecisionGetPayload<{ select: typeof DECISION_COLUMNS }>;

/** One page of the decision log, newest first (at desc, id desc). Throws ZodError on an invalid query. */
export async function listDecisionsPage(db: Db, organizationId: string, input: DecisionQuery): Promise<Page<DecisionRow>> {
  const query = decisionQuerySchema.parse(input);
  const where = decisionWhere({ ...query, organizationId });
  const [data, count] = await Promise.all([
    db.decision.findMany({ where, orderBy: [{ at: "desc" }, { id: "desc" }], skip: (query.page - 1) * query.pageSize, take: query.pageSize, select: DECISION_COLUMNS }),
    db.decision.count({ where }),
  ]);
  return pageOf(data, count, query.page, query.pageSize);
}

/**
 * Providers present in the log (the filter's options), at most 50, sorted. One `provider > last LIMIT 1`
 * seek per provider on the (provider, at) index: a GROUP BY read every index entry (1,000,000 decision
 * rows: 108 ms, bench/), these seeks read one entry each.
 */
export async function decisionProviders(db: Db, organizationId: string): Promise<string[]> {
  const providers: string[] = [];
  for (let last = ""; providers.length < 50; ) {
    const next = await db.decision.findFirst({ where: { organizationId, provider: { gt: last } }, orderBy: { provider: "asc" }, select: { provider: true } });
    if (!next) break;
    providers.push(next.provider);
    last = next.provider;
  }
  return providers;
}

/** Time filters of the decision log as query parameters: `YYYY-MM-DDTHH:MM[:SS]` (UTC) or a day. */
const logTime = z
  .string()
  .refine((value) => timeFromParams({ t: value }, "t") !== undefined, "must be a UTC time YYYY-MM-DDTHH:MM or a day YYYY-MM-DD")
  .transform((value) => timeFromParams({ t: value }, "t")!);

/**
 * The decision log's filters as strict query parameters (GET /api/decisions, the CSV export): the
 * page's names (`outcome`, `provider`, `status` for the HTTP status, `eventId`, `orderId`, `from`, `to`).
 */
export const decisionFilterParamsSchema = z.object({
  outcome: z.enum(DECISION_OUTCOMES, `must be one of ${DECISION_OUTCOMES.join(", ")}`).optional(),
  provider: z.string().min(1).max(50).optional(),
  status: z.coerce.number().int().min(100).max(599).optional(),
  eventId: z.string().min(1).max(255).optional(),
  orderId: z.string().min(1).max(255).optional(),
  from: logTime.optional(),
  to: logTime.optional(),
});
export type DecisionFilterParams = z.infer<typeof decisionFilterParamsSchema>;

/** The filters of a {@link DecisionQuery} from parsed parameters (`status` is the HTTP status). */
export function decisionFilterOf(organizationId: string, params: DecisionFilterParams): DecisionFilter {
  return { organizationId, outcome: params.outcome, provider: params.provider, httpStatus: params.status, eventId: params.eventId, orderId: params.orderId, from: params.from, to: params.to };
}

/** A position in the log's newest-first order: the last row's time and id. */
export interface DecisionCursor {
  at: Date;
  id: string;
}

/** The cursor after `row` ({@link encodeCursor}). */
export function encodeDecisionCursor(row: { at: Date; id: string }): string {
  return encodeCursor([row.at.toISOString(), row.id]);
}

/** Reads a cursor {@link encodeDecisionCursor} wrote; undefined for anything else. */
export function decodeDecisionCursor(text: string): DecisionCursor | undefined {
  const parts = decodeCursor(text, 2);
  const at = parts ? cursorTime(parts[0]) : undefined;
  return parts && at ? { at, id: parts[1] } : undefined;
}

/**
 * Up to `limit` decisions matching `filter` after `cursor`, newest first (at, then id, descending: the
 * log's order), by keyset: the JSON API's pages and the CSV export's batches each read only their rows,
 * from the `(x, at)` index of the filter's column.
 */
export async function decisionRowsAfter(db: Db, filter: DecisionFilter, cursor: DecisionCursor | undefined, limit: number): Promise<DecisionRow[]> {
  const where = decisionWhere(filter);
  // "at <= cursor" first, so the index range starts at the cursor; the OR only breaks ties within it.
  const after: Prisma.DecisionWhereInput | undefined = cursor ? { AND: [{ at: { lte: cursor.at } }, { OR: [{ at: { lt: cursor.at } }, { id: { lt: cursor.id } }] }] } : undefined;
  return db.decision.findMany({ where: after ? { AND: [where, after] } : where, orderBy: [{ at: "desc" }, { id: "desc" }], take: limit, select: DECISION_COLUMNS });
}

/** How many decisions match `filter`. */
export function countDecisions(db: Db, filter: DecisionFilter): Promise<number> {
  return db.decision.count({ where: decisionWhere(filter) });
}
