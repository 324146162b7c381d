import { z } from "zod";
import type { Db } from "@/lib/db/client";
import type { DeadLetterView } from "@/lib/dead-letters/retry-dead-letter";
import { lenient, pageOf, pagingFromParams, pagingSchema, param, type Page, type SearchParams } from "@/lib/lists/paging";

export const DEAD_LETTER_TABS = ["open", "resolved"] as const;

/** Strict query for {@link listDeadLettersPage}. */
export const deadLetterQuerySchema = pagingSchema.extend({ status: z.enum(DEAD_LETTER_TABS) });
export type DeadLetterQuery = z.infer<typeof deadLetterQuerySchema>;

/** Lenient: `?tab=resolved&page=2`. */
export function deadLetterQueryFromParams(params: SearchParams): DeadLetterQuery {
  return { ...pagingFromParams(params), status: lenient(z.enum(DEAD_LETTER_TABS), param(params, "tab"), "open") };
}

/** A dead letter as the dashboard lists it (the CLI's view plus who resolved it, when): never the stored payload. */
export interface DeadLetterRow extends DeadLetterView {
  resolvedBy: string | null;
  resolvedAt: string | null;
  /** The reason's and the system resolution's codes and parameters (lib/reasons/), rendered in the reader's locale. */
  reasonCode: string | null;
  reasonParams: string | null;
  resolutionCode: string | null;
  resolutionParams: string | null;
}

/** One page of dead letters of one tab, most recently failed first (the (status, lastFailedAt) index). */
export async function listDeadLettersPage(db: Db, input: DeadLetterQuery): Promise<Page<DeadLetterRow>> {
  const query = deadLetterQuerySchema.parse(input);
  const where = { status: query.status };
  const [rows, count] = await Promise.all([
    db.deadLetter.findMany({
      where,
      orderBy: query.status === "open" ? [{ lastFailedAt: "desc" }, { id: "desc" }] : [{ resolvedAt: "desc" }, { id: "desc" }],
      skip: (query.page - 1) * query.pageSize,
      take: query.pageSize,
      omit: { payload: true, dedupeKey: true, bodyHash: true },
    }),
    db.deadLetter.count({ where }),
  ]);
  const data = rows.map((row) => ({
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
  }));
  return pageOf(data, count, query.page, query.pageSize);
}
