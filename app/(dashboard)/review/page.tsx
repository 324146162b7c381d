import Link from "@/app/_components/organization-link";
import { eventLookupHref } from "@/lib/events/event-links";
import { getTranslations } from "next-intl/server";
import { StaticTable } from "@/app/_components/static-table";
import { DateTime, Money } from "@/app/_components/money";
import { actorCan, requireActor } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { listReviewQueue } from "@/lib/review/review-queue";
import { param, type SearchParams } from "@/lib/lists/paging";
import { ResolveForm } from "./resolve-form";

export const dynamic = "force-dynamic";

/** Review queue: extra charges and uncertain outbox rows, each resolvable with a note by support. */
export default async function ReviewPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const actor = await requireActor("/review");
  const [queue, canManage, t, params] = await Promise.all([listReviewQueue(await db(), actor.organizationId), actorCan("review.manage"), getTranslations("review"), searchParams]);
  // After a resolve the item leaves the table: this says it was done (the action redirects here with ?resolved=).
  const resolved = param(params, "resolved");
  return (
    <>
      <h1>{t("title")}</h1>
      <div role="status" aria-live="polite" data-testid="review-result">
        {resolved === "extra_charge" || resolved === "outbox" ? <p className="notice ok">{t("resolvedKind", { kind: resolved })}</p> : null}
      </div>
      <section aria-labelledby="extra-h">
        <h2 id="extra-h">
          {t("extraCharges")} ({queue.extraCharges.count})
        </h2>
        <p className="help">{t("extraHelp")}</p>
        <StaticTable testId="extra-charges" rowCount={queue.extraCharges.count} empty={t("emptyExtra")} columns={[{ label: t("created") }, { label: t("order") }, { label: t("payment") }, { label: t("amount"), numeric: true }, { label: t("event") }, { label: t("note") }, canManage ? { label: t("resolve") } : null]}>
          {queue.extraCharges.data.map((extra) => (
            <tr key={extra.id}>
              <td className="nowrap">
                <DateTime value={extra.createdAt} />
              </td>
              <td>
                <Link href={`/orders/${encodeURIComponent(extra.orderId)}`} className="mono">
                  {extra.orderId}
                </Link>
              </td>
              <td className="mono">{extra.paymentKey}</td>
              <td className="num">
                <Money minor={extra.amount} currency={extra.currency} />
              </td>
              <td className="mono">
                <Link href={eventLookupHref({ eventId: extra.eventId, provider: extra.provider })} data-testid="event-link">
                  {extra.eventId}
                </Link>{" "}
                <span className="muted">({extra.provider})</span>
              </td>
              <td>{extra.note ?? "—"}</td>
              {canManage ? (
                <td>
                  <ResolveForm kind="extra_charge" id={extra.id} />
                </td>
              ) : null}
            </tr>
          ))}
        </StaticTable>
      </section>
      <section aria-labelledby="outbox-h">
        <h2 id="outbox-h">
          {t("outbox")} ({queue.outbox.count})
        </h2>
        <p className="help">{t("outboxHelp")}</p>
        <StaticTable testId="uncertain-outbox" rowCount={queue.outbox.count} empty={t("emptyOutbox")} columns={[{ label: t("created") }, { label: t("order") }, { label: t("target") }, { label: t("attempts"), numeric: true }, { label: t("lastStatus") }, { label: t("lastError") }, canManage ? { label: t("resolve") } : null]}>
          {queue.outbox.data.map((message) => (
            <tr key={message.id}>
              <td className="nowrap">
                <DateTime value={message.createdAt} />
              </td>
              <td>
                {/* An alert's notice (lib/alerts) belongs to no order: its idempotency key names the incident and channel. */}
                {message.orderId === "" ? (
                  <span className="mono">{message.idempotencyKey}</span>
                ) : (
                  <Link href={`/orders/${encodeURIComponent(message.orderId)}`} className="mono">
                    {message.orderId}
                  </Link>
                )}
              </td>
              <td className="mono">{message.target}</td>
              <td className="num">{message.attempts}</td>
              <td>{message.lastStatusCode ?? "—"}</td>
              <td className="wrap">{message.lastError ?? "—"}</td>
              {canManage ? (
                <td>
                  <ResolveForm kind="outbox" id={message.id} />
                </td>
              ) : null}
            </tr>
          ))}
        </StaticTable>
      </section>
    </>
  );
}
