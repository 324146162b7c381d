import { z } from "zod";
import type { Db } from "@/lib/db/client";
import type { DeadLetter } from "@/lib/generated/prisma/client";
import { isReviewFirst } from "@/lib/dead-letters/review-first";
import { UNASSIGNED } from "@/lib/dead-letters/unassigned";
import { paymentKeyOfPayload, providerPaymentLink, type ProviderPaymentLink } from "@/lib/dead-letters/provider-payment-link";
import { lenient, pageOf, pagingFromParams, pagingSchema, param, type Page, type SearchParams } from "@/lib/lists/paging";

export const DEAD_LETTER_TABS = ["open", "resolved"] as const;

/** The owner filter's value for dead letters nobody has taken. */
export { UNASSIGNED };

const filterValue = z.string().trim().min(1).max(255);

/**
 * Strict query for {@link listDeadLettersPage}: the tab, and optional filters by reason (the failure
 * category), provider and owner (an e-mail, or {@link UNASSIGNED}).
 */
export const deadLetterQuerySchema = pagingSchema.extend({
  status: z.enum(DEAD_LETTER_TABS),
  category: filterValue.optional(),
  provider: filterValue.optional(),
  owner: filterValue.optional(),
});
export type DeadLetterQuery = z.infer<typeof deadLetterQuerySchema>;

/** Lenient: `?tab=resolved&page=2&category=amount_mismatch&provider=stripe&owner=ana@example.com` (a bad value is no filter). */
export function deadLetterQueryFromParams(params: SearchParams): DeadLetterQuery {
  const filter = (name: string) => lenient(filterValue.optional(), param(params, name), undefined);
  const query: DeadLetterQuery = { ...pagingFromParams(params), status: lenient(z.enum(DEAD_LETTER_TABS), param(params, "tab"), "open") };
  for (const name of ["category", "provider", "owner"] as const) {
    const value = filter(name);
    if (value !== undefined) query[name] = value;
  }
  return query;
}

/** The URL parameters of a query other than its page (the tab, the filters), for links that keep them. */
export function deadLetterFilterParams(query: DeadLetterQuery): Record<string, string | undefined> {
  return { tab: query.status === "resolved" ? "resolved" : undefined, category: query.category, provider: query.provider, owner: query.owner };
}

/** The values the filters offer on a tab: those its dead letters hold (owners as e-mails), each sorted. */
export interface DeadLetterFilterOptions {
  categories: string[];
  providers: string[];
  owners: string[];
}

/** The categories, providers and owners the organization's dead letters of tab `status` hold, for the filters' choices. */
export async function deadLetterFilterOptions(db: Db, organizationId: string, status: DeadLetterQuery["status"]): Promise<DeadLetterFilterOptions> {
  const [categories, providers, owners] = await Promise.all([
    db.deadLetter.findMany({ where: { organizationId, status }, distinct: ["category"], select: { category: true }, orderBy: { category: "asc" } }),
    db.deadLetter.findMany({ where: { organizationId, status }, distinct: ["provider"], select: { provider: true }, orderBy: { provider: "asc" } }),
    db.deadLetter.findMany({ where: { organizationId, status, owner: { not: null } }, distinct: ["owner"], select: { owner: true }, orderBy: { owner: "asc" } }),
  ]);
  return { categories: categories.map((row) => row.category), providers: providers.map((row) => row.provider), owners: owners.flatMap((row) => (row.owner ? [row.owner] : [])) };
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

/** A dead letter as the dashboard lists it: the view, whether a plain retry would fail again, and its payment. */
export interface DeadLetterRow extends DeadLetterView {
  /** A plain retry fails again (lib/dead-letters/review-first.ts): the page asks before retrying. */
  reviewFirst: boolean;
  /** The provider's payment id the event names (null when it names none). */
  paymentKey: string | null;
  /** The payment's page in the provider's dashboard, where it is refunded or settled (null when no URL pattern is known). */
  paymentLink: ProviderPaymentLink | null;
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

/** Lists an organization's dead letters for the CLI, latest failure first: `status` open (default), resolved or all; at most `limit` (1..500). */
export async function listDeadLetters(db: Db, organizationId: string, { status = "open", limit = 100 }: { status?: "open" | "resolved" | "all"; limit?: number } = {}): Promise<DeadLetterView[]> {
  const rows = await db.deadLetter.findMany({
    where: status === "all" ? { organizationId } : { organizationId, status },
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
export async function listDeadLettersPage(db: Db, organizationId: string, input: DeadLetterQuery): Promise<Page<DeadLetterRow>> {
  const query = deadLetterQuerySchema.parse(input);
  const where = {
    organizationId,
    status: query.status,
    ...(query.category ? { category: query.category } : {}),
    ...(query.provider ? { provider: query.provider } : {}),
    ...(query.owner ? { owner: query.owner === UNASSIGNED ? null : query.owner } : {}),
  };
  const [rows, count] = await Promise.all([
    db.deadLetter.findMany({
      where,
      orderBy: query.status === "open" ? [{ firstFailedAt: "desc" }, { id: "desc" }] : [{ resolvedAt: "desc" }, { id: "desc" }],
      skip: (query.page - 1) * query.pageSize,
      take: query.pageSize,
      // The payload is read for the payment it names (never sent to the page).
      omit: { dedupeKey: true, bodyHash: true },
    }),
    db.deadLetter.count({ where }),
  ]);
  const data = rows.map(({ payload, ...row }) => {
    const paymentKey = paymentKeyOfPayload(payload);
    return { ...viewOf(row), reviewFirst: isReviewFirst(row.category), paymentKey, paymentLink: providerPaymentLink(row.provider, paymentKey, row.livemode) ?? null };
  });
  return pageOf(data, count, query.page, query.pageSize);
}
