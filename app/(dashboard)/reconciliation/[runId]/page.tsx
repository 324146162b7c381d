import Link from "next/link";
import { notFound } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { StatusBadge } from "@/app/_components/badges";
import { DateTime, Money } from "@/app/_components/money";
import { Pager } from "@/app/_components/pager";
import { requireActor } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { DEFAULT_PAGE_SIZE, lenient, pagingFromParams, param, toQueryString, type SearchParams } from "@/lib/lists/paging";
import { MISMATCH_CODES, MISMATCH_SORTS, mismatchesPage, runSummary, type MismatchSort } from "@/lib/reconciliation/run-report";
import { z } from "zod";
import { RunProgress } from "./run-progress";
import { serverReasons } from "@/app/_components/server-reasons";
import { BreakAfter } from "@/app/_components/break-after";
import { MAX_PAYOUTS_PER_RUN } from "@/lib/reconciliation/payment-run";

export const dynamic = "force-dynamic";

const TOTAL_COLUMNS = ["gross", "fees", "net", "credited", "refunded", "overCredited", "underCredited"] as const;

/**
 * One reconciliation run: scope, period and status (a live progress bar while it runs), the totals per
 * currency, the net per payout, and its mismatches (server-side pages, filter by code, sort) with a CSV
 * export; each mismatch links to its order's timeline.
 */
