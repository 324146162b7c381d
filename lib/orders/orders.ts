import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { parseStrictQuery } from "@/lib/lists/strict-query";
import { uniqueViolationFields } from "@/lib/db/errors";
import { currencySchema, idSchema } from "@/lib/money/amount-schemas";
import { MAX_AMOUNT_MINOR } from "@/lib/money/amount-schemas";
import { isIsoCurrency } from "@/lib/money/minor-units";
import { ORDER_STATUSES, type OrderStatus } from "@/lib/core/order-transitions";
import { dayFromParams, nextDay } from "@/lib/lists/paging";
import { attentionOf, countOrderRows, decodeOrderCursor, encodeOrderCursor, orderRowsAfter, type OrderAttention, type OrderFilter } from "@/lib/orders/order-rows";
import { matchedKinds, ordersNamedBy, type SearchKind } from "@/lib/orders/order-search";

/** Body of `POST /api/orders`: the store's order, amount in minor units of an ISO 4217 currency. */
export const newOrderSchema = z.object({
  id: idSchema.regex(/^[A-Za-z0-9_.:-]+$/, "letters, digits and _ . : - only"),
  amount: z.number().int().min(1).max(MAX_AMOUNT_MINOR),
  currency: currencySchema.refine(isIsoCurrency, "must be an ISO 4217 currency code (e.g. ARS, USD)"),
  checkoutSessionId: idSchema.optional(),
  livemode: z.boolean().optional(),
});

export type NewOrder = z.infer<typeof newOrderSchema>;

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "must be a day, YYYY-MM-DD (UTC)").refine((value) => dayFromParams({ d: value }, "d") !== undefined, "must be a real day");

/**
 * The orders page's filters as strict query parameters (the JSON API, the CSV exports): `status` (one
 * of {@link ORDER_STATUSES}), `currency`, `from`/`to` (days of the last update, UTC, both included),
 * `q` (search text, 1..255 characters) and `attention` (1/true: only orders with an open dead letter or
 * extra charge).
 */
export const orderFilterParamsSchema = z.object({
  status: z.enum(ORDER_STATUSES as [OrderStatus, ...OrderStatus[]], `must be one of ${ORDER_STATUSES.join(", ")}`).optional(),
  currency: currencySchema.optional(),
  from: day.optional(),
  to: day.optional(),
  q: z.string().trim().min(1, "must not be empty").max(255).optional(),
  attention: z.enum(["1", "true", "0", "false"], "must be 1, true, 0 or false").transform((value) => value === "1" || value === "true").optional(),
});
export type OrderFilterParams = z.infer<typeof orderFilterParamsSchema>;

/** The {@link OrderFilter} of parsed filter parameters: days to UTC bounds (`to` included, so up to the next day). */
export function orderFilterOf(organizationId: string, params: OrderFilterParams): OrderFilter {
  return {
    organizationId,
    status: params.status,
    currency: params.currency,
    from: params.from ? new Date(`${params.from}T00:00:00.000Z`) : undefined,
    to: params.to ? nextDay(new Date(`${params.to}T00:00:00.000Z`)) : undefined,
    q: params.q,
    attention: params.attention,
  };
}

/**
 * Query of `GET /api/orders`: `limit` 1..500 (default 100); either `offset` 0..10^9 (default 0) or
 * `cursor` (a `nextCursor` an earlier answer gave); and the filters of {@link orderFilterParamsSchema};
 * anything else is 400.
 */
export const listQuerySchema = orderFilterParamsSchema
  .extend({
    limit: z.coerce.number().min(1).max(500).refine(Number.isInteger, "must be a whole number").default(100),
    offset: z.coerce.number().min(0).max(1_000_000_000).refine(Number.isInteger, "must be a whole number").optional(),
    cursor: z
      .string()
      .max(1_000)
      .transform((value, context) => {
        const cursor = decodeOrderCursor(value);
        if (!cursor) {
          context.addIssue({ code: "custom", message: "not a cursor this API gave (use nextCursor from the previous page)" });
          return z.NEVER;
        }
        return cursor;
      })
      .optional(),
  })
  .refine((query) => query.offset === undefined || query.cursor === undefined, { message: "give offset or cursor, not both", path: ["cursor"] });

export type ListQuery = z.infer<typeof listQuerySchema>;

/**
 * Reads `GET /api/orders`'s query string strictly: a parameter it does not know (`page`, a misspelt
 * `stauts`) is refused by name rather than ignored, since an ignored filter answers with every order.
 * Returns the query, or the 400's sentence naming each problem.
 */
export function parseListQuery(search: URLSearchParams): { ok: true; query: ListQuery } | { ok: false; error: string } {
  return parseStrictQuery(search, listQuerySchema, "GET /api/orders", ["limit", "offset", "cursor", ...Object.keys(orderFilterParamsSchema.shape)]);
}

/** Result of {@link createOrder}: created (201), already there with the same fields (200) or conflicting (409). */
export type CreateOrderResult = { kind: "created" | "exists"; order: OrderView } | { kind: "conflict"; reason: string };

