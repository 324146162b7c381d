import { forbidden } from "next/navigation";
import Link from "next/link";
import { Suspense, type ReactNode } from "react";
import { getTranslations } from "next-intl/server";
import { DateTime } from "@/app/_components/money";
import { Pager } from "@/app/_components/pager";
import { serverReasons } from "@/app/_components/server-reasons";
import { BreakAfter } from "@/app/_components/break-after";
import { auditFilterOptions, auditQueryFromParams, listAuditPage, type AuditQuery, type AuditTargetNames } from "@/lib/audit/list-audit";
import { can } from "@/lib/auth/roles";
import { actingOrganizationId, requireActor } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { param, type SearchParams } from "@/lib/lists/paging";
import { FilterInput, FilterSelect } from "@/app/_components/filter-fields";

/** An audit action ("dead_letter.retry") in the reader's language; an action the catalogue lacks is shown as stored. */
function actionLabel(t: { has(key: string): boolean; (key: string): string }, action: string): string {
  const key = `actions.${action}`;
  return /^[a-z_]+\.[a-z_]+$/.test(action) && t.has(key) ? t(key) : action;
}

/** Where an audited object can be seen: its page, or the list it is on. */
const TARGET_PAGES: Record<string, (id: string) => string> = {
  reconciliation_run: (id) => `/reconciliation/${encodeURIComponent(id)}`,
  dead_letter: () => "/dead-letters",
  extra_charge: () => "/review",
  outbox_message: () => "/review",
  user: () => "/admin/users",
  api_key: () => "/admin/users",
};

type Translator = { has(key: string): boolean; (key: string, values?: Record<string, string>): string };

/**
 * An audited object by the ids people search by: the provider's event (linked to its decisions), the
 * merchant's order (linked to its page), the payment, a user's e-mail; the internal id only as a tooltip.
 */
function NamedTarget({ t, kind, id, named }: { t: Translator; kind: string; id: string; named: AuditTargetNames }) {
  const parts: ReactNode[] = [];
  if (named.eventId) {
    parts.push(
      <Link key="event" href={`/decisions?eventId=${encodeURIComponent(named.eventId)}`} className="mono" data-testid="audit-target-event">
        <BreakAfter text={t("targetEvent", { id: named.eventId })} />
      </Link>,
    );
  }
  if (named.orderId) {
    parts.push(
      <Link key="order" href={`/orders/${encodeURIComponent(named.orderId)}`} className="mono" data-testid="audit-target-order">
        <BreakAfter text={t("targetOrder", { id: named.orderId })} />
      </Link>,
    );
  }
  if (named.paymentKey) parts.push(<span key="payment" className="mono"><BreakAfter text={t("targetPayment", { id: named.paymentKey })} /></span>);
  if (named.email) parts.push(<span key="email" className="mono"><BreakAfter text={named.email} /></span>);
  return (
    <span title={id} data-testid="audit-target">
      {kind}{" "}
      {parts.map((part, index) => (
        <span key={index}>
          {index > 0 ? " · " : null}
          {part}
        </span>
      ))}
    </span>
  );
}

/** An audited object: its kind in the reader's language (the stored word when the catalogue lacks it), its id, a link where it can be seen. */
function AuditTarget({ t, type, id, named }: { t: Translator; type: string; id: string; named?: AuditTargetNames }) {
  const kind = /^[a-z_]+$/.test(type) && t.has(`targets.${type}`) ? t(`targets.${type}`) : type;
  if (named) return <NamedTarget t={t} kind={kind} id={id} named={named} />;
  const page = Object.hasOwn(TARGET_PAGES, type) ? TARGET_PAGES[type] : undefined;
  return (
    <>
      {kind}{" "}
      {page ? (
        <Link href={page(id)} className="mono">
          <BreakAfter text={id} />
        </Link>
      ) : (
        <span className="mono">
          <BreakAfter text={id} />
        </span>
      )}
    </>
  );
}

export const dynamic = "force-dynamic";

