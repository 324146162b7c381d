import { BreakAfter } from "@/app/_components/break-after";
import { serverReasons } from "@/app/_components/server-reasons";
import Link from "@/app/_components/organization-link";
import { getLocale, getTranslations } from "next-intl/server";
import { DateTime } from "@/app/_components/money";
import { Pager } from "@/app/_components/pager";
import { actorCan, requireActor } from "@/lib/auth/session";
import { settings } from "@/lib/config/settings";
import { db } from "@/lib/db/client";
import { formatCount } from "@/lib/format/format";
import { pagingFromParams, type SearchParams } from "@/lib/lists/paging";
import { listRunsPage } from "@/lib/reconciliation/list-runs";
import { configuredScopes } from "@/lib/reconciliation/run-scope";
import { runShare } from "@/lib/reconciliation/run-share";
import type { RunOrigin } from "@/lib/reconciliation/runs";
import { RunStatus } from "./run-status";
import { UploadForm } from "./upload-form";

export const dynamic = "force-dynamic";

/** How a run's report came, as the runs list names it (lib/reconciliation/runs.ts, RunOrigin). */
const ORIGIN_LABELS = { upload: "originUpload", cli: "originCli", scheduled: "originScheduled" } as const satisfies Record<RunOrigin, string>;

/** Reconciliation: upload a settlement report (queued, run in the background); the runs with scope, period, status, progress and actor. */
export default async function ReconciliationPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const actor = await requireActor("/reconciliation");
  const paging = pagingFromParams(await searchParams);
  const [runs, canRun, t, locale, reasons] = await Promise.all([listRunsPage(await db(), actor.organizationId, paging), actorCan("reconciliation.run"), getTranslations("reconciliation"), getLocale(), serverReasons()]);
  return (
    <>
      <h1>{t("title")}</h1>
      {canRun ? (
        <section>
          <h2 id="upload-h">{t("upload")}</h2>
          <UploadForm maxBytes={settings().RECONCILIATION_UPLOAD_MAX_BYTES} scopes={configuredScopes()} />
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
                    <th scope="col">{t("scope")}</th>
                    <th scope="col">{t("period")}</th>
                    <th scope="col">{t("status")}</th>
                    <th scope="col" className="num">
                      {t("progress")}
                    </th>
                    <th scope="col" className="num">
                      {t("mismatches")}
                    </th>
                    <th scope="col">{t("actor")}</th>
                  </tr>
                </thead>
                <tbody>
                  {runs.data.map((run) => {
                    const share = runShare(run);
                    return (
                      <tr key={run.id} data-run-id={run.id}>
                        <td className="nowrap">
                          <Link href={`/reconciliation/${run.id}`}>
                            <DateTime value={run.startedAt} />
                          </Link>
                        </td>
                        <td data-testid="run-source">
                          <BreakAfter text={run.source} />{" "}
                          <span className="muted" data-testid="run-origin" data-origin={run.origin}>
                            ({t(ORIGIN_LABELS[run.origin as RunOrigin] ?? "originUpload")})
                          </span>
                        </td>
                        <td className="mono">
                          <BreakAfter text={run.scope} />
                        </td>
                        <td>
                          {run.periodFrom && run.periodTo ? (
                            <>
                              <span className="nowrap">
                                <DateTime value={run.periodFrom} />
                              </span>{" "}
                              –{" "}
                              <span className="nowrap">
                                <DateTime value={run.periodTo} />
                              </span>
                            </>
                          ) : (
                            <span className="muted">{t("noPeriod")}</span>
                          )}
                        </td>
                        <td>
                          <RunStatus status={run.status} />
                        </td>
                        <td className="num">
                          {formatCount(run.rowCount, locale)}
                          {share !== undefined && run.status !== "done" ? ` (${share}%)` : ""}
                        </td>
                        <td className="num">{run.mismatchCount > 0 ? <span className="diff-bad">{formatCount(run.mismatchCount, locale)}</span> : 0}</td>
                        <td>
                          <BreakAfter text={reasons.actor(run.actor)} />
                        </td>
                      </tr>
                    );
                  })}
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