/** An order as the JSON API returns it; `credited` is the sum of its ledger entries (minor units). */
export interface OrderView {
  id: string;
  status: string;
  amount: number;
  currency: string;
  credited: number;
  refunded: number;
  /** Withdrawn by a dispute and not reinstated (minor units). */
  disputed: number;
  livemode: boolean;
  checkoutSessionId: string | null;
  createdAt: string;
  updatedAt: string;
  ledger: { businessKey: string; kind: string; amount: number; currency: string; provider: string; eventId: string; createdAt: string }[];
  events: { provider: string; eventId: string; type: string; status: string; receivedAt: string }[];
}

/**
 * Creates an organization's order idempotently: inserting first and comparing on a UNIQUE violation
 * (never check-then-insert). Same id and fields again → `exists`; same id with other fields →
 * `conflict`. Another organization's order of the same id is another order.
 */
export async function createOrder(db: Db, organizationId: string, input: NewOrder): Promise<CreateOrderResult> {
  try {
    await db.order.create({
      data: { organizationId, id: input.id, amount: input.amount, currency: input.currency, checkoutSessionId: input.checkoutSessionId ?? null, livemode: input.livemode ?? true },
    });
    return { kind: "created", order: (await getOrder(db, organizationId, input.id))! };
  } catch (error) {
    const fields = uniqueViolationFields(error);
    if (!fields) throw error;
    const existing = await db.order.findUnique({ where: { organizationId_id: { organizationId, id: input.id } } });
    if (!existing) return { kind: "conflict", reason: `checkout session ${input.checkoutSessionId} belongs to another order` };
    const same =
      existing.amount === input.amount &&
      existing.currency === input.currency &&
      existing.livemode === (input.livemode ?? true) &&
      (input.checkoutSessionId === undefined || existing.checkoutSessionId === input.checkoutSessionId);
    if (!same) return { kind: "conflict", reason: `order ${input.id} already exists with different fields` };
    return { kind: "exists", order: (await getOrder(db, organizationId, input.id))! };
  }
}

/** Returns one of the organization's orders with its ledger and stored events, or null (another organization's is not found). */
export async function getOrder(db: Db, organizationId: string, id: string): Promise<OrderView | null> {
  const order = await db.order.findUnique({ where: { organizationId_id: { organizationId, id } }, include: { ledgerEntries: { orderBy: { createdAt: "asc" } } } });
  if (!order) return null;
  const events = await db.webhookEvent.findMany({
    where: { organizationId, orderId: id },
    orderBy: { receivedAt: "asc" },
    select: { provider: true, eventId: true, type: true, status: true, receivedAt: true },
  });
  const credited = order.ledgerEntries.reduce((sum, entry) => sum + entry.amount, 0);
  return {
    id: order.id,
    status: order.status,
    amount: order.amount,
    currency: order.currency,
    credited,
    refunded: order.refundedAmount,
    disputed: order.disputedAmount,
    livemode: order.livemode,
    checkoutSessionId: order.checkoutSessionId,
    createdAt: order.createdAt.toISOString(),
    updatedAt: order.updatedAt.toISOString(),
    ledger: order.ledgerEntries.map((entry) => ({
      businessKey: entry.businessKey,
      kind: entry.kind,
      amount: entry.amount,
      currency: entry.currency,
      provider: entry.provider,
      eventId: entry.eventId,
      createdAt: entry.createdAt.toISOString(),
    })),
    events: events.map((event) => ({ ...event, receivedAt: event.receivedAt.toISOString() })),
  };
}

/** An order in `GET /api/orders`'s list: {@link OrderView} with what needs a person on it and what a search found it by. */
export interface ListedOrder extends OrderView {
  attention: OrderAttention;
  /** The kinds of id (or the e-mail) the search text `q` found the order by; empty without `q`. */
  matchedBy: SearchKind[];
}

/**
 * Lists orders newest first (createdAt descending, id ascending) with the shape of {@link getOrder}
 * plus `attention` and `matchedBy`: at most `limit` (default 100, at most 500) after `offset` rows or
 * after `cursor`, matching the filters ({@link OrderFilter}; the search as on the orders page, with the
 * customer's e-mail only when `emails`: the caller may read personal data). Returns
 * `{data, count, nextCursor}`: `count` matches in all, `nextCursor` continues after this page (null on
 * the last one), by keyset, so walking 100,000 orders costs the same per page at the end as at the start.
 */
export async function listOrders(db: Db, organizationId: string, query: Partial<ListQuery> = {}, options: { emails?: boolean } = {}): Promise<{ data: ListedOrder[]; count: number; nextCursor: string | null }> {
  const limit = Math.min(Math.max(query.limit ?? 100, 1), 500);
  const filter = orderFilterOf(organizationId, query);
  const named = query.q ? await ordersNamedBy(db, organizationId, query.q, { emails: options.emails ?? false }) : new Map<string, SearchKind[]>();
  const ids = [...named.keys()];
  const [rows, count] = await Promise.all([orderRowsAfter(db, filter, ids, query.cursor, limit + 1, query.offset ?? 0), countOrderRows(db, filter, ids)]);
  const page = rows.slice(0, limit);
  const [views, attention] = await Promise.all([Promise.all(page.map((row) => getOrder(db, organizationId, row.id))), attentionOf(db, organizationId, page.map((row) => row.id))]);
  const data = views
    .filter((order): order is OrderView => order !== null)
    .map((order) => ({ ...order, attention: attention.get(order.id)!, matchedBy: matchedKinds(order.id, query.q, named) }));
  const last = page.at(-1);
  return { data, count, nextCursor: rows.length > limit && last ? encodeOrderCursor(last) : null };
}
