import Link from "next/link";
import { notFound } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { StatusBadge } from "@/app/_components/badges";
import { DateTime, Money } from "@/app/_components/money";
import { Pager } from "@/app/_components/pager";
import { requireActor } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { pagingFromParams, type SearchParams } from "@/lib/lists/paging";
import { getRunWithMismatches } from "@/lib/reconciliation/list-runs";

export const dynamic = "force-dynamic";

/** One reconciliation run: totals per currency and each mismatch, linked to the order's timeline. */
export default async function RunPage({ params, searchParams }: { params: Promise<{ runId: string }>; searchParams: Promise<SearchParams> }) {
  const { runId } = await params;
  await requireActor(`/reconciliation/${encodeURIComponent(runId)}`);
  const found = await getRunWithMismatches(await db(), runId, pagingFromParams(await searchParams));
  if (!found) notFound();
  const { run, mismatches } = found;
  const [t, nav] = await Promise.all([getTranslations("reconciliation"), getTranslations("nav")]);
  return (
    <>
      <p>
        <Link href="/reconciliation">← {nav("reconciliation")}</Link>
      </p>
      <h1>{t("run_title", { id: run.id })}</h1>
      <dl className="summary">
        <div>
          <dt>{t("startedAt")}</dt>
          <dd>
            <DateTime value={run.startedAt} />
          </dd>
        </div>
        <div>
          <dt>{t("sourceCol")}</dt>
          <dd>{run.source}</dd>
        </div>
        <div>
          <dt>{t("rows")}</dt>
          <dd>{run.rowCount}</dd>
        </div>
        <div>
          <dt>{t("orders")}</dt>
          <dd>{run.orderCount}</dd>
        </div>
        <div>
          <dt>{t("mismatches")}</dt>
          <dd data-testid="mismatch-count">{run.mismatchCount}</dd>
        </div>
      </dl>
      <section aria-labelledby="totals-h">
        <h2 id="totals-h">{t("totals")}</h2>
        <ul data-testid="overcredited-totals">
          {Object.entries(run.overcredited).map(([currency, amount]) => (
            <li key={currency} data-currency={currency}>
              {currency}: <Money minor={amount} currency={currency} />
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby="mismatches-h">
        <h2 id="mismatches-h">{t("mismatches")}</h2>
        {mismatches.count === 0 ? (
          <p className="notice ok">{t("noMismatches")}</p>
        ) : (
          <>
            <div className="table-wrap">
              <table data-testid="mismatches-table">
                <thead>
                  <tr>
                    <th scope="col">{t("order")}</th>
                    <th scope="col">{t("providerStatus")}</th>
                    <th scope="col">{t("expected")}</th>
                    <th scope="col">{t("found")}</th>
                    <th scope="col" className="num">
                      {t("overcredited")}
                    </th>
                    <th scope="col">{t("reason")}</th>
                  </tr>
                </thead>
                <tbody>
                  {mismatches.data.map((mismatch) => (
                    <tr key={mismatch.id} data-order-id={mismatch.orderId}>
                      <td>
                        <Link href={`/orders/${encodeURIComponent(mismatch.orderId)}`} className="mono">
                          {mismatch.orderId}
                        </Link>{" "}
                        <span className="muted">({t("viewTimeline")})</span>
                      </td>
                      <td>{mismatch.providerStatus}</td>
                      <td>
                        <StatusBadge status={mismatch.expectedStatus} /> <Money minor={mismatch.expectedCredited} currency={mismatch.currency} />
                      </td>
                      <td>
                        <StatusBadge status={mismatch.foundStatus} /> <Money minor={mismatch.foundCredited} currency={mismatch.currency} />
                      </td>
                      <td className="num">
                        <Money minor={mismatch.overcredited} currency={mismatch.currency} />
                      </td>
                      <td className="wrap">{mismatch.reason}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager path={`/reconciliation/${run.id}`} params={{}} page={mismatches.page} totalPages={mismatches.totalPages} count={mismatches.count} />
          </>
        )}
      </section>
    </>
  );
}
