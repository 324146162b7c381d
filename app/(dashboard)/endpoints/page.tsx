import { forbidden } from "next/navigation";
import { getLocale, getTranslations } from "next-intl/server";
import { DateTime } from "@/app/_components/money";
import { can } from "@/lib/auth/roles";
import { requireActor } from "@/lib/auth/session";
import { settings } from "@/lib/config/settings";
import { db } from "@/lib/db/client";
import { endpointsHealth, HEALTH_OUTCOMES, type EndpointHealth, type SecretStatus } from "@/lib/endpoints/endpoint-health";
import { formatAge, formatDateTime } from "@/lib/format/format";
import { EndpointChart, OUTCOME_COLOURS } from "./endpoint-chart";
import { BreakAfter } from "@/app/_components/break-after";
import { listEndpoints, type EndpointView } from "@/lib/endpoints/endpoint-store";
import { ApiKeyForm, BackfillButton, CreateEndpointForm, DeleteEndpointForm, RefreshWhileRunning, RetireSecretButton, RotateSecretForm, StatusButton } from "./data-endpoint-forms";
import { DEFAULT_BACKFILL_HOURS } from "@/lib/backfill/backfill-requests";
import { latestBackfills, latestGapChecks, type GapCheckView } from "@/lib/monitoring/gap-checks";
import { DEFAULT_ORGANIZATION } from "@/lib/organizations/organizations";

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
  // The environment-configured endpoints are the default organization's: another organization's page
  // shows only the endpoints it stores as data.
  const health = actor.organizationId === DEFAULT_ORGANIZATION.id ? await endpointsHealth(await db()) : { generatedAt: new Date().toISOString(), endpoints: [] };
  // Endpoints stored as data are an admin's to manage (endpoints.manage): support sees the configured ones only.
  const manages = can(actor.role, "endpoints.manage");
  const stored = manages ? await listEndpoints(await db(), { organizationId: actor.organizationId }) : undefined;
  // The backfills asked for by hand of every endpoint that can be backfilled here (an admin's button).
  const backfillable = [...health.endpoints.filter((endpoint) => endpoint.api?.keySet).map((endpoint) => endpoint.name), ...(stored?.data.filter((endpoint) => endpoint.apiKey).map((endpoint) => endpoint.id) ?? [])];
  const backfills = manages ? await latestBackfills(await db(), actor.organizationId, backfillable) : new Map<string, GapCheckView>();
  const gapChecks = stored ? await latestGapChecks(await db(), stored.data.filter((endpoint) => endpoint.apiKey).map((endpoint) => endpoint.id)) : new Map<string, GapCheckView>();
  const running = [...backfills.values()].some((run) => run.status === "queued" || run.status === "running");
  const now = new Date(health.generatedAt).getTime();
  const age = (iso: string) => formatAge((now - new Date(iso).getTime()) / 1000, locale);
  const day = new Intl.DateTimeFormat(locale, { day: "numeric", month: "short", timeZone: "UTC" });
  const dayOfMonth = new Intl.DateTimeFormat(locale, { day: "numeric", timeZone: "UTC" });

  return (
    <>
      <RefreshWhileRunning running={running} />
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
                  {endpoint.api ? (
                    <>
                      <dt>{t("gapCheck")}</dt>
                      <dd data-testid="gap-check">
                        {!endpoint.api.keySet ? (
                          <span className="muted">{t("gapCheckNoKey", { variable: endpoint.api.keyEnv })}</span>
                        ) : endpoint.api.lastGapCheck === null ? (
                          <span className="muted">{t("gapCheckNotYet")}</span>
                        ) : endpoint.api.lastGapCheck.status === "failed" ? (
                          <span className="badge bad">{t("gapCheckFailed", { age: age(endpoint.api.lastGapCheck.startedAt), error: endpoint.api.lastGapCheck.error ?? "" })}</span>
                        ) : (
                          t("gapCheckValue", { age: age(endpoint.api.lastGapCheck.startedAt), missing: endpoint.api.lastGapCheck.stored })
                        )}
                      </dd>
                      {manages && endpoint.api.keySet ? (
                        <>
                          <dt>{t("data.apiHeading")}</dt>
                          <dd>
                            <BackfillLine run={backfills.get(endpoint.name)} age={age} />
                            <BackfillButton id={endpoint.name} hours={DEFAULT_BACKFILL_HOURS} />
                          </dd>
                        </>
                      ) : null}
                    </>
                  ) : null}
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
      {stored ? <DataEndpoints endpoints={stored.data} backfills={backfills} gapChecks={gapChecks} age={age} /> : null}
    </>
  );
}

const SECRET_STATE_TONE: Record<EndpointView["secrets"][number]["state"], string> = { active: "ok", expired: "neutral", retired: "neutral" };

/**
 * The endpoints stored as data (admins): each one's URL, scope, status and secrets by label (created,
 * expiry, last match; never a value), with rotate, retire, enable or disable and delete; then the
 * form that creates one (docs/endpoints.md).
 */
