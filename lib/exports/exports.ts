// What the export routes and the JSON list APIs of the decision log and the ledger run: strict query
// parameters (the pages' filters), the search's exact matches computed once, then the rows by keyset.
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { countDecisions, decisionFilterOf, decisionFilterParamsSchema, decisionRowsAfter, decodeDecisionCursor, encodeDecisionCursor, type DecisionFilterParams, type DecisionRow } from "@/lib/decisions/list-decisions";
import { decisionsCsv, ledgerCsv, ordersCsv } from "@/lib/exports/csv-exports";
import { countLedgerRows, decodeLedgerCursor, encodeLedgerCursor, ledgerFilterOf, ledgerFilterParamsSchema, ledgerRowsAfter, type LedgerFilterParams } from "@/lib/exports/ledger-rows";
import { parseStrictQuery } from "@/lib/lists/strict-query";
import { orderFilterOf, orderFilterParamsSchema, type OrderFilterParams } from "@/lib/orders/orders";
import { ordersNamedBy } from "@/lib/orders/order-search";
import type { ReaderReasons } from "@/lib/reasons/render-reason";

/** Whether the caller may search by a customer's e-mail (`payloads.read`). */
interface SearchRights {
  emails: boolean;
}

async function namedIds(db: Db, organizationId: string, q: string | undefined, rights: SearchRights): Promise<string[]> {
  return q ? [...(await ordersNamedBy(db, organizationId, q, rights)).keys()] : [];
}

/** `GET /api/exports/orders.csv`'s query: the orders page's filters ({@link orderFilterParamsSchema}). */
export function parseOrdersExport(search: URLSearchParams) {
  return parseStrictQuery(search, orderFilterParamsSchema, "GET /api/exports/orders.csv", Object.keys(orderFilterParamsSchema.shape));
}

/** The orders CSV of `params` ({@link ordersCsv}), the search as on the orders page. */
export async function ordersExport(db: Db, organizationId: string, params: OrderFilterParams, rights: SearchRights): Promise<AsyncGenerator<string>> {
  return ordersCsv(db, orderFilterOf(organizationId, params), await namedIds(db, organizationId, params.q, rights));
}

/** `GET /api/exports/ledger.csv`'s query ({@link ledgerFilterParamsSchema}). */
export function parseLedgerExport(search: URLSearchParams) {
  return parseStrictQuery(search, ledgerFilterParamsSchema, "GET /api/exports/ledger.csv", Object.keys(ledgerFilterParamsSchema.shape));
}

/** The ledger CSV of `params` ({@link ledgerCsv}). */
export async function ledgerExport(db: Db, organizationId: string, params: LedgerFilterParams, rights: SearchRights): Promise<AsyncGenerator<string>> {
  return ledgerCsv(db, ledgerFilterOf(organizationId, params), await namedIds(db, organizationId, params.q, rights));
}

/** `GET /api/exports/decisions.csv`'s query: the decision log's filters ({@link decisionFilterParamsSchema}). */
export function parseDecisionsExport(search: URLSearchParams) {
  return parseStrictQuery(search, decisionFilterParamsSchema, "GET /api/exports/decisions.csv", Object.keys(decisionFilterParamsSchema.shape));
}

/** The decision log CSV of `params` ({@link decisionsCsv}), reasons in `reasons`' language. */
export function decisionsExport(db: Db, organizationId: string, params: DecisionFilterParams, reasons: ReaderReasons): AsyncGenerator<string> {
  return decisionsCsv(db, decisionFilterOf(organizationId, params), reasons);
}

const limitSchema = z.coerce.number().min(1).max(500).refine(Number.isInteger, "must be a whole number").default(100);
const cursorSchema = <T>(decode: (text: string) => T | undefined) =>
  z
    .string()
    .max(1_000)
    .transform((value, context) => {
      const cursor = decode(value);
      if (cursor === undefined) {
        context.addIssue({ code: "custom", message: "not a cursor this API gave (use nextCursor from the previous page)" });
        return z.NEVER;
      }
      return cursor;
    })
    .optional();

/** `GET /api/decisions`'s query: the log's filters, `limit` 1..500 (default 100) and `cursor`. */
export const decisionListSchema = decisionFilterParamsSchema.extend({ limit: limitSchema, cursor: cursorSchema(decodeDecisionCursor) });

export function parseDecisionList(search: URLSearchParams) {
  return parseStrictQuery(search, decisionListSchema, "GET /api/decisions", Object.keys(decisionListSchema.shape));
}

/** A decision as GET /api/decisions gives it: its columns, time ISO 8601 UTC, and its reason and diagnosis as sentences in the reader's language. */
export type DecisionJson = Omit<DecisionRow, "at"> & { at: string; reasonText: string; diagnosisText: string | null };

/**
 * One page of the decision log, newest first, after `cursor`: `{data, count, nextCursor}` (`count`
 * matches in all; `nextCursor` null on the last page).
 */
export async function listDecisionsApi(db: Db, organizationId: string, query: z.output<typeof decisionListSchema>, reasons: ReaderReasons): Promise<{ data: DecisionJson[]; count: number; nextCursor: string | null }> {
  const filter = decisionFilterOf(organizationId, query);
  const [rows, count] = await Promise.all([decisionRowsAfter(db, filter, query.cursor, query.limit + 1), countDecisions(db, filter)]);
  const page = rows.slice(0, query.limit);
  const data = page.map((row) => ({
    ...row,
    at: row.at.toISOString(),
    reasonText: reasons.describe(row),
    diagnosisText: row.diagnosis ? reasons.describe({ reason: row.diagnosis, reasonCode: row.diagnosisCode, reasonParams: row.diagnosisParams }) : null,
  }));
  const last = page.at(-1);
  return { data, count, nextCursor: rows.length > query.limit && last ? encodeDecisionCursor(last) : null };
}

/** `GET /api/ledger`'s query: the ledger's filters ({@link ledgerFilterParamsSchema}), `limit` and `cursor`. */
export const ledgerListSchema = ledgerFilterParamsSchema.extend({ limit: limitSchema, cursor: cursorSchema(decodeLedgerCursor) });

export function parseLedgerList(search: URLSearchParams) {
  return parseStrictQuery(search, ledgerListSchema, "GET /api/ledger", Object.keys(ledgerListSchema.shape));
}

/**
 * One page of ledger entries in booking order after `cursor`: `{data, count, nextCursor}`; amounts in
 * signed minor units of each entry's currency, times ISO 8601 UTC.
 */
export async function listLedgerApi(db: Db, organizationId: string, query: z.output<typeof ledgerListSchema>, rights: SearchRights) {
  const filter = ledgerFilterOf(organizationId, query);
  const named = await namedIds(db, organizationId, query.q, rights);
  const [rows, count] = await Promise.all([ledgerRowsAfter(db, filter, named, query.cursor, query.limit + 1), countLedgerRows(db, filter, named)]);
  const page = rows.slice(0, query.limit);
  const data = page.map((row) => ({
    id: row.id,
    bookedAt: row.createdAt.toISOString(),
    occurredAt: row.occurredAt?.toISOString() ?? null,
    orderId: row.orderId,
    kind: row.kind,
    amount: row.amount,
    currency: row.currency,
    businessKey: row.businessKey,
    paymentId: row.paymentKey,
    provider: row.provider,
    account: row.account,
    livemode: row.livemode,
    eventId: row.eventId,
  }));
  const last = page.at(-1);
  return { data, count, nextCursor: rows.length > query.limit && last ? encodeLedgerCursor(last.id) : null };
}
