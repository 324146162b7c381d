import Link from "next/link";
import { redirect } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { StatusBadge } from "@/app/_components/badges";
import { DateTime } from "@/app/_components/money";
import { serverReasons } from "@/app/_components/server-reasons";
import { FilterInput } from "@/app/_components/filter-fields";
import { StaticTable } from "@/app/_components/static-table";
import { actingOrganizationId, requireActor } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { deadLettersOfEventId, findStoredEvents } from "@/lib/events/event-detail";
import { param, type SearchParams } from "@/lib/lists/paging";

export const dynamic = "force-dynamic";

/**
 * Finds the stored event of a provider's event id (`?eventId=…&provider=…&endpoint=…`), where the
 * decision log, dead letters and the review queue link: one stored event opens at once; several (live
 * and test, two accounts) are listed; none says so, with the id's decisions and dead letters.
 */
export default async function EventLookupPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const actor = await requireActor("/events");
  const params = await searchParams;
  const eventId = param(params, "eventId")?.slice(0, 255);
  const provider = param(params, "provider")?.slice(0, 50);
  const endpoint = param(params, "endpoint")?.slice(0, 63);
  const [t, status] = await Promise.all([getTranslations("event"), getTranslations("orders")]);
  const found = eventId ? await findStoredEvents(await db(), actor.organizationId, { eventId, provider, endpoint }) : undefined;
  if (found?.count === 1) redirect(`/events/${encodeURIComponent(found.data[0].id)}`);
  return (
    <>
      <h1>{t("lookupTitle")}</h1>
      <form method="get" action="/events" className="filters" role="search" aria-label={t("lookupTitle")}>
        <FilterInput id="e-event" name="eventId" label={t("lookupEventId")} value={eventId} maxLength={255} required size={32} />
        <FilterInput id="e-provider" name="provider" label={t("lookupProvider")} value={provider} maxLength={50} />
        <button type="submit">{t("lookupSubmit")}</button>
        <p className="help filters-help">{t("lookupHelp")}</p>
      </form>
      {found && eventId ? found.count === 0 ? <NotStored eventId={eventId} provider={provider} /> : (
        <>
          <p>{t("lookupMany", { count: found.count, eventId })}</p>
          <StaticTable testId="stored-events" rowCount={found.data.length} empty={t("none")} columns={[{ label: t("received") }, { label: t("endpoint") }, { label: t("type") }, { label: status("status") }, { label: t("order") }]}>
            {found.data.map((event) => (
              <tr key={event.id}>
                <td className="nowrap">
                  <Link href={`/events/${encodeURIComponent(event.id)}`} aria-label={t("openEvent", { eventId: event.eventId })}>
                    <DateTime value={event.receivedAt} />
                  </Link>
                </td>
                <td>{t("endpointValue", { endpoint: event.endpoint, mode: event.livemode ? "live" : "test", account: event.account })}</td>
                <td className="mono">{event.type}</td>
                <td>
                  <StatusBadge status={event.status} />
                </td>
                <td className="mono">{event.orderId ?? "—"}</td>
              </tr>
            ))}
          </StaticTable>
        </>
      ) : null}
    </>
  );
}

/** No stored event has the id: where its decisions and dead letters are, since those exist without one. */
async function NotStored({ eventId, provider }: { eventId: string; provider?: string }) {
  const client = await db();
  const [t, reasons, letters] = await Promise.all([
    getTranslations("event"),
    serverReasons(),
    deadLettersOfEventId(client, await actingOrganizationId(), eventId, provider),
  ]);
  return (
    <div className="notice info" data-testid="not-stored">
      <p>
        {t("lookupNone", { eventId })} <Link href={`/decisions?eventId=${encodeURIComponent(eventId)}`}>{t("lookupDecisions")}</Link>.
      </p>
      {letters.length > 0 ? (
        <>
          <p>{t("lookupDeadLetters")}</p>
          <ul>
            {letters.map((letter) => (
              <li key={letter.id}>
                <StatusBadge status={letter.status} /> {reasons.word("category", letter.category)}: {reasons.describe(letter)}
                {letter.orderId ? (
                  <>
                    {" "}
                    (<Link href={`/orders/${encodeURIComponent(letter.orderId)}`}>{letter.orderId}</Link>)
                  </>
                ) : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </div>
  );
}
