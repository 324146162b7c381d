import { z } from "zod";
import type { Db } from "@/lib/db/client";
import type { DeadLetter } from "@/lib/generated/prisma/client";
import { isReviewFirst } from "@/lib/dead-letters/review-first";
import { lenient, pageOf, pagingFromParams, pagingSchema, param, type Page, type SearchParams } from "@/lib/lists/paging";

export const DEAD_LETTER_TABS = ["open", "resolved"] as const;

/** Strict query for {@link listDeadLettersPage}. */
export const deadLetterQuerySchema = pagingSchema.extend({ status: z.enum(DEAD_LETTER_TABS) });
export type DeadLetterQuery = z.infer<typeof deadLetterQuerySchema>;

/** Lenient: `?tab=resolved&page=2`. */
export function deadLetterQueryFromParams(params: SearchParams): DeadLetterQuery {
  return { ...pagingFromParams(params), status: lenient(z.enum(DEAD_LETTER_TABS), param(params, "tab"), "open") };
}

/** A dead letter as the CLI and the dashboard list it: never the stored payload. Times are ISO 8601 UTC. */
export interface DeadLetterView {
  id: string;
  provider: string;
  endpoint: string;
  eventId: string;
  eventType: string;
  orderId: string | null;
  category: string;
  /** The English sentence; with its code and parameters (lib/reasons/), rendered in the reader's locale. */
  reason: string;
  reasonCode: string | null;
  reasonParams: string | null;
  retryable: boolean;
  attempts: number;
  firstFailedAt: string;
  lastFailedAt: string;
  nextAction: string;
  owner: string | null;
  status: string;
  /** A person's note or the system's sentence (with its code when the system wrote it). */
  resolution: string | null;
  resolutionCode: string | null;
  resolutionParams: string | null;
  resolvedBy: string | null;
  resolvedAt: string | null;
}

/** A dead letter as the dashboard lists it: the view, and whether a plain retry would fail again. */
export interface DeadLetterRow extends DeadLetterView {
  /** A plain retry fails again (lib/dead-letters/review-first.ts): the page asks before retrying. */
  reviewFirst: boolean;
}

/** A stored dead letter as listed (the payload, dedupe key and body hash left out). */
function viewOf(row: Omit<DeadLetter, "payload" | "dedupeKey" | "bodyHash">): DeadLetterView {
  return {
    id: row.id,
    provider: row.provider,
    endpoint: row.endpoint,
    eventId: row.eventId,
    eventType: row.eventType,
    orderId: row.orderId,
    category: row.category,
    reason: row.reason,
    reasonCode: row.reasonCode,
    reasonParams: row.reasonParams,
    retryable: row.retryable,
    attempts: row.attempts,
    firstFailedAt: row.firstFailedAt.toISOString(),
    lastFailedAt: row.lastFailedAt.toISOString(),
    nextAction: row.nextAction,
    owner: row.owner,
    status: row.status,
    resolution: row.resolution,
    resolutionCode: row.resolutionCode,
    resolutionParams: row.resolutionParams,
    resolvedBy: row.resolvedBy,
    resolvedAt: row.resolvedAt?.toISOString() ?? null,
  };
}

const LISTED = { payload: true, dedupeKey: true, bodyHash: true } as const;

/** Lists dead letters for the CLI, latest failure first: `status` open (default), resolved or all; at most `limit` (1..500). */
export async function listDeadLetters(db: Db, { status = "open", limit = 100 }: { status?: "open" | "resolved" | "all"; limit?: number } = {}): Promise<DeadLetterView[]> {
  const rows = await db.deadLetter.findMany({
    where: status === "all" ? {} : { status },
    orderBy: [{ lastFailedAt: "desc" }, { id: "asc" }],
    take: Math.min(Math.max(limit, 1), 500),
    omit: LISTED,
  });
  return rows.map(viewOf);
}

/**
 * One page of dead letters of one tab. Open: newest first failure first, then id (the (status,
 * firstFailedAt, id) index); neither changes when a retry fails again, so a row keeps its place and the
 * next click lands on the row the person meant. Resolved: most recently resolved first.
 */
export async function listDeadLettersPage(db: Db, input: DeadLetterQuery): Promise<Page<DeadLetterRow>> {
  const query = deadLetterQuerySchema.parse(input);
  const where = { status: query.status };
  const [rows, count] = await Promise.all([
    db.deadLetter.findMany({
      where,
      orderBy: query.status === "open" ? [{ firstFailedAt: "desc" }, { id: "desc" }] : [{ resolvedAt: "desc" }, { id: "desc" }],
      skip: (query.page - 1) * query.pageSize,
      take: query.pageSize,
      omit: LISTED,
    }),
    db.deadLetter.count({ where }),
  ]);
  const data = rows.map((row) => ({ ...viewOf(row), reviewFirst: isReviewFirst(row.category) }));
  return pageOf(data, count, query.page, query.pageSize);
}