async function DataEndpoints({ endpoints, backfills, gapChecks, age }: { endpoints: EndpointView[]; backfills: Map<string, GapCheckView>; gapChecks: Map<string, GapCheckView>; age: (iso: string) => string }) {
  const [t, parent, locale] = await Promise.all([getTranslations("endpoints.data"), getTranslations("endpoints"), getLocale()]);
  return (
    <section aria-labelledby="data-endpoints" data-testid="data-endpoints">
      <h2 id="data-endpoints">{t("title")}</h2>
      <p className="help">{t("intro")}</p>
      {endpoints.length === 0 ? (
        <p className="muted" data-testid="no-data-endpoints">
          {t("none")}
        </p>
      ) : (
        <div className="endpoint-list">
          {endpoints.map((endpoint) => (
            <section key={endpoint.id} className="endpoint-card" data-testid="data-endpoint" data-endpoint={endpoint.id} data-provider={endpoint.provider} data-status={endpoint.status} aria-labelledby={`de-${endpoint.id}`}>
              <h3 id={`de-${endpoint.id}`}>
                <span className="mono">{endpoint.id}</span> <span className={`badge ${endpoint.status === "enabled" ? "ok" : "neutral"}`}>{parent("state", { state: endpoint.status })}</span>{" "}
                <span className={`badge ${endpoint.livemode ? "info" : "neutral"}`}>{parent("livemode", { live: String(endpoint.livemode) })}</span> <span className="badge neutral">{parent("mode", { mode: endpoint.processingMode })}</span>
              </h3>
              <dl className="facts">
                <dt>{parent("url")}</dt>
                <dd className="mono">
                  <BreakAfter text={`POST ${endpoint.url}`} />
                </dd>
                <dt>{parent("provider")}</dt>
                <dd>{t(`providerName.${endpoint.provider}`)}</dd>
                <dt>{parent("account")}</dt>
                <dd className="mono">{endpoint.account}</dd>
                <dt>{t("createdAt")}</dt>
                <dd>
                  <DateTime value={endpoint.createdAt} />
                </dd>
              </dl>
              <table className="compact" data-testid="data-secrets">
                <caption>{parent("secrets")}</caption>
                <thead>
                  <tr>
                    <th scope="col">{parent("secretLabel")}</th>
                    <th scope="col">{t("secretState")}</th>
                    <th scope="col">{t("secretCreated")}</th>
                    <th scope="col">{t("secretExpires")}</th>
                    <th scope="col">{t("secretMatched")}</th>
                    <th scope="col">
                      <span className="sr-only">{t("secretActions")}</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {endpoint.secrets.map((secret) => (
                    <tr key={secret.label} data-label={secret.label} data-state={secret.state}>
                      <td className="mono">{secret.label}</td>
                      <td>
                        <span className={`badge ${SECRET_STATE_TONE[secret.state]}`}>{t(`secretStateName.${secret.state}`)}</span>
                      </td>
                      <td>
                        <DateTime value={secret.createdAt} />
                      </td>
                      <td>{secret.expiresAt ? <DateTime value={secret.expiresAt} /> : <span className="muted">{t("noExpiry")}</span>}</td>
                      <td>{secret.lastMatchedAt ? <DateTime value={secret.lastMatchedAt} /> : <span className="muted">{parent("never")}</span>}</td>
                      <td>{secret.state === "retired" ? null : <RetireSecretButton id={endpoint.id} label={secret.label} />}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {endpoint.provider === "stripe" ? (
                <div data-testid="api-access">
                  <h4>{t("apiHeading")}</h4>
                  <p className="muted" data-testid="api-key-state">
                    {endpoint.apiKey ? t("apiKeySet", { at: formatDateTime(endpoint.apiKey.setAt, locale) }) : t("apiKeyNone")}
                  </p>
                  <ApiKeyForm id={endpoint.id} set={endpoint.apiKey !== null} />
                  {endpoint.apiKey ? (
                    <>
                      {gapChecks.get(endpoint.id) ? (
                        <p className="muted" data-testid="gap-check">
                          {t("lastGapCheck", { age: age(gapChecks.get(endpoint.id)!.startedAt), missing: gapChecks.get(endpoint.id)!.stored })}
                        </p>
                      ) : null}
                      <BackfillLine run={backfills.get(endpoint.id)} age={age} />
                      <BackfillButton id={endpoint.id} hours={DEFAULT_BACKFILL_HOURS} />
                    </>
                  ) : null}
                </div>
              ) : null}
              <h4>{t("rotateHeading")}</h4>
              <RotateSecretForm id={endpoint.id} provider={endpoint.provider} />
              <div className="row-actions">
                <StatusButton id={endpoint.id} status={endpoint.status} />
                <DeleteEndpointForm id={endpoint.id} />
              </div>
            </section>
          ))}
        </div>
      )}
      <h3>{t("createTitle")}</h3>
      <CreateEndpointForm />
    </section>
  );
}

const BACKFILL_TONE: Record<GapCheckView["status"], string> = { queued: "neutral", running: "info", done: "ok", failed: "bad" };

/** The latest backfill asked for by hand of an endpoint: queued or running (the page reads itself again until it is done), its counts, or why it failed. */
async function BackfillLine({ run, age }: { run: GapCheckView | undefined; age: (iso: string) => string }) {
  const t = await getTranslations("endpoints.data");
  if (!run) {
    return (
      <p className="muted" data-testid="backfill-state" data-status="none">
        {t("backfillNone")}
      </p>
    );
  }
  return (
    <p data-testid="backfill-state" data-status={run.status}>
      <span className={`badge ${BACKFILL_TONE[run.status]}`}>
        {t(`backfillState.${run.status}`, { age: age(run.startedAt), listed: run.listed, alreadyStored: run.alreadyStored, stored: run.stored, skipped: run.skipped, error: run.error ?? "" })}
      </span>
    </p>
  );
}
