import type { CliReasons } from "@/lib/reasons/cli-reasons";
import { readStoredReason, type ReasonRef } from "@/lib/reasons/reason-codes";
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { driverOf } from "@/lib/db/driver";
import { pageOf, type Page } from "@/lib/lists/paging";
import { minorToDecimal } from "@/lib/money/minor-units";
import { csvText } from "@/lib/format/csv";
import type { CurrencyTotals, MismatchCode } from "@/lib/reconciliation/match-payments";

/** The codes a mismatch can have, in the order the filter lists them. */
export const MISMATCH_CODES: readonly MismatchCode[] = ["missing_credit", "unsettled_credit", "amount_mismatch", "currency_mismatch", "refund_mismatch", "dispute_mismatch", "duplicate_row"];

/** A run as the API and the pages show it: scope, period, status, progress, totals per currency. */
export interface RunSummary {
  id: string;
  source: string;
  /** How the report came: upload, cli or scheduled (a settlement pull). */
  origin: string;
  format: string;
  scope: { provider: string; account: string; livemode: boolean };
  period: { from: string; to: string } | null;
  status: string;
  actor: string;
  startedAt: string;
  finishedAt: string | null;
  /** Why a failed run failed, in English (as logged). */
  error: string | null;
  /** The same as a reason code and parameters, for the reader's locale; null on rows written before codes. */
  errorReason: ReasonRef | null;
  progress: { rows: number; bytes: number; bytesTotal: number; mismatches: number };
  orderCount: number;
  mismatchCount: number;
  totals: Record<string, CurrencyTotals>;
  payouts: Record<string, { currency: string; net: number }>;
  overcredited: Record<string, number>;
}

/** One stored mismatch as the API, the CLI's --json and the CSV export give it (amounts in minor units of currency). */
export interface MismatchView {
  code: string;
  paymentId: string;
  orderId: string;
  currency: string;
  settled: number;
  booked: number;
  line: number | null;
  lines: number[];
  nextAction: string;
  /** Order-level (lab) runs only: what the provider said and what Acredita holds for the order. */
  order?: { providerStatus: string; expectedStatus: string; foundStatus: string; expectedCredited: number; foundCredited: number; overcredited: number; reason: string; reasonRef?: ReasonRef };
}

function json<T>(text: string, schema: z.ZodType<T>, fallback: T): T {
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : fallback;
  } catch {
    return fallback;
  }
}

const totalsSchema = z.record(z.string(), z.object({ gross: z.number(), fees: z.number(), net: z.number(), credited: z.number(), refunded: z.number(), overCredited: z.number(), underCredited: z.number() }));
const payoutsSchema = z.record(z.string(), z.object({ currency: z.string(), net: z.number() }));
const numbersSchema = z.record(z.string(), z.number());
const linesSchema = z.array(z.number());

/** The summary of the organization's run `runId`, or null for an unknown id (or another organization's run). Its mismatches are read by the id it returns. */
export async function runSummary(db: Db, organizationId: string, runId: string): Promise<RunSummary | null> {
  const run = await db.reconciliationRun.findFirst({ where: { id: runId, organizationId } });
  if (!run) return null;
  return {
    id: run.id,
    source: run.source,
    origin: run.origin,
    format: run.format,
    scope: { provider: run.provider, account: run.account, livemode: run.livemode },
    period: run.periodFrom && run.periodTo ? { from: run.periodFrom.toISOString(), to: run.periodTo.toISOString() } : null,
    status: run.status,
    actor: run.actor,
    startedAt: run.startedAt.toISOString(),
    finishedAt: run.finishedAt?.toISOString() ?? null,
    error: run.error,
    errorReason: readStoredReason(run.errorCode, run.errorParams) ?? null,
    progress: { rows: run.rowCount, bytes: run.bytesDone, bytesTotal: run.bytesTotal, mismatches: run.mismatchCount },
    orderCount: run.orderCount,
    mismatchCount: run.mismatchCount,
    totals: json(run.totals, totalsSchema, {}),
    payouts: json(run.payouts, payoutsSchema, {}),
    overcredited: json(run.overcredited, numbersSchema, {}),
  };
}

/** Sorts the mismatches table offers (the default: report line, then payment). */
export const MISMATCH_SORTS = ["line", "code", "paymentId", "orderId", "settled", "booked"] as const;
export type MismatchSort = (typeof MISMATCH_SORTS)[number];

