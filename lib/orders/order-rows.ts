// The orders the lists, the JSON API and the CSV export read, by one set of filters written once as SQL
// for both databases (the driver's prepared statements): status, currency, last-update range, a search
// text and "needs attention". A search text matches any part of the order id in any case (PostgreSQL:
// ILIKE through the trigram index Order_id_trgm_idx; SQLite: LIKE, ASCII case-insensitive, reading the
// organization's entries of a covering index) or names the order exactly (lib/orders/order-search.ts).
import type { Db } from "@/lib/db/client";
import { driverOf, type SqlValue } from "@/lib/db/driver";
import { sqlDate, sqliteBoolean } from "@/lib/db/sql-values";
import { cursorTime, decodeCursor, encodeCursor } from "@/lib/lists/cursor";
import { containsPattern } from "@/lib/orders/order-search";

/** Filters every reader of orders shares. Dates are UTC; `to` is exclusive. */
export interface OrderFilter {
  /** The organization whose orders are read: every reader reads one organization's, never more. */
  organizationId: string;
  status?: string;
  currency?: string;
  /** Last update on or after (UTC). */
  from?: Date;
  /** Last update before (UTC, exclusive). */
  to?: Date;
  /** A search text: any part of the order id, or (through `named`) an id or e-mail that names the order. */
  q?: string;
  /** Only orders with an open dead letter or an open extra charge. */
  attention?: boolean;
}

