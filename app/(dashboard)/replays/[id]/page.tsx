import Link from "next/link";
import { forbidden, notFound } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { DateTime, Money } from "@/app/_components/money";
import { serverReasons } from "@/app/_components/server-reasons";
import { StaticTable } from "@/app/_components/static-table";
import { can } from "@/lib/auth/roles";
import { requireActor } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { filterFormValues } from "@/lib/replay/replay-filter";
import { readReplay, type ReplayEventView } from "@/lib/replay/replay-store";
import { ApplyArea } from "../apply-area";
import { FilterSummary, OrderState, ReplayOutcomeBadge, ReplayStatusBadge } from "../replay-parts";

export const dynamic = "force-dynamic";

/**
 * One replay: its filter and status, each event with what replaying it does (or did, once applied), and
 * each order before and after with the ledger entries and the money per currency; support and admin
 * apply it from here. A difference of money is never shown in raw minor units.
 */
export default async function ReplayPage({ params }: { params: Promise<{ id: string }> }) {
  const { id: rawId } = await params;
  const id = decodeURIComponent(rawId).slice(0, 100);
  const actor = await requireActor(`/replays/${encodeURIComponent(id)}`);
  if (!can(actor.role, "dead_letters.manage")) forbidden();
  const stored = await readReplay(await db(), actor.organizationId, id);
  if (!stored) notFound();
  const [t, list, status, reasons] = await Promise.all([getTranslations("replay"), getTranslations("replays"), getTranslations("status"), serverReasons()]);
  const replay = stored.view;
  const previewAgain = `/replays?${new URLSearchParams(filterFormValues(replay.filter))}`;
  const events = replay.applied ?? replay.events;
  return (
    <>
      <p>
        <Link href="/replays">← {list("title")}</Link>
      </p>
      <h1>{t("title")}</h1>
      <dl className="summary" aria-label={t("summary")} data-testid="replay-summary">
        <div>
          <dt>{t("status")}</dt>
          <dd data-testid="replay-status">
            <ReplayStatusBadge status={replay.status} />
          </dd>
        </div>
        <div>
          <dt>{t("createdBy")}</dt>
          <dd>
            {reasons.actor(replay.createdBy)} · <DateTime value={replay.createdAt} />
          </dd>
        </div>
        {replay.appliedAt ? (
          <div>
            <dt>{t("appliedBy")}</dt>
            <dd data-testid="replay-applied-by">
              {replay.appliedBy ? reasons.actor(replay.appliedBy) : "—"} · <DateTime value={replay.appliedAt} />
            </dd>
          </div>
        ) : null}
        <div>
          <dt>{t("filter")}</dt>
          <dd>
            <FilterSummary filter={replay.filter} />
          </dd>
        </div>
      </dl>

      <ApplyArea id={replay.id} status={replay.status} previewAgain={previewAgain} done={t("appliedNotice", { applied: events.filter((event) => event.outcome === "applied").length, events: events.length })} />

      <section aria-labelledby="orders-h">
        <h2 id="orders-h">{replay.status === "applied" ? t("ordersDone") : t("orders")}</h2>
        <p className="help">{t("ordersHelp")}</p>
        <StaticTable testId="replay-orders" rowCount={replay.orders.length} empty={t("noOrders")} columns={[{ label: t("order") }, { label: t("before") }, { label: t("after") }, { label: t("entries") }, { label: t("delta"), numeric: true }]}>
          {replay.orders.map((order) => {
            const currency = order.ledger[0]?.currency ?? Object.keys(order.delta)[0] ?? "ARS";
            const deltas = Object.entries(order.delta);
            return (
              <tr key={order.orderId} data-order-id={order.orderId}>
                <td>
                  <Link href={`/orders/${encodeURIComponent(order.orderId)}`} className="mono">
                    {order.orderId}
                  </Link>
                </td>
                <td data-testid="before">
                  <OrderState state={order.before} currency={currency} />
                </td>
                <td data-testid="after">
                  <OrderState state={order.after} currency={currency} />
                </td>
                <td className="wrap" data-testid="entries">
                  {order.ledger.length === 0 ? (
                    <span className="muted">{t("noEntries")}</span>
                  ) : (
                    <ul className="compact-list">
                      {order.ledger.map((line) => (
                        <li key={line.businessKey}>
                          {reasons.word("ledgerKind", line.kind)} <Money minor={line.amount} currency={line.currency} signed /> <span className="mono muted">{line.businessKey}</span>
                        </li>
                      ))}
                    </ul>
                  )}
                </td>
                <td className="num" data-testid="delta">
                  {deltas.length === 0 ? (
                    <span className="muted">{t("noDelta")}</span>
                  ) : (
                    deltas.map(([code, amount]) => (
                      <div key={code} className={amount < 0 ? "diff-bad" : "diff-good"}>
                        <Money minor={amount} currency={code} signed />
                      </div>
                    ))
                  )}
                </td>
              </tr>
            );
          })}
        </StaticTable>
      </section>

      <section aria-labelledby="events-h">
        <h2 id="events-h">{replay.status === "applied" ? t("eventsDone") : t("events")}</h2>
        <p className="help">{t("eventsHelp")}</p>
        <StaticTable testId="replay-events" rowCount={events.length} empty={t("noEvents")} columns={[{ label: "#", numeric: true }, { label: t("event") }, { label: t("type") }, { label: t("eventStatus") }, { label: replay.status === "applied" ? t("did") : t("wouldDo") }, { label: t("reason") }, { label: t("order") }]}>
          {events.map((event: ReplayEventView) => (
            <tr key={event.position} data-event-id={event.eventId} data-outcome={event.outcome}>
              <td className="num">{event.position + 1}</td>
              <td className="mono">
                {event.eventId} <span className="muted">({event.endpoint})</span>
              </td>
              <td className="mono">{event.type}</td>
              <td data-status={event.status}>{status.has(event.status) ? status(event.status) : event.status}</td>
              <td>
                <ReplayOutcomeBadge outcome={event.outcome} />
              </td>
              <td className="wrap" data-testid="reason">
                {reasons.render(event.reasonRef, event.reason)}
              </td>
              <td>
                {event.orderId ? (
                  <Link href={`/orders/${encodeURIComponent(event.orderId)}`} className="mono">
                    {event.orderId}
                  </Link>
                ) : (
                  "—"
                )}
              </td>
            </tr>
          ))}
        </StaticTable>
      </section>
    </>
  );
}