/** Page, page size (capped at 500), code filter and sort of a mismatches list, strictly. */
export const mismatchQuerySchema = z.object({
  page: z.number().int().min(1).default(1),
  pageSize: z.number().int().min(1).max(500).default(50),
  code: z.enum(MISMATCH_CODES as [MismatchCode, ...MismatchCode[]]).optional(),
  sort: z.enum(MISMATCH_SORTS).default("line"),
  direction: z.enum(["asc", "desc"]).default("asc"),
});
export type MismatchQuery = z.input<typeof mismatchQuerySchema>;

type MismatchRow = { code: string; paymentId: string; orderId: string; currency: string; settled: number; booked: number; line: number | null; lines: string; nextAction: string; reasonCode: string | null; reasonParams: string | null } & Omit<NonNullable<MismatchView["order"]>, "reasonRef">;

function view(row: MismatchRow): MismatchView {
  const base: MismatchView = { code: row.code, paymentId: row.paymentId, orderId: row.orderId, currency: row.currency, settled: row.settled, booked: row.booked, line: row.line, lines: json(row.lines, linesSchema, []), nextAction: row.nextAction };
  if (!row.providerStatus) return base;
  const { providerStatus, expectedStatus, foundStatus, expectedCredited, foundCredited, overcredited, reason } = row;
  const reasonRef = readStoredReason(row.reasonCode, row.reasonParams);
  return { ...base, order: { providerStatus, expectedStatus, foundStatus, expectedCredited, foundCredited, overcredited, reason, ...(reasonRef ? { reasonRef } : {}) } };
}

function orderBy(sort: MismatchSort, direction: "asc" | "desc") {
  // Lines are null for credits the report lacks: last either way, as on both databases alike.
  const first = sort === "line" ? { line: { sort: direction, nulls: "last" as const } } : { [sort]: direction };
  return [first, { paymentId: "asc" as const }, { id: "asc" as const }];
}

/**
 * One page of run `runId`'s mismatches, filtered by code and sorted, with the total count: the
 * `{ data, count, page, pageSize, totalPages }` list shape. Throws ZodError on an invalid query.
 */
export async function mismatchesPage(db: Db, runId: string, query: MismatchQuery = {}): Promise<Page<MismatchView>> {
  const { page, pageSize, code, sort, direction } = mismatchQuerySchema.parse(query);
  const where = { runId, ...(code ? { code } : {}) };
  const [rows, count] = await Promise.all([db.reconciliationMismatch.findMany({ where, orderBy: orderBy(sort, direction), skip: (page - 1) * pageSize, take: pageSize }), db.reconciliationMismatch.count({ where })]);
  return pageOf(rows.map(view), count, page, pageSize);
}

const MISMATCH_VIEW_COLUMNS = `"id", "code", "paymentId", "orderId", "currency", "settled", "booked", "line", "lines", "nextAction", "providerStatus", "expectedStatus", "foundStatus", "expectedCredited", "foundCredited", "overcredited", "reason", "reasonCode", "reasonParams"`;

/**
 * Every mismatch of run `runId` (optionally of one code) in the order found, read 1,000 at a time by
 * keyset on the id (the CLI and the CSV export), on the driver's prepared statements: a 1,000,000-line
 * report's mismatches are read back without Prisma building and mapping each page.
 */
export async function* allMismatches(db: Db, runId: string, code?: string): AsyncGenerator<MismatchView> {
  const driver = driverOf(db);
  for (let cursor = ""; ; ) {
    const rows = await driver.transaction((session) =>
      code
        ? session.all<MismatchRow & { id: string }>(`SELECT ${MISMATCH_VIEW_COLUMNS} FROM "ReconciliationMismatch" WHERE "runId" = ? AND "code" = ? AND "id" > ? ORDER BY "id" LIMIT 1000`, [runId, code, cursor])
        : session.all<MismatchRow & { id: string }>(`SELECT ${MISMATCH_VIEW_COLUMNS} FROM "ReconciliationMismatch" WHERE "runId" = ? AND "id" > ? ORDER BY "id" LIMIT 1000`, [runId, cursor]),
    );
    for (const row of rows) yield view(row);
    if (rows.length < 1_000) return;
    cursor = rows[rows.length - 1].id;
  }
}

