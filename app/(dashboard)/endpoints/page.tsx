import { forbidden } from "next/navigation";
import { getLocale, getTranslations } from "next-intl/server";
import { DateTime } from "@/app/_components/money";
import { can } from "@/lib/auth/roles";
import { requireActor } from "@/lib/auth/session";
import { settings } from "@/lib/config/settings";
import { db } from "@/lib/db/client";
import { endpointsHealth, HEALTH_OUTCOMES, type EndpointHealth, type SecretStatus } from "@/lib/endpoints/endpoint-health";
import { formatAge } from "@/lib/format/format";
import { EndpointChart, OUTCOME_COLOURS } from "./endpoint-chart";
import { BreakAfter } from "@/app/_components/break-after";

export const dynamic = "force-dynamic";

const STATE_TONE: Record<EndpointHealth["state"], string> = { enabled: "ok", disabled: "neutral", misconfigured: "bad" };
const SECRET_TONE: Record<SecretStatus, string> = { in_use: "ok", safe_to_retire: "info", no_match_yet: "neutral", public_demo: "bad", still_tried: "warn", not_tried: "neutral" };

/**
 * Endpoints (support and admin, permission `endpoints.read`): per endpoint its configuration, last
 * delivery, decisions by outcome over 24 h and 7 days with a small chart, pending inbox events and the
 * rotation status of each secret label. Only labels and variable names: no secret value reaches the page.
 */
