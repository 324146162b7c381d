import Link from "next/link";
import { Suspense } from "react";
import { getTranslations } from "next-intl/server";
import { FilterSelect, verbatimOptions } from "@/app/_components/filter-fields";
import { Pager } from "@/app/_components/pager";
import { serverReasons } from "@/app/_components/server-reasons";
import { actingOrganizationId, actorCan, requireActor } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { deadLetterFilterOptions, deadLetterFilterParams, deadLetterQueryFromParams, listDeadLettersPage, UNASSIGNED, type DeadLetterQuery } from "@/lib/dead-letters/list-dead-letters";
import { deadLetterAssignees } from "@/lib/triage/manage-dead-letters";
import { toQueryString, type SearchParams } from "@/lib/lists/paging";
import { REASON_CODES } from "@/lib/reasons/reason-codes";
import { DeadLettersTable } from "./dead-letters-table";

export const dynamic = "force-dynamic";

/**
 * Dead letters: open and resolved tabs, filtered by reason, provider and owner in the URL (kept across
 * tabs and pages); support and admin see the retry, assign and resolve controls.
 */
export default async function DeadLettersPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const viewer = await requireActor("/dead-letters");
  const query = deadLetterQueryFromParams(await searchParams);
  const [t, common, reasons, options, canReplay] = await Promise.all([getTranslations("deadLetters"), getTranslations("common"), serverReasons(), deadLetterFilterOptions(await db(), viewer.organizationId, query.status), actorCan("dead_letters.manage")]);
  const filters = { category: query.category, provider: query.provider, owner: query.owner };
  const filtered = Object.values(filters).some(Boolean);
  // A filter value the tab's rows no longer hold (a shared link) stays selectable, so the form shows what the list applies.
  const withCurrent = (values: string[], current: string | undefined) => (current && !values.includes(current) ? [...values, current] : values);
  return (
    <>
      <h1>{t("title")}</h1>
      {canReplay ? (
        <p>
          <Link href={`/replays${toQueryString({ reason: query.category && (REASON_CODES as string[]).includes(query.category) ? query.category : undefined })}`} data-testid="replay-link">
            {t("replayLink")}
          </Link>
        </p>
      ) : null}
      <nav aria-label={t("tabs")}>
        <ul className="tabs">
          <li>
            <Link href={`/dead-letters${toQueryString(filters)}`} aria-current={query.status === "open" ? "page" : undefined}>
              {t("open")}
            </Link>
          </li>
          <li>
            <Link href={`/dead-letters${toQueryString({ tab: "resolved", ...filters })}`} aria-current={query.status === "resolved" ? "page" : undefined}>
              {t("resolved")}
            </Link>
          </li>
        </ul>
      </nav>
      <form method="get" action="/dead-letters" className="filters" role="search" aria-label={t("filters")}>
        {query.status === "resolved" ? <input type="hidden" name="tab" value="resolved" /> : null}
        <FilterSelect
          id="dl-category"
          name="category"
          label={t("reason")}
          anyLabel={common("any")}
          value={query.category}
          options={withCurrent(options.categories, query.category).map((category) => ({ value: category, label: reasons.word("category", category) }))}
        />
        <FilterSelect id="dl-provider" name="provider" label={t("provider")} anyLabel={common("any")} value={query.provider} options={verbatimOptions(withCurrent(options.providers, query.provider))} />
        <FilterSelect
          id="dl-owner"
          name="owner"
          label={t("owner")}
          anyLabel={common("any")}
          value={query.owner}
          options={[{ value: UNASSIGNED, label: t("unassigned") }, ...verbatimOptions(withCurrent(options.owners, query.owner === UNASSIGNED ? undefined : query.owner))]}
        />
        <button type="submit">{common("filter")}</button>
        <Link href={query.status === "resolved" ? "/dead-letters?tab=resolved" : "/dead-letters"} className="button secondary">
          {common("clear")}
        </Link>
      </form>
      <Suspense key={JSON.stringify(query)} fallback={<p role="status">{common("loading")}</p>}>
        <DeadLetterResults query={query} viewer={viewer.email} filtered={filtered} />
      </Suspense>
    </>
  );
}

async function DeadLetterResults({ query, viewer, filtered }: { query: DeadLetterQuery; viewer: string; filtered: boolean }) {
  const organizationId = await actingOrganizationId();
  const [page, canManage, t, common] = await Promise.all([listDeadLettersPage(await db(), organizationId, query), actorCan("dead_letters.manage"), getTranslations("deadLetters"), getTranslations("common")]);
  const assignees = canManage ? await deadLetterAssignees(await db(), organizationId) : [];
  const emptyText = filtered ? common("noMatch") : query.status === "open" ? t("emptyOpen") : t("emptyResolved");
  // The table stays mounted when the last row leaves, so the answer to that retry is still shown.
  return (
    <>
      <DeadLettersTable viewer={viewer} rows={page.data} tab={query.status} canManage={canManage} assignees={assignees} now={new Date().toISOString()} emptyText={emptyText} />
      {page.count > 0 ? <Pager path="/dead-letters" params={deadLetterFilterParams(query)} page={page.page} totalPages={page.totalPages} count={page.count} /> : null}
    </>
  );
}
