import Link from "next/link";
import { getTranslations } from "next-intl/server";
import { DateTime, Money } from "@/app/_components/money";
import { actorCan, requireActor } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { listReviewQueue } from "@/lib/review/review-queue";
import { ResolveForm } from "./resolve-form";

export const dynamic = "force-dynamic";

/** Review queue: extra charges and uncertain outbox rows, each resolvable with a note by support. */
export default async function ReviewPage() {
  await requireActor("/review");
  const [queue, canManage, t] = await Promise.all([listReviewQueue(await db()), actorCan("review.manage"), getTranslations("review")]);
  return (
    <>
      <h1>{t("title")}</h1>
      <section aria-labelledby="extra-h">
        <h2 id="extra-h">
          {t("extraCharges")} ({queue.extraCharges.count})
        </h2>
        <p className="help">{t("extraHelp")}</p>
        {queue.extraCharges.count === 0 ? (
          <p className="empty">{t("emptyExtra")}</p>
        ) : (
          <div className="table-wrap">
            <table data-testid="extra-charges">
              <thead>
                <tr>
                  <th scope="col">{t("created")}</th>
                  <th scope="col">{t("order")}</th>
                  <th scope="col">{t("payment")}</th>
                  <th scope="col" className="num">
                    {t("amount")}
                  </th>
                  <th scope="col">{t("event")}</th>
                  <th scope="col">{t("note")}</th>
                  {canManage ? <th scope="col">{t("resolve")}</th> : null}
                </tr>
              </thead>
              <tbody>
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
                      {extra.eventId} <span className="muted">({extra.provider})</span>
                    </td>
                    <td>{extra.note ?? "—"}</td>
                    {canManage ? (
                      <td>
                        <ResolveForm kind="extra_charge" id={extra.id} />
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <section aria-labelledby="outbox-h">
        <h2 id="outbox-h">
          {t("outbox")} ({queue.outbox.count})
        </h2>
        <p className="help">{t("outboxHelp")}</p>
        {queue.outbox.count === 0 ? (
          <p className="empty">{t("emptyOutbox")}</p>
        ) : (
          <div className="table-wrap">
            <table data-testid="uncertain-outbox">
              <thead>
                <tr>
                  <th scope="col">{t("created")}</th>
                  <th scope="col">{t("order")}</th>
                  <th scope="col">{t("target")}</th>
                  <th scope="col" className="num">
                    {t("attempts")}
                  </th>
                  <th scope="col">{t("lastStatus")}</th>
                  <th scope="col">{t("lastError")}</th>
                  {canManage ? <th scope="col">{t("resolve")}</th> : null}
                </tr>
              </thead>
              <tbody>
                {queue.outbox.data.map((message) => (
                  <tr key={message.id}>
                    <td className="nowrap">
                      <DateTime value={message.createdAt} />
                    </td>
                    <td>
                      <Link href={`/orders/${encodeURIComponent(message.orderId)}`} className="mono">
                        {message.orderId}
                      </Link>
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
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}
