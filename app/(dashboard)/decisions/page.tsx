import Link from "next/link";
import { Suspense } from "react";
import { getTranslations } from "next-intl/server";
import { OutcomeBadge } from "@/app/_components/badges";
import { DateTime } from "@/app/_components/money";
import { Pager } from "@/app/_components/pager";
import { actingOrganizationId, requireActor } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { settings } from "@/lib/config/settings";
import { decisionsPerHour } from "@/lib/decisions/decisions-per-hour";
import { rejectionSummary } from "@/lib/decisions/rejection-summary";
import { endpointWorthShowing } from "@/lib/decisions/provider-label";
import { DECISION_OUTCOMES, decisionProviders, decisionQueryFromParams, listDecisionsPage, type DecisionQuery } from "@/lib/decisions/list-decisions";
import { param, toQueryString, type SearchParams } from "@/lib/lists/paging";
import { eventLookupHref } from "@/lib/events/event-links";
import { DecisionsChart } from "./decisions-chart";
import { serverReasons } from "@/app/_components/server-reasons";
import { BreakAfter } from "@/app/_components/break-after";
import { FilterInput, FilterSelect, verbatimOptions } from "@/app/_components/filter-fields";

export const dynamic = "force-dynamic";

/** The decision log, newest first, with filters in the URL and a per-hour chart by outcome. */
export default async function DecisionsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const actor = await requireActor("/decisions");
  const params = await searchParams;
  const query = decisionQueryFromParams(params);
  const [t, common, outcomes, providers] = await Promise.all([getTranslations("decisions"), getTranslations("common"), getTranslations("outcome"), decisionProviders(await db(), actor.organizationId)]);
  const raw = (name: string) => param(params, name) ?? "";
  const filterParams = {
    outcome: query.outcome,
    provider: query.provider,
    status: query.httpStatus?.toString(),
    eventId: query.eventId,
    orderId: query.orderId,
    from: query.from ? raw("from") : undefined,
    to: query.to ? raw("to") : undefined,
    pageSize: query.pageSize === 25 ? undefined : String(query.pageSize),
  };
  return (
    <>
      <h1>{t("title")}</h1>
      <p className="help">
        {t("never")} {common("utc")}
      </p>
      <form method="get" action="/decisions" className="filters" role="search" aria-label={t("filters")}>
        <FilterSelect id="d-outcome" name="outcome" label={t("outcome")} anyLabel={common("any")} value={query.outcome} options={DECISION_OUTCOMES.map((outcome) => ({ value: outcome, label: outcomes(outcome) }))} />
        <FilterSelect id="d-provider" name="provider" label={t("provider")} anyLabel={common("any")} value={query.provider} options={verbatimOptions(providers)} />
        <FilterInput id="d-status" name="status" label={t("httpStatus")} value={query.httpStatus} inputMode="numeric" pattern="[1-5][0-9][0-9]" size={5} />
        <FilterInput id="d-event" name="eventId" label={t("eventId")} value={query.eventId} maxLength={255} />
        <FilterInput id="d-order" name="orderId" label={t("orderId")} value={query.orderId} maxLength={255} />
        <FilterInput id="d-from" name="from" type="datetime-local" label={common("from")} value={filterParams.from} />
        <FilterInput id="d-to" name="to" type="datetime-local" label={common("to")} value={filterParams.to} />
        <button type="submit">{common("filter")}</button>
        <Link href="/decisions" className="button secondary">
          {common("clear")}
        </Link>
      </form>
      <div className="toolbar" data-testid="exports">
        <a className="button secondary" href={`/api/exports/decisions.csv${toQueryString({ ...filterParams, pageSize: undefined })}`} download data-testid="export-decisions">
          {t("export")}
        </a>
        <span className="help">{t("exportHelp")}</span>
      </div>
      <Suspense key={`chart-${JSON.stringify({ ...query, page: 0 })}`} fallback={<div className="skeleton" aria-busy="true" />}>
        <Chart query={query} />
      </Suspense>
      <Suspense fallback={null}>
        <Rejections />
      </Suspense>
      <Suspense key={JSON.stringify(query)} fallback={<p role="status">{common("loading")}</p>}>
        <DecisionResults query={query} filterParams={filterParams} />
      </Suspense>
    </>
  );
}

async function Chart({ query }: { query: DecisionQuery }) {
  const buckets = await decisionsPerHour(await db(), { ...query, organizationId: await actingOrganizationId() });
  return <DecisionsChart buckets={buckets.map((bucket) => ({ start: bucket.start.toISOString(), counts: bucket.counts, total: bucket.total }))} />;
}

