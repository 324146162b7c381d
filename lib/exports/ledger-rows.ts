// The ledger as the export and GET /api/ledger read it: entries of the orders matching the orders page's
// filters (or of one order), booked in a day range, in entry-id order (ULIDs: booking time) by keyset.
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { driverOf, type SqlValue } from "@/lib/db/driver";
import { sqlDate, sqliteBoolean } from "@/lib/db/sql-values";
import { decodeCursor, encodeCursor } from "@/lib/lists/cursor";
import { dayFromParams, nextDay } from "@/lib/lists/paging";
import { filtersOrders, orderIdsSubquery, type OrderFilter } from "@/lib/orders/order-rows";
import { orderFilterOf, orderFilterParamsSchema } from "@/lib/orders/orders";

const day = z.string().refine((value) => dayFromParams({ d: value }, "d") !== undefined, "must be a day, YYYY-MM-DD (UTC)");

/**
 * The ledger's filters as strict query parameters: the orders page's (whose orders' entries), `orderId`
 * (one order's entries), and `bookedFrom`/`bookedTo` (days the entry was booked, UTC, both included).
 */
export const ledgerFilterParamsSchema = orderFilterParamsSchema.extend({
  orderId: z.string().min(1).max(255).optional(),
  bookedFrom: day.optional(),
  bookedTo: day.optional(),
});
export type LedgerFilterParams = z.infer<typeof ledgerFilterParamsSchema>;

/** What the ledger readers filter by. Dates are UTC; `bookedTo` is exclusive. */
export interface LedgerFilter {
  orders: OrderFilter;
  orderId?: string;
  bookedFrom?: Date;
  bookedTo?: Date;
}

/** The {@link LedgerFilter} of parsed parameters. */
export function ledgerFilterOf(organizationId: string, params: LedgerFilterParams): LedgerFilter {
  return {
    orders: orderFilterOf(organizationId, params),
    orderId: params.orderId,
    bookedFrom: params.bookedFrom ? new Date(`${params.bookedFrom}T00:00:00.000Z`) : undefined,
    bookedTo: params.bookedTo ? nextDay(new Date(`${params.bookedTo}T00:00:00.000Z`)) : undefined,
  };
}

/** A ledger entry as the export and the API give it. Signed minor units of `currency` (credits positive, refunds negative); times UTC. */
export interface LedgerRecord {
  id: string;
  businessKey: string;
  orderId: string;
  paymentKey: string;
  kind: string;
  amount: number;
  currency: string;
  provider: string;
  account: string;
  livemode: boolean;
  eventId: string;
  occurredAt: Date | null;
  createdAt: Date;
}

type RawEntry = Omit<LedgerRecord, "livemode" | "occurredAt" | "createdAt"> & { livemode: boolean | number; occurredAt: Date | string | null; createdAt: Date | string };

const COLUMNS = ["id", "businessKey", "orderId", "paymentKey", "kind", "amount", "currency", "provider", "account", "livemode", "eventId", "occurredAt", "createdAt"].map((column) => `"${column}"`).join(", ");

function whereOf(dialect: "sqlite" | "postgresql", filter: LedgerFilter, named: readonly string[]): { parts: string[]; params: SqlValue[] } {
  // Always one organization's entries (the orders filter's organization).
  const parts: string[] = [`"organizationId" = ?`];
  const params: SqlValue[] = [filter.orders.organizationId];
  if (filter.orderId) {
    parts.push(`"orderId" = ?`);
    params.push(filter.orderId);
  }
  if (filter.bookedFrom) {
    parts.push(`"createdAt" >= ?`);
    params.push(filter.bookedFrom);
  }
  if (filter.bookedTo) {
    parts.push(`"createdAt" < ?`);
    params.push(filter.bookedTo);
  }
  if (filtersOrders(filter.orders)) {
    const orders = orderIdsSubquery(dialect, filter.orders, named);
    parts.push(`"orderId" IN (${orders.sql})`);
    params.push(...orders.params);
  }
  return { parts, params };
}

/**
 * Up to `limit` ledger entries matching `filter` (`named`: the order ids its search text names exactly)
 * with an id after `afterId`, in id order: keyset on the primary key, so a batch reads only its rows.
 */
export async function ledgerRowsAfter(db: Db, filter: LedgerFilter, named: readonly string[], afterId: string | undefined, limit: number): Promise<LedgerRecord[]> {
  const driver = driverOf(db);
  const where = whereOf(driver.dialect, filter, named);
  const parts = afterId === undefined ? where.parts : [`"id" > ?`, ...where.parts];
  const params = afterId === undefined ? where.params : [afterId, ...where.params];
  const rows = await driver.all<RawEntry>(`SELECT ${COLUMNS} FROM "LedgerEntry" ${parts.length ? `WHERE ${parts.join(" AND ")}` : ""} ORDER BY "id" ASC LIMIT ?`, [...params, limit]);
  return rows.map((row) => ({ ...row, amount: Number(row.amount), livemode: sqliteBoolean(row.livemode), occurredAt: sqlDate(row.occurredAt), createdAt: sqlDate(row.createdAt)! }));
}

/** How many ledger entries match `filter`. */
export async function countLedgerRows(db: Db, filter: LedgerFilter, named: readonly string[]): Promise<number> {
  const driver = driverOf(db);
  const where = whereOf(driver.dialect, filter, named);
  const rows = await driver.all<{ count: number | string }>(`SELECT count(*) AS "count" FROM "LedgerEntry" ${where.parts.length ? `WHERE ${where.parts.join(" AND ")}` : ""}`, where.params);
  return Number(rows[0]?.count ?? 0);
}

/** The cursor after entry `id`. */
export function encodeLedgerCursor(id: string): string {
  return encodeCursor([id]);
}

/** The entry id a cursor {@link encodeLedgerCursor} wrote holds; undefined for anything else. */
export function decodeLedgerCursor(text: string): string | undefined {
  return decodeCursor(text, 1)?.[0];
}
