import Link from "next/link";
import { forbidden } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { DateTime, Money } from "@/app/_components/money";
import { serverReasons } from "@/app/_components/server-reasons";
import { StaticTable } from "@/app/_components/static-table";
import { can } from "@/lib/auth/roles";
import { requireActor } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { param, type SearchParams } from "@/lib/lists/paging";
import type { OrderCheck } from "@/lib/verification/rebuild-orders";
import { latestBooksReport, ORDERS_PER_BATCH, verifyBooks, type BooksReport } from "@/lib/verification/verify-books";

export const dynamic = "force-dynamic";

/** The order ids a "check now" link names (comma or space separated), at most one batch. */
function orderIdsOf(raw: string | undefined): string[] {
  return [...new Set((raw ?? "").split(/[\s,]+/).filter(Boolean))].slice(0, ORDERS_PER_BATCH).map((id) => id.slice(0, 255));
}

/**
 * The books check (support and admin, `metrics.read`): the last check over every order (the background
 * worker's daily run, or npm run verify-books) with each order whose books differ, linked to it, the
 * orders that could not be rebuilt and the events still waiting; and a check of chosen orders now
 * (a GET form: checking changes nothing). Nothing here corrects anything.
 */
export default async function BooksPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const actor = await requireActor("/books");
  if (!can(actor.role, "metrics.read")) forbidden();
  const [params, t] = await Promise.all([searchParams, getTranslations("books")]);
  const asked = orderIdsOf(param(params, "order"));
  const client = await db();
  const [latest, now] = await Promise.all([latestBooksReport(client, actor.organizationId), asked.length > 0 ? verifyBooks(client, actor.organizationId, { orderIds: asked }) : Promise.resolve(null)]);
  return (
    <>
      <h1>{t("title")}</h1>
      <p className="help">{t("intro")}</p>
      <form method="get" action="/books" className="filters" role="search" aria-label={t("checkNow")}>
        <div className="field">
          <label htmlFor="books-orders">{t("orderIds", { max: ORDERS_PER_BATCH })}</label>
          <input id="books-orders" name="order" defaultValue={asked.join(" ")} size={40} />
        </div>
        <button type="submit" data-testid="check-orders">
          {t("check")}
        </button>
      </form>
      {now ? (
        <section aria-labelledby="now-h" data-testid="books-now">
          <h2 id="now-h">{t("checkedNow")}</h2>
          <Report report={now} />
          {now.orders < asked.length ? <p className="notice info">{t("unknownOrders", { count: asked.length - now.orders })}</p> : null}
        </section>
      ) : null}
      <section aria-labelledby="last-h" data-testid="books-last">
        <h2 id="last-h">{t("lastCheck")}</h2>
        {latest ? (
          <>
            <p>
              {t("lastCheckAt", { trigger: latest.check.trigger })} <DateTime value={latest.check.startedAt} />
            </p>
            <Report report={latest.report} />
          </>
        ) : (
          <p className="empty">{t("never")}</p>
        )}
      </section>
    </>
  );
}

/** One report: the summary, the orders that differ, those that could not be rebuilt, and the events waiting. */
async function Report({ report }: { report: BooksReport }) {
  const [t, status, reasons] = await Promise.all([getTranslations("books"), getTranslations("status"), serverReasons()]);
  const agree = report.differing === 0;
  return (
    <>
      <p className={`notice ${agree ? "ok" : "bad"}`} data-testid="books-summary">
        {t("summary", { agreeing: report.agreeing, orders: report.orders })}
        {report.differing > 0 ? ` ${t("differing", { count: report.differing })}` : ""}
        {report.unverifiable > 0 ? ` ${t("unverifiable", { count: report.unverifiable })}` : ""}
      </p>
      {report.differences.length > 0 ? (
        <StaticTable testId="books-differences" rowCount={report.differences.length} empty="" columns={[{ label: t("order") }, { label: t("difference") }, { label: t("events") }]}>
          {report.differences.map((check) => (
            <tr key={check.orderId} data-order-id={check.orderId}>
              <td>
                <Link href={`/orders/${encodeURIComponent(check.orderId)}`} className="mono">
                  {check.orderId}
                </Link>
              </td>
              <td className="wrap">
                <Differences check={check} t={t} render={reasons.render} kind={(kind) => reasons.word("ledgerKind", kind)} />
              </td>
              <td className="mono wrap">{check.events.map((event) => event.eventId).join(", ") || "—"}</td>
            </tr>
          ))}
        </StaticTable>
      ) : null}
      {report.unverifiableOrders.length > 0 ? (
        <>
          <h3>{t("unverifiableTitle")}</h3>
          <ul className="compact-list" data-testid="books-unverifiable">
            {report.unverifiableOrders.map((check) => (
              <li key={check.orderId}>
                <Link href={`/orders/${encodeURIComponent(check.orderId)}`} className="mono">
                  {check.orderId}
                </Link>
                : {t(check.why?.code === "payload_purged" ? "purged" : "failed", { events: check.why?.eventIds.join(", ") ?? "—" })}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {report.waitingOrders.length > 0 ? (
        <>
          <h3>{t("waitingTitle")}</h3>
          <ul className="compact-list" data-testid="books-waiting">
            {report.waitingOrders.map((order) => (
              <li key={order.orderId}>
                <Link href={`/orders/${encodeURIComponent(order.orderId)}`} className="mono">
                  {order.orderId}
                </Link>
                : {order.events.map((event, index) => (
                  <span key={`${event.eventId}-${index}`}>
                    {index > 0 ? ", " : null}
                    <span className="mono">{event.eventId}</span> ({status.has(event.status) ? status(event.status) : event.status})
                  </span>
                ))}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </>
  );
}

/** What differs in one order: its status or totals, each ledger entry, and each event today's rules refuse. */
function Differences({ check, t, render, kind }: { check: OrderCheck; t: Awaited<ReturnType<typeof getTranslations<"books">>>; render: (ref: OrderCheck["refused"][number]["reasonRef"], fallback: string) => string; kind: (kind: string) => string }) {
  const lines: React.ReactNode[] = [];
  if (check.books && check.rebuilt) {
    if (check.books.status !== check.rebuilt.status) lines.push(t("statusDiff", { books: check.books.status, rebuilt: check.rebuilt.status }));
    for (const field of ["refunded", "disputed"] as const) {
      if (check.books[field] === check.rebuilt[field]) continue;
      lines.push(
        <>
          {t(`${field}Diff`)}: {t("booksAmount")} <Money minor={check.books[field]} currency={check.currency} />, {t("rebuiltAmount")} <Money minor={check.rebuilt[field]} currency={check.currency} />
        </>,
      );
    }
  }
  for (const entry of check.entries) {
    lines.push(
      <>
        {t(`entry.${entry.kind}`, { kind: kind(entry.entryKind) })} <span className="mono muted">{entry.businessKey}</span>: {t("booksAmount")} {entry.books === null ? "—" : <Money minor={entry.books} currency={entry.currency} signed />}, {t("rebuiltAmount")}{" "}
        {entry.rebuilt === null ? "—" : <Money minor={entry.rebuilt} currency={entry.currency} signed />} ({t("byEvents", { events: entry.eventIds.join(", ") })})
      </>,
    );
  }
  for (const refused of check.refused) lines.push(t("refused", { eventId: refused.eventId, reason: render(refused.reasonRef, refused.reason) }));
  return (
    <ul className="compact-list" data-testid="difference">
      {lines.map((line, index) => (
        <li key={index}>{line}</li>
      ))}
    </ul>
  );
}
