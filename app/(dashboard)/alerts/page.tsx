import { forbidden } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { DateTime } from "@/app/_components/money";
import { StaticTable } from "@/app/_components/static-table";
import { can } from "@/lib/auth/roles";
import { requireActor } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { listAlertChannels } from "@/lib/alerts/alert-channels";
import { RULE_DEFAULTS, ruleSettings } from "@/lib/alerts/alert-rules";
import { listIncidents } from "@/lib/alerts/list-incidents";
import { AddChannelForm, RemoveChannelButton, RuleForm } from "./alert-forms";

export const dynamic = "force-dynamic";

/**
 * Alerts (support reads, admin changes: `alerts.read`, `alerts.manage`): the organization's channels
 * (add, remove; a webhook channel's secret shown once), its rules with their thresholds, and its
 * incidents, open first.
 */
export default async function AlertsPage() {
  const actor = await requireActor("/alerts");
  if (!can(actor.role, "alerts.read")) forbidden();
  const manage = can(actor.role, "alerts.manage");
  const client = await db();
  const [t, channels, rules, open, resolved] = await Promise.all([
    getTranslations("alerts"),
    listAlertChannels(client, actor.organizationId),
    ruleSettings(client, actor.organizationId),
    listIncidents(client, actor.organizationId, { status: "open", pageSize: 100 }),
    listIncidents(client, actor.organizationId, { status: "resolved", pageSize: 50 }),
  ]);
  const incidents = [...open.data, ...resolved.data];
  return (
    <>
      <h1>{t("title")}</h1>
      <p className="help">{t("intro")}</p>
      <section aria-labelledby="incidents-h">
        <h2 id="incidents-h">{t("incidents")}</h2>
        <StaticTable
          testId="incidents"
          columns={[{ label: t("status") }, { label: t("rule") }, { label: t("key") }, { label: t("opened") }, { label: t("resolvedAt") }, { label: t("count"), numeric: true }]}
          rowCount={incidents.length}
          empty={t("noIncidents")}
        >
          {incidents.map((incident) => (
            <tr key={incident.id} data-incident={incident.id} data-rule={incident.rule} data-status={incident.status}>
              <td>
                <span className={`badge ${incident.status === "open" ? "bad" : "ok"}`}>{t(`statusName.${incident.status}`)}</span>
              </td>
              <td>{t.has(`ruleName.${incident.rule}`) ? t(`ruleName.${incident.rule}` as "ruleName.gap_found") : incident.rule}</td>
              <td className="mono">{incident.key || t("whole")}</td>
              <td>
                <DateTime value={incident.openedAt} />
              </td>
              <td>{incident.resolvedAt ? <DateTime value={incident.resolvedAt} /> : "—"}</td>
              <td className="num">{incident.count}</td>
            </tr>
          ))}
        </StaticTable>
      </section>
      <section aria-labelledby="channels-h">
        <h2 id="channels-h">{t("channels")}</h2>
        <StaticTable testId="channels" columns={[{ label: t("kind") }, { label: t("target") }, { label: t("created") }, manage ? { label: "" } : null]} rowCount={channels.count} empty={t("noChannels")}>
          {channels.data.map((channel) => (
            <tr key={channel.id} data-channel={channel.id}>
              <td>{t(`kindName.${channel.kind}`)}</td>
              <td className="mono wrap">{channel.to ?? channel.url}</td>
              <td>
                <DateTime value={channel.createdAt} />
              </td>
              {manage ? (
                <td>
                  <RemoveChannelButton id={channel.id} />
                </td>
              ) : null}
            </tr>
          ))}
        </StaticTable>
        {manage ? (
          <>
            <h3>{t("addTitle")}</h3>
            <AddChannelForm />
          </>
        ) : null}
      </section>
      <section aria-labelledby="rules-h">
        <h2 id="rules-h">{t("rules")}</h2>
        <StaticTable testId="rules" columns={[{ label: t("rule") }, { label: t("threshold") }, { label: t("enabled") }]} rowCount={rules.length} empty="">
          {rules.map((rule) => (
            <tr key={rule.rule} data-rule={rule.rule}>
              <td>{t(`ruleName.${rule.rule}`)}</td>
              <td>
                {rule.rule === "secret_still_matching" ? t("secretRuleUnit", { count: rule.threshold }) : t(`unit.${rule.unit}`, { count: rule.threshold })}
                {rule.changed ? ` (${t("changed")})` : ""}
              </td>
              <td>{manage ? <RuleForm rule={rule.rule} enabled={rule.enabled} threshold={rule.threshold} min={RULE_DEFAULTS[rule.rule].min} max={RULE_DEFAULTS[rule.rule].max} /> : t(rule.enabled ? "on" : "off")}</td>
            </tr>
          ))}
        </StaticTable>
      </section>
    </>
  );
}
