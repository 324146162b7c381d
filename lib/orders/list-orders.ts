import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { dayFromParams, lenient, nextDay, pageOf, PAGE_SIZES, pagingFromParams, pagingSchema, param, paramsNotUnderstood, type Page, type ParamNotUnderstood, type SearchParams } from "@/lib/lists/paging";
import { attentionOf, creditedOf, orderRowsPage, type OrderAttention } from "@/lib/orders/order-rows";
import { matchedKinds, ordersNamedBy, type SearchKind } from "@/lib/orders/order-search";
import { currencySchema } from "@/lib/money/amount-schemas";
import { ORDER_STATUSES, type OrderStatus } from "@/lib/core/order-transitions";

export { ORDER_STATUSES };

/** Columns the orders list can sort by: each backed by an index (credited/difference are per-page sums, not sortable); amount sorts within each currency. */
export const ORDER_SORTS = ["id", "status", "amount", "lastEventAt", "updatedAt"] as const;
export type OrderSort = (typeof ORDER_SORTS)[number];

/** Strict query for {@link listOrdersPage}. Dates are UTC; `to` is exclusive. */
export const orderQuerySchema = pagingSchema.extend({
  sort: z.enum(ORDER_SORTS),
  dir: z.enum(["asc", "desc"]),
  status: z.enum(ORDER_STATUSES as [OrderStatus, ...OrderStatus[]]).optional(),
  currency: currencySchema.optional(),
  from: z.date().optional(),
  to: z.date().optional(),
  q: z.string().min(1).max(255).optional(),
  /** Only orders with an open dead letter or an open extra charge. */
  attention: z.boolean().optional(),
});
export type OrderQuery = z.infer<typeof orderQuerySchema>;

/** Lenient: reads the orders page's URL (`?status=paid&currency=ARS&from=2026-11-01&to=2026-11-30&q=ord_10&attention=1&sort=amount&dir=asc&page=2`). */
export function orderQueryFromParams(params: SearchParams): OrderQuery {
  const to = dayFromParams(params, "to");
  return {
    ...pagingFromParams(params),
    sort: lenient(z.enum(ORDER_SORTS), param(params, "sort"), "updatedAt"),
    dir: lenient(z.enum(["asc", "desc"]), param(params, "dir"), "desc"),
    status: lenient(z.enum(ORDER_STATUSES as [OrderStatus, ...OrderStatus[]]).optional(), param(params, "status"), undefined),
    currency: lenient(currencySchema.optional(), param(params, "currency")?.toUpperCase(), undefined),
    from: dayFromParams(params, "from"),
    to: to ? nextDay(to) : undefined,
    q: lenient(z.string().max(255).optional(), param(params, "q"), undefined),
    attention: ATTENTION_VALUES.has(param(params, "attention") ?? "") || undefined,
  };
}

/** The values of `?attention=` that ask for the orders needing attention. */
const ATTENTION_VALUES = new Set(["1", "true"]);

/**
 * The orders page's URL parameters that {@link orderQueryFromParams} could not read and so did not
 * apply (`?status=bogus`, `?from=yesterday`, `?pageSize=7`), for the page to say so instead of
 * silently showing every order.
 */
export function orderParamsNotUnderstood(params: SearchParams): ParamNotUnderstood[] {
  const oneOf = (values: readonly string[]) => (value: string) => values.includes(value);
  const isDay = (name: string) => () => dayFromParams(params, name) !== undefined;
  return paramsNotUnderstood(params, {
    status: oneOf(ORDER_STATUSES),
    currency: (value) => currencySchema.safeParse(value.toUpperCase()).success,
    from: isDay("from"),
    to: isDay("to"),
    sort: oneOf(ORDER_SORTS),
    dir: oneOf(["asc", "desc"]),
    attention: (value) => ATTENTION_VALUES.has(value) || value === "0" || value === "false",
    page: (value) => /^\d+$/.test(value) && Number(value) >= 1,
    pageSize: (value) => (PAGE_SIZES as readonly number[]).includes(Number(value)),
  });
}

/** One row of the orders table. Money in minor units of `currency`. */
export interface OrderRow {
  id: string;
  status: string;
  amount: number;
  currency: string;
  /** Sum of the order's ledger entries. */
  credited: number;
  /** credited − what the status implies (created: 0; otherwise amount − refunded − withdrawn by a dispute). Non-zero = the books differ. */
  difference: number;
  lastEventAt: string | null;
  updatedAt: string;
  /** Open dead letters and open extra charges of the order: non-zero = a person should look. */
  attention: OrderAttention;
  /** What a search text found the order by (empty without one): a part of its id, or an id or e-mail naming it. */
  matchedBy: SearchKind[];
}

/**
 * What the order's ledger should sum to for its status (the reconciliation's rule), in minor units:
 * nothing before it is paid; then its amount less what was refunded and what a dispute withdrew
 * (and was not reinstated).
 */
export function expectedCredited(order: { status: string; amount: number; refundedAmount: number; disputedAmount: number }): number {
  return order.status === "created" ? 0 : order.amount - order.refundedAmount - order.disputedAmount;
}

/**
 * One page of orders for the dashboard: filters (status, currency, updated-at day range, a search text,
 * needs attention), one indexed sort with the id as tie-breaker (amount: within each currency,
 * currencies A to Z), and for this page's orders only `credited` (one grouped query on
 * LedgerEntry.orderId) and `attention` (open dead letters and extra charges). A search text `q` matches
 * any part of the order id in any case, or names the order exactly by its checkout session, a payment,
 * charge or event id, or (with `emails`, for roles that may read personal data) its customer's e-mail
 * ({@link ordersNamedBy}). Count and page run together. Throws ZodError on an invalid query (callers pass
 * {@link orderQueryFromParams}'s output).
 */
export async function listOrdersPage(db: Db, organizationId: string, input: OrderQuery, options: { emails?: boolean } = {}): Promise<Page<OrderRow>> {
  const query = orderQuerySchema.parse(input);
  const named = query.q ? await ordersNamedBy(db, organizationId, query.q, { emails: options.emails ?? false }) : new Map<string, SearchKind[]>();
  const { rows, count } = await orderRowsPage(db, { ...query, organizationId }, [...named.keys()], { sort: query.sort, dir: query.dir, offset: (query.page - 1) * query.pageSize, limit: query.pageSize });
  const ids = rows.map((row) => row.id);
  const [credited, attention] = await Promise.all([creditedOf(db, organizationId, ids), attentionOf(db, organizationId, ids)]);
  const data = rows.map((row) => {
    const sum = credited.get(row.id) ?? 0;
    return {
      id: row.id,
      status: row.status,
      amount: row.amount,
      currency: row.currency,
      credited: sum,
      difference: sum - expectedCredited(row),
      lastEventAt: row.lastEventAt?.toISOString() ?? null,
      updatedAt: row.updatedAt.toISOString(),
      attention: attention.get(row.id)!,
      matchedBy: matchedKinds(row.id, query.q, named),
    };
  });
  return pageOf(data, count, query.page, query.pageSize);
}

/**
 * Currencies present among the orders (the filter's options), at most 50, sorted: one `currency > last
 * LIMIT 1` seek per currency on the (currency, updatedAt, id) index instead of a GROUP BY over every order.
 */
export async function orderCurrencies(db: Db): Promise<string[]> {
  const currencies: string[] = [];
  for (let last = ""; currencies.length < 50; ) {
    const next = await db.order.findFirst({ where: { currency: { gt: last } }, orderBy: { currency: "asc" }, select: { currency: true } });
    if (!next) break;
    currencies.push(next.currency);
    last = next.currency;
  }
  return currencies;
}