/** The refusals before a valid signature of the last 24 hours, per endpoint and reason (counted, not each a row below). */
async function Rejections() {
  const [summary, t, reasons] = await Promise.all([rejectionSummary(await db()), getTranslations("decisions"), serverReasons()]);
  if (summary.total === 0) return null;
  return (
    <details className="rejections" data-testid="rejection-summary">
      <summary>{t("rejections", { total: summary.total })}</summary>
      <p className="help">{t("rejectionsHelp", { sample: settings().REJECTION_SAMPLE_PER_MINUTE })}</p>
      <table>
        <thead>
          <tr>
            <th scope="col">{t("rejectionsEndpoint")}</th>
            <th scope="col">{t("rejectionsReason")}</th>
            <th scope="col" className="num">
              HTTP
            </th>
            <th scope="col" className="num">
              {t("rejectionsCount")}
            </th>
          </tr>
        </thead>
        <tbody>
          {summary.rows.map((row) => (
            <tr key={`${row.endpoint} ${row.reason}`}>
              <td className="mono">{row.endpoint}</td>
              <td data-rejection={row.reason}>{reasons.word("rejection", row.reason)}</td>
              <td className="num">{row.httpStatus}</td>
              <td className="num">{row.count}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}

async function DecisionResults({ query, filterParams }: { query: DecisionQuery; filterParams: Record<string, string | undefined> }) {
  const [page, t, common, reasons] = await Promise.all([listDecisionsPage(await db(), await actingOrganizationId(), query), getTranslations("decisions"), getTranslations("common"), serverReasons()]);
  const filtered = Object.entries(filterParams).some(([key, value]) => key !== "pageSize" && value);
  if (page.count === 0) return <p className="empty">{filtered ? common("noMatch") : t("empty")}</p>;
  return (
    <>
      <div className="table-wrap">
        <table data-testid="decisions-table">
          <thead>
            <tr>
              <th scope="col">{t("time")}</th>
              <th scope="col">{t("provider")}</th>
              <th scope="col">{t("event")}</th>
              <th scope="col">{t("order")}</th>
              <th scope="col">{t("outcome")}</th>
              <th scope="col" className="num">
                HTTP
              </th>
              <th scope="col">{t("reason")}</th>
              <th scope="col">{t("secret")}</th>
            </tr>
          </thead>
          <tbody>
            {page.data.map((decision) => (
              <tr key={decision.id} data-event-id={decision.eventId ?? ""} data-outcome={decision.outcome}>
                <td className="nowrap">
                  <DateTime value={decision.at} />
                </td>
                <td className="breakable" data-testid="decision-provider">
                  {decision.provider}
                  {endpointWorthShowing(decision.provider, decision.endpoint) ? (
                    <>
                      <br />
                      <span className="muted mono" title={t("endpoint")}>
                        {decision.endpoint}
                      </span>
                    </>
                  ) : null}
                </td>
                <td className="mono breakable">
                  {decision.eventId && decision.verified ? (
                    <Link href={eventLookupHref({ eventId: decision.eventId, provider: decision.provider, endpoint: decision.endpoint })} data-testid="event-link">
                      {decision.eventId}
                    </Link>
                  ) : (
                    (decision.eventId ?? "—")
                  )}
                  {decision.verified ? null : (
                    <>
                      {" "}
                      <span className="badge warn">{t("unverified")}</span>
                    </>
                  )}
                  {decision.eventType ? (
                    <>
                      <br />
                      <BreakAfter text={decision.eventType} className="muted" testId="event-type" />
                    </>
                  ) : null}
                </td>
                <td className="nowrap">
                  {decision.orderId ? (
                    <Link href={`/orders/${encodeURIComponent(decision.orderId)}`} className="mono">
                      {decision.orderId}
                    </Link>
                  ) : (
                    "—"
                  )}
                </td>
                <td>
                  <OutcomeBadge outcome={decision.outcome} />
                </td>
                <td className="num">{decision.httpStatus ?? "—"}</td>
                <td className="wrap reason-cell" data-testid="reason" data-coded={reasons.coded(decision)}>
                  {reasons.describe(decision)}
                  {decision.diagnosis ? (
                    <>
                      <br />
                      <span className="muted" data-testid="diagnosis">
                        {reasons.describe({ reason: decision.diagnosis, reasonCode: decision.diagnosisCode, reasonParams: decision.diagnosisParams })}
                      </span>
                    </>
                  ) : null}
                </td>
                <td className="mono muted">
                  <BreakAfter text={decision.secretLabel ?? "—"} testId="secret-label" />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager path="/decisions" params={filterParams} page={page.page} totalPages={page.totalPages} count={page.count} />
    </>
  );
}