/** Admin: the audit log, newest first, filtered by actor, action and time in the URL (server-side). */
export default async function AuditPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const actor = await requireActor("/admin/audit");
  const [t, common, reasons] = await Promise.all([getTranslations("audit"), getTranslations("common"), serverReasons()]);
  if (!can(actor.role, "users.manage")) forbidden();
  const params = await searchParams;
  const query = auditQueryFromParams(params);
  const options = await auditFilterOptions(await db(), actor.organizationId);
  const raw = (name: string) => param(params, name) ?? "";
  const filterParams = {
    actor: query.actor,
    action: query.action,
    target: query.target,
    from: query.from ? raw("from") : undefined,
    to: query.to ? raw("to") : undefined,
    pageSize: query.pageSize === 25 ? undefined : String(query.pageSize),
  };
  return (
    <>
      <h1>{t("title")}</h1>
      <p className="help">
        {t("help")} {common("utc")}
      </p>
      <form method="get" action="/admin/audit" className="filters" role="search" aria-label={t("title")}>
        <FilterSelect id="a-actor" name="actor" label={t("actor")} anyLabel={common("any")} value={query.actor} options={options.actors.map((actor) => ({ value: actor, label: reasons.actor(actor) }))} />
        <FilterSelect id="a-action" name="action" label={t("action")} anyLabel={common("any")} value={query.action} options={options.actions.map((action) => ({ value: action, label: actionLabel(t, action) }))} />
        <FilterInput id="a-target" name="target" label={t("targetSearch")} value={query.target} maxLength={255} placeholder="evt_…, ord_…" />
        <FilterInput id="a-from" name="from" type="datetime-local" label={common("from")} value={filterParams.from} />
        <FilterInput id="a-to" name="to" type="datetime-local" label={common("to")} value={filterParams.to} />
        <button type="submit">{common("filter")}</button>
        <Link href="/admin/audit" className="button secondary">
          {common("clear")}
        </Link>
      </form>
      <Suspense key={JSON.stringify(query)} fallback={<p role="status">{common("loading")}</p>}>
        <AuditResults query={query} filterParams={filterParams} />
      </Suspense>
    </>
  );
}

async function AuditResults({ query, filterParams }: { query: AuditQuery; filterParams: Record<string, string | undefined> }) {
  const [page, t, common, reasons] = await Promise.all([listAuditPage(await db(), await actingOrganizationId(), query), getTranslations("audit"), getTranslations("common"), serverReasons()]);
  const filtered = Object.entries(filterParams).some(([key, value]) => key !== "pageSize" && value);
  if (page.count === 0) return <p className="empty">{filtered ? common("noMatch") : common("empty")}</p>;
  return (
    <>
      <div className="table-wrap">
        <table data-testid="audit-table">
          <thead>
            <tr>
              <th scope="col">{t("at")}</th>
              <th scope="col">{t("actor")}</th>
              <th scope="col">{t("action")}</th>
              <th scope="col">{t("target")}</th>
              <th scope="col">{t("note")}</th>
            </tr>
          </thead>
          <tbody>
            {page.data.map((row) => (
              <tr key={row.id} data-action={row.action}>
                <td className="nowrap">
                  <DateTime value={row.at} />
                </td>
                <td className="mono">{reasons.actor(row.actorEmail)}</td>
                <td title={row.action}>{actionLabel(t, row.action)}</td>
                <td data-target-type={row.targetType}>
                  <AuditTarget t={t} type={row.targetType} id={row.targetId} named={row.named} />
                </td>
                {/* A note the system wrote renders from its code; a person's words (no code) are shown as written. */}
                <td className="wrap" data-testid="audit-note" data-coded={reasons.coded({ reason: row.note, reasonCode: row.noteCode, reasonParams: row.noteParams })}>
                  {row.note === null ? "—" : reasons.describe({ reason: row.note, reasonCode: row.noteCode, reasonParams: row.noteParams })}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager path="/admin/audit" params={filterParams} page={page.page} totalPages={page.totalPages} count={page.count} />
    </>
  );
}
