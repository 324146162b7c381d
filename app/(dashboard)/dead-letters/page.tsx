import Link from "next/link";
import { Suspense } from "react";
import { getTranslations } from "next-intl/server";
import { Pager } from "@/app/_components/pager";
import { actorCan, requireActor } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { deadLetterQueryFromParams, listDeadLettersPage, type DeadLetterQuery } from "@/lib/dead-letters/list-dead-letters";
import type { SearchParams } from "@/lib/lists/paging";
import { DeadLettersTable } from "./dead-letters-table";

export const dynamic = "force-dynamic";

/** Dead letters: open and resolved tabs; support and admin see the retry, assign and resolve controls. */
export default async function DeadLettersPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const viewer = await requireActor("/dead-letters");
  const query = deadLetterQueryFromParams(await searchParams);
  const [t, common] = await Promise.all([getTranslations("deadLetters"), getTranslations("common")]);
  return (
    <>
      <h1>{t("title")}</h1>
      <nav aria-label={t("tabs")}>
        <ul className="tabs">
          <li>
            <Link href="/dead-letters" aria-current={query.status === "open" ? "page" : undefined}>
              {t("open")}
            </Link>
          </li>
          <li>
            <Link href="/dead-letters?tab=resolved" aria-current={query.status === "resolved" ? "page" : undefined}>
              {t("resolved")}
            </Link>
          </li>
        </ul>
      </nav>
      <Suspense key={JSON.stringify(query)} fallback={<p role="status">{common("loading")}</p>}>
        <DeadLetterResults query={query} viewer={viewer.email} />
      </Suspense>
    </>
  );
}

async function DeadLetterResults({ query, viewer }: { query: DeadLetterQuery; viewer: string }) {
  const [page, canManage, t] = await Promise.all([listDeadLettersPage(await db(), query), actorCan("dead_letters.manage"), getTranslations("deadLetters")]);
  // The table stays mounted when the last row leaves, so the answer to that retry is still shown.
  return (
    <>
      <DeadLettersTable viewer={viewer} rows={page.data} tab={query.status} canManage={canManage} now={new Date().toISOString()} emptyText={query.status === "open" ? t("emptyOpen") : t("emptyResolved")} />
      {page.count > 0 ? <Pager path="/dead-letters" params={{ tab: query.status === "resolved" ? "resolved" : undefined }} page={page.page} totalPages={page.totalPages} count={page.count} /> : null}
    </>
  );
}
