import Link from "next/link";
import { getLocale, getTranslations } from "next-intl/server";
import { DateTime } from "@/app/_components/money";
import { Pager } from "@/app/_components/pager";
import { actorCan, requireActor } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { formatMoney } from "@/lib/format/format";
import { pagingFromParams, type SearchParams } from "@/lib/lists/paging";
import { listRunsPage } from "@/lib/reconciliation/list-runs";
import { UploadForm } from "./upload-form";

export const dynamic = "force-dynamic";

/** Reconciliation: upload a settlement CSV and run it; past runs with their mismatch counts and totals. */
export default async function ReconciliationPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  await requireActor("/reconciliation");
  const paging = pagingFromParams(await searchParams);
  const [runs, canRun, t, locale] = await Promise.all([listRunsPage(await db(), paging), actorCan("reconciliation.run"), getTranslations("reconciliation"), getLocale()]);
  return (
    <>
      <h1>{t("title")}</h1>
      {canRun ? (
        <section>
          <h2 id="upload-h">{t("upload")}</h2>
          <UploadForm />
        </section>
      ) : null}
      <section aria-labelledby="runs-h">
        <h2 id="runs-h">{t("pastRuns")}</h2>
        {runs.count === 0 ? (
          <p className="empty">{t("empty")}</p>
        ) : (
          <>
            <div className="table-wrap">
              <table data-testid="runs-table">
                <thead>
                  <tr>
                    <th scope="col">{t("startedAt")}</th>
                    <th scope="col">{t("sourceCol")}</th>
                    <th scope="col" className="num">
                      {t("rows")}
                    </th>
                    <th scope="col" className="num">
                      {t("orders")}
                    </th>
                    <th scope="col" className="num">
                      {t("mismatches")}
                    </th>
                    <th scope="col" className="num">
                      {t("overcredited")}
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {runs.data.map((run) => (
                    <tr key={run.id} data-run-id={run.id}>
                      <td className="nowrap">
                        <Link href={`/reconciliation/${run.id}`}>
                          <DateTime value={run.startedAt} />
                        </Link>
                      </td>
                      <td>{run.source}</td>
                      <td className="num">{run.rowCount}</td>
                      <td className="num">{run.orderCount}</td>
                      <td className="num">{run.mismatchCount > 0 ? <span className="diff-bad">{run.mismatchCount}</span> : 0}</td>
                      <td className="num">
                        {Object.entries(run.overcredited)
                          .filter(([, amount]) => amount > 0)
                          .map(([currency, amount]) => formatMoney(amount, currency, locale))
                          .join(" · ") || "0"}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager path="/reconciliation" params={{}} page={runs.page} totalPages={runs.totalPages} count={runs.count} />
          </>
        )}
      </section>
    </>
  );
}
