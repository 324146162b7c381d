import Link from "next/link";
import { forbidden } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { DateTime } from "@/app/_components/money";
import { serverReasons } from "@/app/_components/server-reasons";
import { StaticTable } from "@/app/_components/static-table";
import { can } from "@/lib/auth/roles";
import { requireActor } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { endpointDefinitions } from "@/lib/endpoints/endpoints";
import { param, type SearchParams } from "@/lib/lists/paging";
import { REPLAYABLE_STATUSES } from "@/lib/replay/replay-filter";
import { listReplays } from "@/lib/replay/replay-store";
import { ReplayForm } from "./replay-form";
import { FilterSummary, ReplayStatusBadge } from "./replay-parts";

export const dynamic = "force-dynamic";

/** Reason codes a person most often replays by, offered in the form (any code is accepted). */
const COMMON_REASONS = ["unknown_order", "unknown_checkout_session", "no_transition", "refund_not_credited", "waiting_for_credit", "waiting_for_payment", "demo_secret"];

/**
 * Replays (support and admin, `dead_letters.manage`): the filter form (preview a replay, or count the
 * open dead letters it names and retry them), prefilled from the URL; the latest replays.
 */
export default async function ReplaysPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const actor = await requireActor("/replays");
  if (!can(actor.role, "dead_letters.manage")) forbidden();
  const [params, t, status, reasons] = await Promise.all([searchParams, getTranslations("replays"), getTranslations("status"), serverReasons()]);
  const initial: Record<string, string> = {};
  for (const name of ["eventIds", "endpoint", "type", "status", "reason", "orderId"]) {
    const value = param(params, name);
    if (value) initial[name] = value.slice(0, 2000);
  }
  for (const name of ["from", "to"]) {
    const value = param(params, name);
    const at = value ? new Date(/[zZ]|[+-]\d\d:\d\d$/.test(value) ? value : `${value}Z`) : undefined;
    if (at && !Number.isNaN(at.getTime())) initial[name] = at.toISOString().slice(0, 16);
  }
  const replays = await listReplays(await db(), actor.organizationId, 20);
  return (
    <>
      <h1>{t("title")}</h1>
      <p className="help">{t("intro")}</p>
      <section aria-labelledby="replay-filter-h">
        <h2 id="replay-filter-h">{t("filterTitle")}</h2>
        <p className="help">{t("filterHelp")}</p>
        <ReplayForm
          endpoints={endpointDefinitions().map((endpoint) => endpoint.name)}
          statuses={REPLAYABLE_STATUSES.map((value) => ({ value, label: status(value) }))}
          reasonCodes={COMMON_REASONS}
          initial={initial}
        />
      </section>
      <section aria-labelledby="replays-h">
        <h2 id="replays-h">{t("recent")}</h2>
        <StaticTable testId="replays" rowCount={replays.length} empty={t("emptyRecent")} columns={[{ label: t("createdAt") }, { label: t("createdBy") }, { label: t("filter") }, { label: t("events"), numeric: true }, { label: t("orders"), numeric: true }, { label: t("state") }]}>
          {replays.map((replay) => (
            <tr key={replay.id} data-replay-id={replay.id}>
              <td className="nowrap">
                <Link href={`/replays/${replay.id}`}>
                  <DateTime value={replay.createdAt} />
                </Link>
              </td>
              <td>{reasons.actor(replay.createdBy)}</td>
              <td className="wrap">
                <FilterSummary filter={replay.filter} />
              </td>
              <td className="num">{replay.eventCount}</td>
              <td className="num">{replay.orderCount}</td>
              <td>
                <ReplayStatusBadge status={replay.status} />
              </td>
            </tr>
          ))}
        </StaticTable>
      </section>
      <p>
        <Link href="/books">{t("booksLink")}</Link>
      </p>
    </>
  );
}
