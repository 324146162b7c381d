import Link from "next/link";
import { notFound } from "next/navigation";
import { getLocale, getTranslations } from "next-intl/server";
import { OutcomeBadge, StatusBadge } from "@/app/_components/badges";
import { StaticTable } from "@/app/_components/static-table";
import { DateTime, Money } from "@/app/_components/money";
import { serverReasons } from "@/app/_components/server-reasons";
import { requireActor } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { formatDateTime } from "@/lib/format/format";
import { getOrderTimeline, TIMELINE_LIMIT } from "@/lib/orders/order-timeline";
import { isDecisionSource } from "@/lib/decisions/record-decision";
import { eventLookupHref, storedEventHref } from "@/lib/events/event-links";

export const dynamic = "force-dynamic";

/** "What happened to order 1045?": every decision for the order, then its money and fulfilment records. */
export default async function OrderPage({ params }: { params: Promise<{ id: string }> }) {
  const { id: rawId } = await params;
  const id = decodeURIComponent(rawId);
  const actor = await requireActor(`/orders/${encodeURIComponent(id)}`);
  const timeline = await getOrderTimeline(await db(), actor.organizationId, id);
  if (!timeline) notFound();
  const [t, o, nav, locale, reasons, sources] = await Promise.all([getTranslations("order"), getTranslations("orders"), getTranslations("nav"), getLocale(), serverReasons(), getTranslations("decisionSources")]);
  const { order } = timeline;
  // The stored event of each (endpoint, event id) of this order: a decision links to its event's page.
  const storedIds = new Map(timeline.events.map((event) => [`${event.endpoint} ${event.eventId}`, event.id]));
  const eventLink = (ref: { endpoint: string; eventId: string; provider: string }) => {
    const stored = storedIds.get(`${ref.endpoint} ${ref.eventId}`);
    return stored ? storedEventHref(stored) : eventLookupHref(ref);
  };
  return (
    <>
      <p>
        <Link href="/orders">← {nav("orders")}</Link>
      </p>
      <h1>{t("title", { id: order.id })}</h1>
      <dl className="summary" aria-label={t("summary")} data-testid="order-summary">
        <div>
          <dt>{o("status")}</dt>
          <dd>
            <StatusBadge status={order.status} />
          </dd>
        </div>
        <Item label={o("amount")}>
          <Money minor={order.amount} currency={order.currency} />
        </Item>
        <Item label={o("credited")} testId="order-credited">
          <Money minor={order.credited} currency={order.currency} />
        </Item>
        <Item label={t("refunded")}>
          <Money minor={order.refundedAmount} currency={order.currency} />
        </Item>
        <Item label={o("difference")}>
          <span className={order.difference !== 0 ? "diff-bad" : undefined}>
            <Money minor={order.difference} currency={order.currency} signed />
          </span>
        </Item>
        <Item label={t("createdAt")}>
          <DateTime value={order.createdAt} />
        </Item>
      </dl>

      <section aria-labelledby="timeline-h">
        <h2 id="timeline-h">{t("timeline")}</h2>
        <p className="help">{t("timelineHelp")}</p>
        {timeline.decisionCount > timeline.decisions.length ? <p className="notice info">{t("timelineTruncated", { shown: TIMELINE_LIMIT, total: timeline.decisionCount })}</p> : null}
        <StaticTable testId="timeline" rowCount={timeline.decisions.length} empty={t("none")} columns={[{ label: t("time") }, { label: t("event") }, { label: t("type") }, { label: t("provider") }, { label: t("outcome") }, { label: t("httpStatus"), numeric: true }, { label: t("reason") }, { label: t("source") }]}>
          {timeline.decisions.map((decision) => (
            <tr key={decision.id} data-event-id={decision.eventId ?? ""} data-outcome={decision.outcome} data-http-status={decision.httpStatus ?? ""}>
              <td className="nowrap">
                <DateTime value={decision.at} />
              </td>
              <td className="mono">
                {decision.eventId && decision.verified ? (
                  <Link href={eventLink({ endpoint: decision.endpoint, eventId: decision.eventId, provider: decision.provider })} data-testid="event-link">
                    {decision.eventId}
                  </Link>
                ) : (
                  (decision.eventId ?? "—")
                )}{" "}
                {decision.verified ? null : <span className="badge warn">{t("unverified")}</span>}
              </td>
              <td className="mono">{decision.eventType ?? "—"}</td>
              <td>{decision.provider}</td>
              <td>
                <OutcomeBadge outcome={decision.outcome} />
              </td>
              <td className="num">{decision.httpStatus ?? "—"}</td>
              <td className="wrap" data-testid="reason" data-coded={reasons.coded(decision)}>
                {reasons.describe(decision)}
              </td>
              <td data-source={decision.source}>{isDecisionSource(decision.source) ? sources(decision.source) : decision.source}</td>
            </tr>
          ))}
        </StaticTable>
      </section>

      <section aria-labelledby="ledger-h">
        <h2 id="ledger-h">{t("ledger")}</h2>
        <div className="toolbar">
          <a className="button secondary" href={`/api/exports/ledger.csv?orderId=${encodeURIComponent(order.id)}`} download data-testid="export-order-ledger">
            {o("exportLedger")}
          </a>
          <a className="button secondary" href={`/api/exports/decisions.csv?orderId=${encodeURIComponent(order.id)}`} download data-testid="export-order-decisions">
            {t("exportDecisions")}
          </a>
        </div>
        <StaticTable testId="ledger" rowCount={timeline.ledger.length} empty={t("none")} columns={[{ label: t("time") }, { label: t("businessKey") }, { label: t("kind") }, { label: o("amount"), numeric: true }, { label: t("event") }, { label: t("provider") }]}>
          {timeline.ledger.map((entry) => (
            <tr key={entry.id}>
              <td className="nowrap">
                <DateTime value={entry.createdAt} />
              </td>
              <td className="mono">{entry.businessKey}</td>
              <td data-kind={entry.kind}>{reasons.word("ledgerKind", entry.kind)}</td>
              <td className="num">
                <Money minor={entry.amount} currency={entry.currency} signed />
              </td>
              <td className="mono">{entry.eventId}</td>
              <td>{entry.provider}</td>
            </tr>
          ))}
        </StaticTable>
      </section>

      <section aria-labelledby="delivery-h">
        <h2 id="delivery-h">{t("delivery")}</h2>
        <p data-testid="delivery">
          {timeline.delivery
            ? t("deliveredBy", { payment: timeline.delivery.paymentKey, event: timeline.delivery.eventId, provider: timeline.delivery.provider, at: formatDateTime(timeline.delivery.createdAt, locale) })
            : t("noDelivery")}
        </p>
      </section>

      <section aria-labelledby="extra-h">
        <h2 id="extra-h">{t("extraCharges")}</h2>
        <StaticTable rowCount={timeline.extraCharges.length} empty={t("none")} quietEmpty columns={[{ label: t("time") }, { label: t("payment") }, { label: o("amount"), numeric: true }, { label: t("event") }, { label: o("status") }, { label: t("note") }]}>
          {timeline.extraCharges.map((extra) => (
            <tr key={extra.id}>
              <td className="nowrap">
                <DateTime value={extra.createdAt} />
              </td>
              <td className="mono">{extra.paymentKey}</td>
              <td className="num">
                <Money minor={extra.amount} currency={extra.currency} />
              </td>
              <td className="mono">{extra.eventId}</td>
              <td>
                <StatusBadge status={extra.status} />
              </td>
              <td>{extra.note ?? "—"}</td>
            </tr>
          ))}
        </StaticTable>
      </section>

      <section aria-labelledby="events-h">
        <h2 id="events-h">{t("events")}</h2>
        <StaticTable rowCount={timeline.events.length} empty={t("none")} quietEmpty columns={[{ label: t("time") }, { label: t("event") }, { label: t("type") }, { label: t("provider") }, { label: o("status") }, { label: t("attempts"), numeric: true }]}>
          {timeline.events.map((event) => (
            <tr key={event.id}>
              <td className="nowrap">
                <DateTime value={event.receivedAt} />
              </td>
              <td className="mono">
                <Link href={storedEventHref(event.id)}>{event.eventId}</Link>
              </td>
              <td className="mono">{event.type}</td>
              <td>{event.provider}</td>
              <td>
                <StatusBadge status={event.status} />
              </td>
              <td className="num">{event.attempts}</td>
            </tr>
          ))}
        </StaticTable>
      </section>

      <section aria-labelledby="dl-h">
        <h2 id="dl-h">{t("deadLetters")}</h2>
        {timeline.deadLetters.length === 0 ? (
          <p className="muted">{t("none")}</p>
        ) : (
          <ul>
            {timeline.deadLetters.map((letter) => (
              <li key={letter.id}>
                <Link href={eventLink({ endpoint: letter.endpoint, eventId: letter.eventId, provider: letter.provider })} className="mono">
                  {letter.eventId}
                </Link>{" "}
                <StatusBadge status={letter.status} /> <span data-category={letter.category}>{reasons.word("category", letter.category)}</span>: {reasons.describe(letter)} ({t("attempts")}: {letter.attempts})
                {letter.resolution ? <> — {reasons.describe({ reason: letter.resolution, reasonCode: letter.resolutionCode, reasonParams: letter.resolutionParams })}</> : null}
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="outbox-h">
        <h2 id="outbox-h">{t("outbox")}</h2>
        {timeline.outbox.length === 0 ? (
          <p className="muted">{t("none")}</p>
        ) : (
          <ul>
            {timeline.outbox.map((message) => (
              <li key={message.id}>
                {message.target} <StatusBadge status={message.status} /> ({t("attempts")}: {message.attempts}
                {message.lastStatusCode ? `, HTTP ${message.lastStatusCode}` : ""})
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}

function Item({ label, children, testId }: { label: string; children: React.ReactNode; testId?: string }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd data-testid={testId}>{children}</dd>
    </div>
  );
}