/** An order row as the readers return it. Money in minor units of `currency`; times UTC. */
export interface OrderRecord {
  id: string;
  status: string;
  amount: number;
  currency: string;
  refundedAmount: number;
  disputedAmount: number;
  livemode: boolean;
  checkoutSessionId: string | null;
  lastEventAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What needs a person on an order: its open dead letters and open extra charges (counts). */
export interface OrderAttention {
  openDeadLetters: number;
  openExtraCharges: number;
}

type RawOrder = Omit<OrderRecord, "livemode" | "lastEventAt" | "createdAt" | "updatedAt"> & {
  livemode: boolean | number;
  lastEventAt: Date | string | null;
  createdAt: Date | string;
  updatedAt: Date | string;
};

const COLUMNS = ["id", "status", "amount", "currency", "refundedAmount", "disputedAmount", "livemode", "checkoutSessionId", "lastEventAt", "createdAt", "updatedAt"].map((column) => `"${column}"`).join(", ");

function recordOf(row: RawOrder): OrderRecord {
  return {
    ...row,
    amount: Number(row.amount),
    refundedAmount: Number(row.refundedAmount),
    disputedAmount: Number(row.disputedAmount),
    livemode: sqliteBoolean(row.livemode),
    lastEventAt: sqlDate(row.lastEventAt),
    createdAt: sqlDate(row.createdAt)!,
    updatedAt: sqlDate(row.updatedAt)!,
  };
}

/** The conditions of a filter (ANDed; SQL with `?` placeholders) and their values in order. */
interface Where {
  parts: string[];
  params: SqlValue[];
}

function whereSql(parts: readonly string[]): string {
  return parts.length ? `WHERE ${parts.join(" AND ")}` : "";
}

/**
 * Orders with something open for a person, as a subquery each: a small set (the open rows), read once
 * by the planner, never a probe per order.
 */
const NEEDS_ATTENTION = `("id" IN (SELECT "orderId" FROM "DeadLetter" WHERE "status" = 'open' AND "organizationId" = ? AND "orderId" IS NOT NULL) OR "id" IN (SELECT "orderId" FROM "ExtraCharge" WHERE "status" = 'open' AND "organizationId" = ?))`;

/** The WHERE of `filter` for `dialect`; `named` are the ids the search text names exactly (any number: one parameter). */
function whereOf(dialect: "sqlite" | "postgresql", filter: OrderFilter, named: readonly string[]): Where {
  const parts: string[] = [`"organizationId" = ?`];
  const params: SqlValue[] = [filter.organizationId];
  if (filter.status) {
    parts.push(`"status" = ?`);
    params.push(filter.status);
  }
  if (filter.currency) {
    parts.push(`"currency" = ?`);
    params.push(filter.currency);
  }
  if (filter.from) {
    parts.push(`"updatedAt" >= ?`);
    params.push(filter.from);
  }
  if (filter.to) {
    parts.push(`"updatedAt" < ?`);
    params.push(filter.to);
  }
  const q = filter.q?.trim();
  if (q) {
    // PostgreSQL's LIKE escapes with \ by default; SQLite's has no escape unless the statement names one.
    const contains = dialect === "postgresql" ? `"id" ILIKE ?` : `"id" LIKE ? ESCAPE '\\'`;
    params.push(containsPattern(q));
    if (named.length > 0) {
      const ids = inIds(dialect, "id", named);
      parts.push(`(${contains} OR ${ids.sql})`);
      params.push(ids.param);
    } else {
      parts.push(contains);
    }
  }
  if (filter.attention) {
    parts.push(NEEDS_ATTENTION);
    params.push(filter.organizationId, filter.organizationId);
  }
  return { parts, params };
}

/** Sorts of {@link orderRowsPage}, each backed by an index of Order; amount sorts within each currency. */
export type OrderRowSort = "id" | "status" | "amount" | "lastEventAt" | "updatedAt";

function orderByOf(sort: OrderRowSort, dir: "asc" | "desc"): string {
  const d = dir === "asc" ? "ASC" : "DESC";
  switch (sort) {
    case "id":
      return `"id" ${d}`;
    case "lastEventAt":
      return `"lastEventAt" ${d} NULLS LAST, "id" ${d}`;
    case "amount":
      // Minor units of two currencies do not compare: within each currency, currencies A to Z (index Order(currency, amount, id)).
      return `"currency" ASC, "amount" ${d}, "id" ${d}`;
    default:
      return `"${sort}" ${d}, "id" ${d}`;
  }
}

/** One statement for the driver: SQL with `?` placeholders and its values in order. */
export interface OrderStatement {
  sql: string;
  params: SqlValue[];
}

/**
 * The statements of {@link orderRowsPage} for one dialect (exported so a test can EXPLAIN the very
 * statements a page runs): the page's rows and the count of every match.
 */
export function orderPageStatements(
  dialect: "sqlite" | "postgresql",
  filter: OrderFilter,
  named: readonly string[],
  order: { sort: OrderRowSort; dir: "asc" | "desc"; offset: number; limit: number },
): { rows: OrderStatement; count: OrderStatement } {
  const where = whereOf(dialect, filter, named);
  return {
    rows: { sql: `SELECT ${COLUMNS} FROM "Order" ${whereSql(where.parts)} ORDER BY ${orderByOf(order.sort, order.dir)} LIMIT ? OFFSET ?`, params: [...where.params, order.limit, order.offset] },
    count: { sql: `SELECT count(*) AS "count" FROM "Order" ${whereSql(where.parts)}`, params: where.params },
  };
}

/**
 * One page of the orders matching `filter` (`named`: the ids its search text names exactly), sorted by
 * `sort` with the id as tie-breaker, and how many match in all: two statements run together.
 */
export async function orderRowsPage(
  db: Db,
  filter: OrderFilter,
  named: readonly string[],
  order: { sort: OrderRowSort; dir: "asc" | "desc"; offset: number; limit: number },
): Promise<{ rows: OrderRecord[]; count: number }> {
  const driver = driverOf(db);
  const statements = orderPageStatements(driver.dialect, filter, named, order);
  const [rows, counted] = await Promise.all([driver.all<RawOrder>(statements.rows.sql, statements.rows.params), driver.all<{ count: number | string }>(statements.count.sql, statements.count.params)]);
  return { rows: rows.map(recordOf), count: Number(counted[0]?.count ?? 0) };
}

/** How many orders match `filter`. */
export async function countOrderRows(db: Db, filter: OrderFilter, named: readonly string[]): Promise<number> {
  const driver = driverOf(db);
  const { count } = orderPageStatements(driver.dialect, filter, named, { sort: "id", dir: "asc", offset: 0, limit: 1 });
  const counted = await driver.all<{ count: number | string }>(count.sql, count.params);
  return Number(counted[0]?.count ?? 0);
}

/** A position in the newest-first order of {@link orderRowsAfter}: the last row's creation time and id. */
export interface OrderCursor {
  createdAt: Date;
  id: string;
}

/**
 * Up to `limit` orders matching `filter` after `cursor` (and `offset` more rows, for the API's older
 * offset paging) in newest-first order (createdAt descending, id ascending among equal times: the JSON
 * API's order), by keyset: a call reads only its rows however far in it starts, so the CSV export of
 * 100,000 orders reads them 1,000 at a time with nothing held.
 */
export async function orderRowsAfter(db: Db, filter: OrderFilter, named: readonly string[], cursor: OrderCursor | undefined, limit: number, offset = 0): Promise<OrderRecord[]> {
  const driver = driverOf(db);
  const where = whereOf(driver.dialect, filter, named);
  // "<=" first, so the planners read the createdAt index from the cursor on; the rest breaks its ties.
  const parts = cursor ? [...where.parts, `"createdAt" <= ? AND ("createdAt" < ? OR "id" > ?)`] : where.parts;
  const params = cursor ? [...where.params, cursor.createdAt, cursor.createdAt, cursor.id] : where.params;
  const rows = await driver.all<RawOrder>(`SELECT ${COLUMNS} FROM "Order" ${whereSql(parts)} ORDER BY "createdAt" DESC, "id" ASC LIMIT ? OFFSET ?`, [...params, limit, offset]);
  return rows.map(recordOf);
}

/**
 * Up to `limit` orders matching `filter` whose id comes after `afterId` (all from the first when
 * undefined), in id order: the export's keyset on the primary key, which no two orders share, so each
 * batch starts where the last ended whatever the times, and each reads only its rows.
 */
export async function orderRowsById(db: Db, filter: OrderFilter, named: readonly string[], afterId: string | undefined, limit: number): Promise<OrderRecord[]> {
  const driver = driverOf(db);
  const where = whereOf(driver.dialect, filter, named);
  const parts = afterId === undefined ? where.parts : [...where.parts, `"id" > ?`];
  const params = afterId === undefined ? where.params : [...where.params, afterId];
  const rows = await driver.all<RawOrder>(`SELECT ${COLUMNS} FROM "Order" ${whereSql(parts)} ORDER BY "id" ASC LIMIT ?`, [...params, limit]);
  return rows.map(recordOf);
}

/**
 * The ids of the orders matching `filter`, as a subquery another table's statement filters by
 * (`"orderId" IN (<sql>)`: the ledger export); its values come in order after the statement's own.
 */
export function orderIdsSubquery(dialect: "sqlite" | "postgresql", filter: OrderFilter, named: readonly string[]): OrderStatement {
  const where = whereOf(dialect, filter, named);
  return { sql: `SELECT "id" FROM "Order" ${whereSql(where.parts)}`, params: where.params };
}

/** True when `filter` narrows the organization's orders at all (an empty filter is all its orders: no subquery needed, the organization's own condition suffices). */
export function filtersOrders(filter: OrderFilter): boolean {
  return Boolean(filter.status || filter.currency || filter.from || filter.to || filter.q?.trim() || filter.attention);
}

/** A cursor as the API gives it: the last row's creation time and id ({@link encodeCursor}). */
export function encodeOrderCursor(row: Pick<OrderRecord, "createdAt" | "id">): string {
  return encodeCursor([row.createdAt.toISOString(), row.id]);
}

/** Reads a cursor {@link encodeOrderCursor} wrote; undefined for anything else (a typo, another API's cursor, a hand-made one). */
export function decodeOrderCursor(text: string): OrderCursor | undefined {
  const parts = decodeCursor(text, 2);
  const createdAt = parts ? cursorTime(parts[0]) : undefined;
  return parts && createdAt ? { createdAt, id: parts[1] } : undefined;
}

/**
 * `column` is one of `ids`, with the ids as ONE parameter whatever their number (SQLite's json_each over
 * a JSON array, PostgreSQL's = ANY of a text array): no limit on bound values, and one statement text
 * (one prepared plan) for every batch size.
 */
function inIds(dialect: "sqlite" | "postgresql", column: string, ids: readonly string[]): { sql: string; param: SqlValue } {
  return dialect === "postgresql" ? { sql: `"${column}" = ANY(?::text[])`, param: ids as never } : { sql: `"${column}" IN (SELECT "value" FROM json_each(?))`, param: JSON.stringify(ids) };
}

/**
 * The attention of each of `orderIds` (a page's or an export batch's): open dead letters and open extra
 * charges counted per order, one grouped statement each on their orderId indexes. Every id is in the
 * map, with zeros when nothing is open.
 */
export async function attentionOf(db: Db, organizationId: string, orderIds: readonly string[]): Promise<Map<string, OrderAttention>> {
  const attention = new Map<string, OrderAttention>(orderIds.map((id) => [id, { openDeadLetters: 0, openExtraCharges: 0 }]));
  if (orderIds.length === 0) return attention;
  const driver = driverOf(db);
  const ids = inIds(driver.dialect, "orderId", orderIds);
  const [letters, extras] = await Promise.all([
    driver.all<{ orderId: string; count: number | string }>(`SELECT "orderId", count(*) AS "count" FROM "DeadLetter" WHERE "organizationId" = ? AND ${ids.sql} AND "status" = 'open' GROUP BY "orderId"`, [organizationId, ids.param]),
    driver.all<{ orderId: string; count: number | string }>(`SELECT "orderId", count(*) AS "count" FROM "ExtraCharge" WHERE "organizationId" = ? AND ${ids.sql} AND "status" = 'open' GROUP BY "orderId"`, [organizationId, ids.param]),
  ]);
  for (const row of letters) attention.get(row.orderId)!.openDeadLetters = Number(row.count);
  for (const row of extras) attention.get(row.orderId)!.openExtraCharges = Number(row.count);
  return attention;
}

/** The sum of each order's ledger entries (minor units), for `orderIds`; an order without entries sums to 0. */
export async function creditedOf(db: Db, organizationId: string, orderIds: readonly string[]): Promise<Map<string, number>> {
  const credited = new Map<string, number>(orderIds.map((id) => [id, 0]));
  if (orderIds.length === 0) return credited;
  const driver = driverOf(db);
  const ids = inIds(driver.dialect, "orderId", orderIds);
  const sums = await driver.all<{ orderId: string; sum: number | string | null }>(`SELECT "orderId", sum("amount") AS "sum" FROM "LedgerEntry" WHERE "organizationId" = ? AND ${ids.sql} GROUP BY "orderId"`, [organizationId, ids.param]);
  for (const row of sums) credited.set(row.orderId, Number(row.sum ?? 0));
  return credited;
}
