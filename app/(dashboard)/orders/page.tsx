import Link from "next/link";
import { Suspense } from "react";
import { getTranslations } from "next-intl/server";
import { can } from "@/lib/auth/roles";
import { actingOrganizationId, requireActor } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { param, pastLastPage, toQueryString, type SearchParams } from "@/lib/lists/paging";
import { listOrdersPage, ORDER_STATUSES, orderCurrencies, orderParamsNotUnderstood, orderQueryFromParams, type OrderQuery } from "@/lib/orders/list-orders";
import { OrdersTable } from "./orders-table";
import { FilterInput, FilterSelect, verbatimOptions } from "@/app/_components/filter-fields";

export const dynamic = "force-dynamic";

/** Orders: filters in a GET form (the URL is the state), the table paged and sorted on the server. */
export default async function OrdersPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const actor = await requireActor("/orders");
  // Searching by a customer's e-mail reads personal data: support and admin (lib/auth/roles.ts).
  const emails = can(actor.role, "payloads.read");
  const params = await searchParams;
  const query = orderQueryFromParams(params);
  const notUnderstood = orderParamsNotUnderstood(params);
  const [t, common, statuses, currencies] = await Promise.all([getTranslations("orders"), getTranslations("common"), getTranslations("status"), orderCurrencies(await db())]);
  const day = (name: string) => {
    const value = param(params, name);
    return value && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : undefined;
  };
  return (
    <>
      <h1>{t("title")}</h1>
      <form method="get" action="/orders" className="filters" role="search" aria-label={t("filters")}>
        <input type="hidden" name="sort" value={query.sort} />
        <input type="hidden" name="dir" value={query.dir} />
        <input type="hidden" name="pageSize" value={query.pageSize} />
        <FilterInput id="f-q" name="q" type="search" label={t("search")} value={query.q} placeholder={emails ? "ord_1041, pi_…, ana@example.com" : "ord_1041, pi_…, ch_…"} maxLength={255} aria-describedby="f-q-help" size={28} />
        <FilterSelect id="f-status" name="status" label={t("status")} anyLabel={common("any")} value={query.status} options={ORDER_STATUSES.map((status) => ({ value: status, label: statuses(status) }))} />
        <FilterSelect id="f-currency" name="currency" label={t("currency")} anyLabel={common("any")} value={query.currency} options={verbatimOptions(currencies)} />
        <FilterInput id="f-from" name="from" type="date" label={t("updatedFrom")} value={day("from")} />
        <FilterInput id="f-to" name="to" type="date" label={t("updatedTo")} value={day("to")} />
        <div className="field checkbox-field">
          <label>
            <input type="checkbox" name="attention" value="1" defaultChecked={query.attention === true} /> {t("attentionFilter")}
          </label>
        </div>
        <button type="submit">{common("filter")}</button>
        <Link href="/orders" className="button secondary">
          {common("clear")}
        </Link>
        <p id="f-q-help" className="help filters-help">
          {emails ? t("searchHelp") : t("searchHelpNoEmail")}
        </p>
      </form>
      <ExportLinks query={query} />
      {notUnderstood.length > 0 ? (
        // The list below ignores these (a bad link never fails), so it says which: else ?status=bogus reads as "any status".
        <p className="notice info" role="status">
          {common("notUnderstood", { params: notUnderstood.map(({ name, value }) => `${name} “${value}”`).join(", ") })}
        </p>
      ) : null}
      <Suspense key={JSON.stringify(query)} fallback={<p role="status">{common("loading")}</p>}>
        <OrdersResults query={query} emails={emails} filtered={Boolean(query.q || query.status || query.currency || query.from || query.to || query.attention)} />
      </Suspense>
    </>
  );
}

/** The exports of every order these filters match (not only this page's), and of their ledger entries. */
async function ExportLinks({ query }: { query: OrderQuery }) {
  const t = await getTranslations("orders");
  const { q, attention, status, currency, from, to } = queryParams(query);
  const filters = toQueryString({ status, currency, from, to, q, attention });
  return (
    <div className="toolbar" data-testid="exports">
      <a className="button secondary" href={`/api/exports/orders.csv${filters}`} download data-testid="export-orders">
        {t("export")}
      </a>
      <a className="button secondary" href={`/api/exports/ledger.csv${filters}`} download data-testid="export-ledger">
        {t("exportLedger")}
      </a>
      <span className="help">{t("exportHelp")}</span>
    </div>
  );
}

/** The query as URL params (dates back to days), for links that keep the filters. */
function queryParams(query: OrderQuery): Record<string, string | undefined> {
  const day = (date: Date | undefined, shift = 0) => (date ? new Date(date.getTime() - shift).toISOString().slice(0, 10) : undefined);
  return {
    q: query.q,
    attention: query.attention ? "1" : undefined,
    status: query.status,
    currency: query.currency,
    from: day(query.from),
    to: day(query.to, 86_400_000),
    sort: query.sort,
    dir: query.dir,
    pageSize: String(query.pageSize),
  };
}

async function OrdersResults({ query, filtered, emails }: { query: OrderQuery; filtered: boolean; emails: boolean }) {
  const [page, t, common] = await Promise.all([listOrdersPage(await db(), await actingOrganizationId(), query, { emails }), getTranslations("orders"), getTranslations("common")]);
  if (page.count === 0) return <p className="empty">{filtered ? common("noMatch") : t("empty")}</p>;
  if (pastLastPage(page)) {
    // A shared link to a page that no longer exists (fewer orders now), or a typed ?page=99: say so, offer the last page and the first.
    return (
      <p className="empty" role="status">
        {common("noSuchPage", { page: page.page, totalPages: page.totalPages })}{" "}
        <Link href={`/orders${toQueryString({ ...queryParams(query), page: page.totalPages === 1 ? undefined : page.totalPages })}`}>{common("goToLast")}</Link> ·{" "}
        <Link href={`/orders${toQueryString({ ...queryParams(query), page: undefined })}`}>{common("first")}</Link>
      </p>
    );
  }
  return <OrdersTable page={page} sort={query.sort} dir={query.dir} />;
}