export default async function RunPage({ params, searchParams }: { params: Promise<{ runId: string }>; searchParams: Promise<SearchParams> }) {
  const { runId } = await params;
  const actor = await requireActor(`/reconciliation/${encodeURIComponent(runId)}`);
  const query = await searchParams;
  const client = await db();
  const run = await runSummary(client, actor.organizationId, runId.slice(0, 100));
  if (!run) notFound();
  const paging = pagingFromParams(query);
  const code = lenient(z.enum(MISMATCH_CODES as [string, ...string[]]).optional(), param(query, "code"), undefined);
  const sort = lenient(z.enum(MISMATCH_SORTS), param(query, "sort"), "line") as MismatchSort;
  const direction = lenient(z.enum(["asc", "desc"]), param(query, "direction"), "asc");
  const mismatches = await mismatchesPage(client, run.id, { page: paging.page, pageSize: paging.pageSize, code: code as never, sort, direction });
  const [t, nav, reasons] = await Promise.all([getTranslations("reconciliation"), getTranslations("nav"), serverReasons()]);
  const lab = run.format === "lab";
  const base = `/reconciliation/${run.id}`;
  const keep = { code, sort: sort === "line" ? undefined : sort, direction: direction === "asc" ? undefined : direction, pageSize: paging.pageSize === DEFAULT_PAGE_SIZE ? undefined : paging.pageSize };
  const sortLink = (column: MismatchSort, label: string) => {
    const next = sort === column && direction === "asc" ? "desc" : "asc";
    return (
      <Link href={`${base}${toQueryString({ ...keep, sort: column, direction: next })}`} aria-label={t("sortBy", { column: label })} aria-sort={sort === column ? (direction === "asc" ? "ascending" : "descending") : undefined}>
        {label}
        {sort === column ? (direction === "asc" ? " ▲" : " ▼") : ""}
      </Link>
    );
  };
  const totals = Object.entries(run.totals).sort(([a], [b]) => a.localeCompare(b));
  return (
    <>
      <p>
        <Link href="/reconciliation">← {nav("reconciliation")}</Link>
      </p>
      {/* Named by what was reconciled (the file's name); the run's id below, for support and the API. */}
      <h1>
        <BreakAfter text={t("run_title", { source: run.source })} />
      </h1>
      <p className="muted">
        {t("run_id")} <span className="mono">{run.id}</span>
      </p>
      <RunProgress runId={run.id} initial={{ status: run.status, rows: run.progress.rows, bytesDone: run.progress.bytes, bytesTotal: run.progress.bytesTotal, mismatches: run.progress.mismatches }} />
      {run.status === "failed" ? (
        <p className="notice bad" data-testid="run-error">
          {t("failedWith", { error: reasons.render(run.errorReason ?? undefined, run.error ?? "") })}
        </p>
      ) : null}
      <dl className="summary">
        <div>
          <dt>{t("scope")}</dt>
          <dd className="mono" data-testid="run-scope">
            <BreakAfter text={`${run.scope.provider}:${run.scope.account}:${run.scope.livemode ? "live" : "test"}`} />
          </dd>
        </div>
        <div>
          <dt>{t("period")}</dt>
          <dd data-testid="run-period">
            {run.period ? (
              <>
                <DateTime value={run.period.from} /> – <DateTime value={run.period.to} />
              </>
            ) : (
              t("noPeriod")
            )}
          </dd>
        </div>
        <div>
          <dt>{t("startedAt")}</dt>
          <dd>
            <DateTime value={run.startedAt} />
          </dd>
        </div>
        <div>
          <dt>{t("sourceCol")}</dt>
          <dd>{run.source}</dd>
        </div>
        <div>
          <dt>{t("actor")}</dt>
          <dd>
            <BreakAfter text={reasons.actor(run.actor)} />
          </dd>
        </div>
        <div>
          <dt>{t("rows")}</dt>
          <dd>{run.progress.rows}</dd>
        </div>
        {lab ? (
          <div>
            <dt>{t("orders")}</dt>
            <dd>{run.orderCount}</dd>
          </div>
        ) : null}
        <div>
          <dt>{t("mismatches")}</dt>
          <dd data-testid="mismatch-count">{run.mismatchCount}</dd>
        </div>
      </dl>
      {run.status === "done" ? (
        <section aria-labelledby="totals-h">
          <h2 id="totals-h">{lab ? t("overcredited") : t("totals")}</h2>
          {lab ? (
            <ul data-testid="overcredited-totals">
              {Object.entries(run.overcredited).map(([currency, amount]) => (
                <li key={currency} data-currency={currency}>
                  {currency}: <Money minor={amount} currency={currency} />
                </li>
              ))}
            </ul>
          ) : (
            <div className="table-wrap">
              <table data-testid="totals-table">
                <thead>
                  <tr>
                    <th scope="col">{t("currency")}</th>
                    {TOTAL_COLUMNS.map((column) => (
                      <th key={column} scope="col" className="num">
                        {t(column)}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {totals.map(([currency, sums]) => (
                    <tr key={currency} data-currency={currency}>
                      <th scope="row">{currency}</th>
                      {TOTAL_COLUMNS.map((column) => (
                        <td key={column} className="num" data-column={column}>
                          <Money minor={sums[column]} currency={currency} />
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {Object.keys(run.payouts).length > 0 ? (
            <>
              <h3>{t("payouts")}</h3>
              {Object.keys(run.payouts).length >= MAX_PAYOUTS_PER_RUN ? <p className="help">{t("payoutsCapped", { max: MAX_PAYOUTS_PER_RUN })}</p> : null}
              <ul data-testid="payouts">
                {Object.entries(run.payouts).map(([payout, { currency, net }]) => (
                  <li key={payout}>
                    <span className="mono">{payout}</span>: <Money minor={net} currency={currency} />
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </section>
      ) : null}
      {/* A failed run has no mismatches: its error says why, and nothing below would mean anything. */}
      {run.status === "failed" ? null : (
      <section aria-labelledby="mismatches-h">
        <h2 id="mismatches-h">{t("mismatches")}</h2>
        <nav className="filters" aria-label={t("filterCode")} data-testid="code-filter">
          <Link href={`${base}${toQueryString({ ...keep, code: undefined })}`} className={`button secondary${code ? "" : " active"}`} aria-current={code ? undefined : "true"}>
            {t("allCodes")}
          </Link>
          {MISMATCH_CODES.map((each) => (
            <Link key={each} href={`${base}${toQueryString({ ...keep, code: each })}`} className={`button secondary${code === each ? " active" : ""}`} aria-current={code === each ? "true" : undefined} data-code={each}>
              {t(`codes.${each}`)}
            </Link>
          ))}
          <a href={`/api/reconciliations/${run.id}/mismatches${toQueryString({ code })}`} className="button" download data-testid="export-csv">
            {t("exportCsv")}
          </a>
        </nav>
        {mismatches.count === 0 ? (
          <p className={`notice ${run.status === "done" ? "ok" : "info"}`}>{run.status === "done" && !code ? t("noMismatches") : t("noMismatchesYet")}</p>
        ) : (
          <>
            <div className="table-wrap">
              <table data-testid="mismatches-table">
                <thead>
                  <tr>
                    <th scope="col">{sortLink("code", t("code"))}</th>
                    {lab ? null : <th scope="col">{sortLink("paymentId", t("payment"))}</th>}
                    <th scope="col">{sortLink("orderId", t("order"))}</th>
                    {lab ? (
                      <>
                        <th scope="col">{t("providerStatus")}</th>
                        <th scope="col">{t("expected")}</th>
                        <th scope="col">{t("found")}</th>
                        <th scope="col" className="num">
                          {t("overcredited")}
                        </th>
                        <th scope="col">{t("reason")}</th>
                      </>
                    ) : (
                      <>
                        <th scope="col" className="num">
                          {sortLink("settled", t("settled"))}
                        </th>
                        <th scope="col" className="num">
                          {sortLink("booked", t("booked"))}
                        </th>
                        <th scope="col" className="num">
                          {sortLink("line", t("line"))}
                        </th>
                        <th scope="col">{t("nextAction")}</th>
                      </>
                    )}
                  </tr>
                </thead>
                <tbody>
                  {mismatches.data.map((mismatch, index) => (
                    <tr key={`${mismatch.paymentId}-${mismatch.orderId}-${index}`} data-order-id={mismatch.orderId} data-payment-id={mismatch.paymentId} data-code={mismatch.code}>
                      <td>{t(`codes.${mismatch.code as (typeof MISMATCH_CODES)[number]}`)}</td>
                      {lab ? null : <td className="mono">{mismatch.paymentId}</td>}
                      <td>
                        {mismatch.orderId ? (
                          <>
                            <Link href={`/orders/${encodeURIComponent(mismatch.orderId)}`} className="mono">
                              {mismatch.orderId}
                            </Link>{" "}
                            <span className="muted">({t("viewTimeline")})</span>
                          </>
                        ) : (
                          <span className="muted">—</span>
                        )}
                      </td>
                      {lab && mismatch.order ? (
                        <>
                          <td data-provider-status={mismatch.order.providerStatus}>{reasons.word("providerStatus", mismatch.order.providerStatus)}</td>
                          <td>
                            <StatusBadge status={mismatch.order.expectedStatus} /> <Money minor={mismatch.order.expectedCredited} currency={mismatch.currency} />
                          </td>
                          <td>
                            {mismatch.order.foundStatus === "missing" ? (
                              <span className="badge bad" data-status="missing">
                                {reasons.word("providerStatus", "missing")}
                              </span>
                            ) : (
                              <StatusBadge status={mismatch.order.foundStatus} />
                            )}{" "}
                            <Money minor={mismatch.order.foundCredited} currency={mismatch.currency} />
                          </td>
                          <td className="num">
                            <Money minor={mismatch.order.overcredited} currency={mismatch.currency} />
                          </td>
                          <td className="wrap" data-testid="reason" data-coded={mismatch.order.reasonRef ? "yes" : "no"}>
                            {reasons.render(mismatch.order.reasonRef, mismatch.order.reason)}
                          </td>
                        </>
                      ) : (
                        <>
                          <td className="num">
                            <Money minor={mismatch.settled} currency={mismatch.currency} />
                          </td>
                          <td className="num">
                            <Money minor={mismatch.booked} currency={mismatch.currency} />
                          </td>
                          <td className="num">{mismatch.lines.length > 0 ? mismatch.lines.join(", ") : "—"}</td>
                          <td className="wrap" data-testid="next-action">{reasons.text("mismatchNext", mismatch.code, mismatch.nextAction)}</td>
                        </>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager path={base} params={{ code, sort: keep.sort, direction: keep.direction, pageSize: keep.pageSize === undefined ? undefined : String(keep.pageSize) }} page={mismatches.page} totalPages={mismatches.totalPages} count={mismatches.count} />
          </>
        )}
      </section>
      )}
    </>
  );
}