export default async function EndpointsPage() {
  const actor = await requireActor("/endpoints");
  const [t, common, outcomes, locale] = await Promise.all([getTranslations("endpoints"), getTranslations("common"), getTranslations("outcome"), getLocale()]);
  if (!can(actor.role, "endpoints.read")) forbidden();
  const health = await endpointsHealth(await db());
  const now = new Date(health.generatedAt).getTime();
  const age = (iso: string) => formatAge((now - new Date(iso).getTime()) / 1000, locale);
  const day = new Intl.DateTimeFormat(locale, { day: "numeric", month: "short", timeZone: "UTC" });
  const dayOfMonth = new Intl.DateTimeFormat(locale, { day: "numeric", timeZone: "UTC" });

  return (
    <>
      <h1>{t("title")}</h1>
      <p className="help">
        {t("intro")} {t("retention", { days: settings().DECISION_RETENTION_DAYS })} {common("utc")}
      </p>
      <div className="endpoint-list">
        {health.endpoints.map((endpoint) => {
          const shown = HEALTH_OUTCOMES.filter((outcome) => endpoint.last7d[outcome] > 0);
          const total = (counts: EndpointHealth["last7d"]) => HEALTH_OUTCOMES.reduce((sum, outcome) => sum + counts[outcome], 0);
          // A slice is the 24 h ending at its `end`: named after the UTC day that end falls in.
          const sliceDay = (slice: EndpointHealth["slices"][number]) => new Date(new Date(slice.end).getTime() - 1);
          const chartLabel = t("chartLabel", { endpoint: endpoint.name, values: endpoint.slices.map((slice) => t("chartDay", { day: day.format(sliceDay(slice)), count: slice.total })).join(", ") });
          const quiet = endpoint.state !== "enabled" && shown.length === 0 && endpoint.lastDelivery === null && endpoint.pending.count === 0;
          return (
            <section key={endpoint.name} className="endpoint-card" data-testid="endpoint" data-endpoint={endpoint.name} data-state={endpoint.state} aria-labelledby={`ep-${endpoint.name}`}>
              <h2 id={`ep-${endpoint.name}`}>
                <span className="mono">{endpoint.name}</span> <span className={`badge ${STATE_TONE[endpoint.state]}`}>{t("state", { state: endpoint.state })}</span>{" "}
                <span className={`badge ${endpoint.livemode ? "info" : "neutral"}`}>{t("livemode", { live: String(endpoint.livemode) })}</span> <span className="badge neutral">{t("mode", { mode: endpoint.mode })}</span>
              </h2>
              {endpoint.publicDemoSecret ? (
                <p className="notice bad" role="alert" data-testid="public-demo">
                  {t("publicDemo")}
                </p>
              ) : null}
              {endpoint.state === "disabled" ? (
                <p className="muted" data-testid="state-detail">
                  {t("disabledDetail", { variable: endpoint.secretsEnv })}
                </p>
              ) : endpoint.stateDetail ? (
                // A configuration issue as the start command prints it: variable and label names, never a value.
                <p className="muted mono wrap" data-testid="state-detail">
                  {endpoint.stateDetail}
                </p>
              ) : null}
              <div className="endpoint-body">
                <dl className="facts">
                  <dt>{t("url")}</dt>
                  <dd className="mono">
                    <BreakAfter text={`POST /api/webhooks/${endpoint.name}`} />
                  </dd>
                  <dt>{t("provider")}</dt>
                  <dd>{endpoint.provider}</dd>
                  <dt>{t("account")}</dt>
                  <dd className="mono">{endpoint.account}</dd>
                  <dt>{t("lastDelivery")}</dt>
                  <dd data-testid="last-delivery">
                    {endpoint.lastDelivery ? (
                      <>
                        {t("lastDeliveryValue", { age: age(endpoint.lastDelivery.at), outcome: outcomes(endpoint.lastDelivery.outcome), status: endpoint.lastDelivery.httpStatus === null ? "none" : String(endpoint.lastDelivery.httpStatus) })}
                        {endpoint.lastDelivery.verified ? null : <span className="muted"> · {t("unverified")}</span>} <DateTime value={endpoint.lastDelivery.at} />
                      </>
                    ) : (
                      <span className="muted">{t("never")}</span>
                    )}
                  </dd>
                  <dt>{t("pending")}</dt>
                  <dd data-testid="pending">{t("pendingValue", { count: endpoint.pending.count, age: endpoint.pending.oldestReceivedAt ? age(endpoint.pending.oldestReceivedAt) : "" })}</dd>
                </dl>
                {quiet ? (
                  <p className="muted" data-testid="no-traffic">
                    {t("noTraffic")}
                  </p>
                ) : (
                  <div className="endpoint-counts">
                    <table className="compact" data-testid="outcome-counts">
                      <caption>{t("counts")}</caption>
                      <thead>
                        <tr>
                          <th scope="col" />
                          <th scope="col" className="num">
                            {t("window24h")}
                          </th>
                          <th scope="col" className="num">
                            {t("window7d")}
                          </th>
                        </tr>
                      </thead>
                      <tbody>
                        {shown.map((outcome) => (
                          <tr key={outcome} data-outcome={outcome}>
                            <th scope="row">{outcomes(outcome)}</th>
                            <td className="num">{endpoint.last24h[outcome]}</td>
                            <td className="num">{endpoint.last7d[outcome]}</td>
                          </tr>
                        ))}
                        <tr data-outcome="total">
                          <th scope="row">{t("total")}</th>
                          <td className="num">{total(endpoint.last24h)}</td>
                          <td className="num">{total(endpoint.last7d)}</td>
                        </tr>
                      </tbody>
                    </table>
                    <figure className="spark-figure">
                      <EndpointChart slices={endpoint.slices} label={chartLabel} dayLabels={endpoint.slices.map((slice) => dayOfMonth.format(sliceDay(slice)))} />
                      <figcaption>
                        <ul className="legend" aria-hidden="true">
                          {shown.map((outcome) => (
                            <li key={outcome}>
                              <span className="swatch" style={{ background: OUTCOME_COLOURS[outcome] }} />
                              {outcomes(outcome)}
                            </li>
                          ))}
                        </ul>
                      </figcaption>
                    </figure>
                  </div>
                )}
              </div>
              {endpoint.secrets.length > 0 ? <h3>{t("secrets")}</h3> : null}
              <p className="muted">
                {t("secretsVariable", { active: endpoint.secretsEnv, retired: endpoint.retiredSecretsEnv ?? t("noRetired") })}
                {endpoint.secrets.length === 0 ? ` · ${t("noSecrets")}` : null}
              </p>
              {endpoint.secrets.length === 0 ? null : (
                <table className="compact" data-testid="secrets">
                  <thead>
                    <tr>
                      <th scope="col">{t("secretLabel")}</th>
                      <th scope="col">{t("secretSeen")}</th>
                      <th scope="col">{t("secretStatus")}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {endpoint.secrets.map((secret) => (
                      <tr key={secret.label} data-label={secret.label} data-status={secret.status}>
                        <td>
                          <span className="mono">{secret.label}</span> <span className="muted">({t("secretKind", { kind: secret.kind })})</span>
                        </td>
                        <td>
                          <DateTime value={secret.lastSeenAt} />
                        </td>
                        <td>
                          <span className={`badge ${SECRET_TONE[secret.status]}`}>{t(`status.${secret.status}`, { age: secret.lastSeenAt ? age(secret.lastSeenAt) : "" })}</span>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </section>
          );
        })}
      </div>
    </>
  );
}