/**
 * One mismatch as a plain-text report line, amounts in major units: in English as always
 * (`settled 20.00 USD`), or, given another locale's `view`, translated with money formatted by Intl.
 */
export function formatMismatchLine(m: MismatchView, view?: CliReasons): string {
  if (view && view.locale !== "en") {
    return view.t("reasons.cli.paymentMismatch", {
      code: view.word("mismatch", m.code),
      paymentId: m.paymentId,
      order: m.orderId ? view.t("reasons.cli.orderOf", { orderId: m.orderId }) : "",
      settled: view.money(m.settled, m.currency),
      booked: view.money(m.booked, m.currency),
      where: m.lines.length > 0 ? view.t("reasons.cli.lines", { count: m.lines.length, lines: m.lines.join(", ") }) : view.t("reasons.cli.notInReport"),
      next: view.text("mismatchNext", m.code, m.nextAction),
    });
  }
  const order = m.orderId ? ` (order ${m.orderId})` : "";
  const where = m.lines.length > 0 ? `line${m.lines.length === 1 ? "" : "s"} ${m.lines.join(", ")}` : "not in the report";
  return `MISMATCH ${m.code} ${m.paymentId}${order}: settled ${minorToDecimal(m.settled, m.currency)} ${m.currency}, booked ${minorToDecimal(m.booked, m.currency)} ${m.currency}; ${where}; next: ${m.nextAction}`;
}

/**
 * The totals of a run as report lines, one per currency. In English (no `view`, or an English one) the
 * lines scripts parse: amounts as plain decimals in major units; in another locale, translated, money
 * formatted by currency (Intl).
 */
export function formatTotalsLines(totals: Record<string, CurrencyTotals>, view?: CliReasons): string[] {
  return Object.entries(totals)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([currency, t]) => {
      if (view && view.locale !== "en") {
        const m = (amount: number) => view.money(amount, currency);
        return view.t("reasons.cli.totals", { currency, gross: m(t.gross), fees: m(t.fees), net: m(t.net), credited: m(t.credited), refunded: m(t.refunded), over: m(t.overCredited), under: m(t.underCredited) });
      }
      const m = (amount: number) => minorToDecimal(amount, currency);
      return `TOTAL ${currency}: gross ${m(t.gross)}, fees ${m(t.fees)}, net ${m(t.net)}; credited ${m(t.credited)}, refunded ${m(t.refunded)}; over-credited ${m(t.overCredited)}, under-credited ${m(t.underCredited)}`;
    });
}

/** The last line of a payment-level report: count, lines read, scope and period (UTC, ISO 8601), in `view`'s locale (English without one). */
export function formatRunLine(summary: RunSummary, view?: CliReasons): string {
  const scope = `${summary.scope.provider}:${summary.scope.account}:${summary.scope.livemode ? "live" : "test"}`;
  if (view && view.locale !== "en") {
    const period = summary.period ? view.t("reasons.cli.period", { from: summary.period.from, to: summary.period.to }) : view.t("reasons.cli.noPeriod");
    return view.t("reasons.cli.runLine", { count: summary.mismatchCount, n: view.count(summary.mismatchCount), rowCount: summary.progress.rows, rows: view.count(summary.progress.rows), scope, period });
  }
  const period = summary.period ? `${summary.period.from} to ${summary.period.to}` : "no period";
  return `${summary.mismatchCount} mismatch${summary.mismatchCount === 1 ? "" : "es"} in ${summary.progress.rows} report line${summary.progress.rows === 1 ? "" : "s"}; scope ${scope}; period [${period})`;
}

const CSV_COLUMNS = ["code", "payment_id", "order_id", "currency", "settled_minor", "booked_minor", "line", "lines", "next_action"] as const;

/** The CSV export's header row. */
export function mismatchCsvHeader(): string {
  return CSV_COLUMNS.join(",");
}

/** One mismatch as a CSV row of the export (amounts in minor units, as numbers; lines separated by spaces). */
export function mismatchCsvLine(m: MismatchView): string {
  const texts = [m.code, m.paymentId, m.orderId, m.currency].map(csvText);
  // Integers Acredita computed: a minus sign here is a negative amount, never a formula.
  const numbers = [m.settled, m.booked].map(String);
  return [...texts, ...numbers, m.line === null ? "" : String(m.line), csvText(m.lines.join(" ")), csvText(m.nextAction)].join(",");
}
