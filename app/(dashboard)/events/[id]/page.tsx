import Link from "next/link";
import { notFound } from "next/navigation";
import { getLocale, getTranslations } from "next-intl/server";
import { OutcomeBadge, StatusBadge } from "@/app/_components/badges";
import { DateTime, Money } from "@/app/_components/money";
import { serverReasons } from "@/app/_components/server-reasons";
import { StaticTable } from "@/app/_components/static-table";
import { can } from "@/lib/auth/roles";
import { requireActor } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { isDecisionSource } from "@/lib/decisions/record-decision";
import { EVENT_DECISION_LIMIT, getEventDetail } from "@/lib/events/event-detail";
import { formatDateTime } from "@/lib/format/format";

export const dynamic = "force-dynamic";

/**
 * One stored event (Acredita's id): what arrived and how it was verified, every decision about it in
 * the reader's language, and what it booked. The payload and the customer's e-mail are personal data:
 * support and admin see them (`payloads.read`), a merchant sees that they are hidden.
 */
export default async function EventPage({ params }: { params: Promise<{ id: string }> }) {
  const { id: rawId } = await params;
  const id = decodeURIComponent(rawId);
  const actor = await requireActor(`/events/${encodeURIComponent(id)}`);
  const event = await getEventDetail(await db(), actor.organizationId, id, { payloads: can(actor.role, "payloads.read") });
  if (!event) notFound();
  const [t, nav, locale, reasons, sources] = await Promise.all([getTranslations("event"), getTranslations("nav"), getLocale(), serverReasons(), getTranslations("decisionSources")]);
  return (
    <>
      <p>
        {event.orderId ? <Link href={`/orders/${encodeURIComponent(event.orderId)}`}>← {t("order")} {event.orderId}</Link> : <Link href={`/decisions?eventId=${encodeURIComponent(event.eventId)}`}>← {nav("decisions")}</Link>}
      </p>
      <h1 className="breakable">{t("title", { eventId: event.eventId })}</h1>
      <dl className="summary" aria-label={t("summary")} data-testid="event-summary">
        <Item label={t("status")}>
          <StatusBadge status={event.status} />
        </Item>
        <Item label={t("type")} mono>
          {event.type}
        </Item>
        <Item label={t("provider")}>{event.provider}</Item>
        <Item label={t("endpoint")} testId="event-endpoint">
          {t("endpointValue", { endpoint: event.endpoint, mode: event.livemode ? "live" : "test", account: event.account })}
        </Item>
        <Item label={t("secretLabel")} mono testId="event-secret-label">
          <span title={t("secretHelp")}>{event.secretLabel ?? "—"}</span>
        </Item>
        <Item label={t("order")}>
          {event.orderId ? (
            <Link href={`/orders/${encodeURIComponent(event.orderId)}`} className="mono">
              {event.orderId}
            </Link>
          ) : (
            "—"
          )}
        </Item>
        <Item label={t("payment")} mono>
          {event.paymentId ?? "—"}
        </Item>
        {event.chargeId ? (
          <Item label={t("charge")} mono>
            {event.chargeId}
          </Item>
        ) : null}
        {event.customerEmail ? (
          <Item label={t("customerEmail")} mono testId="event-customer-email">
            {event.customerEmail}
          </Item>
        ) : null}
        <Item label={t("received")}>
          <DateTime value={event.receivedAt} />
        </Item>
        <Item label={t("processed")}>
          <DateTime value={event.processedAt} />
        </Item>
        <Item label={t("attempts")}>{event.attempts}</Item>
        {event.nextAttemptAt && (event.status === "received" || event.status === "failed") ? (
          <Item label={t("nextAttempt")}>
            <DateTime value={event.nextAttemptAt} />
          </Item>
        ) : null}
        {event.lastError ? (
          <Item label={t("lastError")} testId="event-last-error">
            {event.lastError}
          </Item>
        ) : null}
      </dl>

      <section aria-labelledby="payload-h">
        <h2 id="payload-h">{t("payload")}</h2>
        {event.payload.state === "kept" ? (
          <>
            <p className="help">{t("payloadHelp")}</p>
            <pre className="payload" data-testid="payload" data-state="kept" tabIndex={0}>
              {JSON.stringify(event.payload.json, null, 2)}
            </pre>
          </>
        ) : event.payload.state === "purged" ? (
          <p className="notice info" data-testid="payload" data-state="purged">
            {t("purged", { at: formatDateTime(event.payload.purgedAt, locale), days: event.payload.retentionDays === null ? "none" : String(event.payload.retentionDays) })}
          </p>
        ) : (
          <p className="notice info" data-testid="payload" data-state="hidden">
            {t("hidden")}
          </p>
        )}
      </section>

      <section aria-labelledby="headers-h">
        <h2 id="headers-h">{t("headers")}</h2>
        <p className="help">{t("headersHelp")}</p>
        {event.headers === null ? (
          <p className="muted" data-testid="headers">
            {t("headersNotRecorded")}
          </p>
        ) : (
          <ul className="header-names" data-testid="headers">
            {event.headers.map((header) => (
              <li key={header.name} className="mono" data-header={header.name}>
                {header.name}
                {header.signature ? (
                  <>
                    {" "}
                    <span className="badge info">{t("signatureHeader")}</span>
                  </>
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="decisions-h">
        <h2 id="decisions-h">{t("decisions")}</h2>
        <p className="help">{t("decisionsHelp")}</p>
        {event.decisionCount > event.decisions.length ? <p className="notice info">{t("decisionsTruncated", { shown: EVENT_DECISION_LIMIT, total: event.decisionCount })}</p> : null}
        <StaticTable testId="event-decisions" rowCount={event.decisions.length} empty={t("none")} columns={[{ label: t("time") }, { label: t("outcome") }, { label: t("httpStatus"), numeric: true }, { label: t("reason") }, { label: t("secretLabel") }, { label: t("source") }]}>
          {event.decisions.map((decision) => (
            <tr key={decision.id} data-outcome={decision.outcome} data-http-status={decision.httpStatus ?? ""}>
              <td className="nowrap">
                <DateTime value={decision.at} />
                {decision.verified ? null : (
                  <>
                    {" "}
                    <span className="badge warn">{t("unverified")}</span>
                  </>
                )}
              </td>
              <td>
                <OutcomeBadge outcome={decision.outcome} />
              </td>
              <td className="num">{decision.httpStatus ?? "—"}</td>
              <td className="wrap" data-testid="reason" data-coded={reasons.coded(decision)}>
                {reasons.describe(decision)}
              </td>
              <td className="mono muted">{decision.secretLabel ?? "—"}</td>
              <td data-source={decision.source}>{isDecisionSource(decision.source) ? sources(decision.source) : decision.source}</td>
            </tr>
          ))}
        </StaticTable>
      </section>

      <section aria-labelledby="ledger-h">
        <h2 id="ledger-h">{t("ledger")}</h2>
        <StaticTable testId="event-ledger" rowCount={event.ledger.length} empty={t("none")} quietEmpty columns={[{ label: t("time") }, { label: t("businessKey") }, { label: t("kind") }, { label: t("amount"), numeric: true }, { label: t("order") }]}>
          {event.ledger.map((entry) => (
            <tr key={entry.id}>
              <td className="nowrap">
                <DateTime value={entry.createdAt} />
              </td>
              <td className="mono breakable">{entry.businessKey}</td>
              <td data-kind={entry.kind}>{reasons.word("ledgerKind", entry.kind)}</td>
              <td className="num">
                <Money minor={entry.amount} currency={entry.currency} signed />
              </td>
              <td className="mono">{entry.orderId}</td>
            </tr>
          ))}
        </StaticTable>
      </section>

      {event.extraCharges.length > 0 ? (
        <section aria-labelledby="extra-h">
          <h2 id="extra-h">{t("extraCharges")}</h2>
          <StaticTable testId="event-extra-charges" rowCount={event.extraCharges.length} empty={t("none")} columns={[{ label: t("time") }, { label: t("payment") }, { label: t("amount"), numeric: true }, { label: t("status") }]}>
            {event.extraCharges.map((extra) => (
              <tr key={extra.id}>
                <td className="nowrap">
                  <DateTime value={extra.createdAt} />
                </td>
                <td className="mono">{extra.paymentId}</td>
                <td className="num">
                  <Money minor={extra.amount} currency={extra.currency} />
                </td>
                <td>
                  <StatusBadge status={extra.status} />
                </td>
              </tr>
            ))}
          </StaticTable>
        </section>
      ) : null}

      <section aria-labelledby="delivery-h">
        <h2 id="delivery-h">{t("delivery")}</h2>
        <p data-testid="event-delivery">{event.delivery ? t("deliveredBy", { order: event.delivery.orderId, payment: event.delivery.paymentId, at: formatDateTime(event.delivery.createdAt, locale) }) : t("noDelivery")}</p>
      </section>

      <section aria-labelledby="dl-h">
        <h2 id="dl-h">{t("deadLetters")}</h2>
        {event.deadLetters.length === 0 ? (
          <p className="muted">{t("none")}</p>
        ) : (
          <ul data-testid="event-dead-letters">
            {event.deadLetters.map((letter) => (
              <li key={letter.id} data-status={letter.status}>
                <StatusBadge status={letter.status} /> <span data-category={letter.category}>{reasons.word("category", letter.category)}</span>: {reasons.describe(letter)} ({t("attempts")}: {letter.attempts})
                {letter.resolution ? <> — {reasons.describe({ reason: letter.resolution, reasonCode: letter.resolutionCode, reasonParams: letter.resolutionParams })}</> : null}{" "}
                <Link href={`/dead-letters?tab=${letter.status === "open" ? "open" : "resolved"}&provider=${encodeURIComponent(event.provider)}`}>{nav("deadLetters")}</Link>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="outbox-h">
        <h2 id="outbox-h">{t("outbox")}</h2>
        <StaticTable testId="event-outbox" rowCount={event.outbox.length} empty={t("none")} quietEmpty columns={[{ label: t("time") }, { label: t("target") }, { label: t("status") }, { label: t("attempts"), numeric: true }]}>
          {event.outbox.map((message) => (
            <tr key={message.id}>
              <td className="nowrap">
                <DateTime value={message.createdAt} />
              </td>
              <td className="breakable">{message.target}</td>
              <td>
                <StatusBadge status={message.status} /> {message.lastStatusCode ? `HTTP ${message.lastStatusCode}` : null}
              </td>
              <td className="num">{message.attempts}</td>
            </tr>
          ))}
        </StaticTable>
      </section>
    </>
  );
}

function Item({ label, children, testId, mono = false }: { label: string; children: React.ReactNode; testId?: string; mono?: boolean }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd data-testid={testId} className={mono ? "mono breakable" : undefined}>
        {children}
      </dd>
    </div>
  );
}
