// The one writer of AlertChannel, AlertRule and Incident (npm run lint:arch, money-path-writers): a
// channel added or removed, a rule's threshold changed, an incident opened (with one outbox message per
// enabled channel, in the same transaction), counted into, and resolved (with its resolved notices).
import type { Db } from "@/lib/db/client";
import { driverOf, type SqlSession } from "@/lib/db/driver";
import { uniqueViolationFields } from "@/lib/db/errors";
import { newRowId } from "@/lib/db/row-id";
import { insertOutboxMessage } from "@/lib/outbox/outbox-store";
import type { AlertRuleName, Observation } from "@/lib/alerts/alert-rules";

export type AlertChannelKind = "email" | "slack" | "webhook";

/** A channel's row as the store gives it. `secretCiphertext` never leaves lib/alerts. */
export interface AlertChannelRow {
  id: string;
  organizationId: string;
  kind: AlertChannelKind;
  to: string | null;
  url: string | null;
  secretCiphertext: string | null;
  createdAt: Date;
  disabledAt: Date | null;
}

export async function insertAlertChannel(db: Db, row: Omit<AlertChannelRow, "disabledAt">): Promise<void> {
  await db.alertChannel.create({ data: row });
}

/** Removes a channel of `organizationId`: it receives nothing new and its secret is erased. False when there is no such enabled channel there. */
export async function disableAlertChannel(db: Db, organizationId: string, id: string, now: Date): Promise<boolean> {
  const { count } = await db.alertChannel.updateMany({ where: { id, organizationId, disabledAt: null }, data: { disabledAt: now, secretCiphertext: null } });
  return count === 1;
}

export async function findAlertChannel(db: Db, id: string): Promise<AlertChannelRow | null> {
  return (await db.alertChannel.findUnique({ where: { id } })) as AlertChannelRow | null;
}

/** The enabled channels of an organization, oldest first. */
export async function enabledAlertChannels(db: Db, organizationId: string): Promise<AlertChannelRow[]> {
  return (await db.alertChannel.findMany({ where: { organizationId, disabledAt: null }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] })) as AlertChannelRow[];
}

/** Sets an organization's rule (enabled, threshold), replacing the default or its previous change. */
export async function saveAlertRule(db: Db, organizationId: string, rule: AlertRuleName, setting: { enabled: boolean; threshold: number }): Promise<void> {
  await db.alertRule.upsert({ where: { organizationId_rule: { organizationId, rule } }, create: { organizationId, rule, ...setting }, update: setting });
}

/** An incident's row. `detail` is JSON. */
export interface IncidentRow {
  id: string;
  organizationId: string;
  rule: string;
  key: string;
  status: "open" | "resolved";
  openedAt: Date;
  resolvedAt: Date | null;
  count: number;
  lastSeenAt: Date;
  detail: string;
}

/** The open incidents of an organization (one read). */
export async function openIncidents(db: Db, organizationId: string): Promise<IncidentRow[]> {
  return (await db.incident.findMany({ where: { organizationId, status: "open" }, orderBy: [{ openedAt: "asc" }, { id: "asc" }] })) as IncidentRow[];
}

/** The value of the UNIQUE `openKey` while an incident is open: one open incident per organization, rule and key. */
export function openKeyOf(organizationId: string, rule: string, key: string): string {
  return `${organizationId}|${rule}|${key}`;
}

/** The stable idempotency key of an incident's notice to one channel: one message per incident, change and channel, whatever races. */
export function alertIdempotencyKey(incidentId: string, change: "opened" | "resolved", channelId: string): string {
  return `alert:${incidentId}:${change}:${channelId}`;
}

/** What a channel is sent, built from the incident by the caller (lib/alerts/alert-message.ts). */
export type NoticeBody = (incident: IncidentRow, change: "opened" | "resolved") => string;

async function queueNotices(session: SqlSession, incident: IncidentRow, change: "opened" | "resolved", channels: readonly AlertChannelRow[], body: NoticeBody, now: Date): Promise<void> {
  const text = body(incident, change);
  for (const channel of channels) {
    await insertOutboxMessage(
      session,
      // An alert belongs to no order: orderId is empty, channelId says where it goes.
      { id: newRowId(now), organizationId: incident.organizationId, idempotencyKey: alertIdempotencyKey(incident.id, change, channel.id), orderId: "", target: channel.kind === "email" ? `mailto:${channel.to}` : channel.url!, body: text, channelId: channel.id },
      now,
    );
  }
}

/**
 * Opens an incident for `observation` of `rule` in `organizationId` and queues its "opened" notice to
 * each of `channels`, in one transaction whose first statement is the INSERT: when another evaluator
 * opened the same (organization, rule, key) first, the UNIQUE `openKey` refuses it, nothing is written,
 * and this returns null. Returns the new incident otherwise.
 */
export async function openIncident(db: Db, organizationId: string, rule: AlertRuleName, observation: Observation, channels: readonly AlertChannelRow[], body: NoticeBody, now: Date): Promise<IncidentRow | null> {
  const incident: IncidentRow = { id: `inc_${newRowId(now)}`, organizationId, rule, key: observation.key, status: "open", openedAt: now, resolvedAt: null, count: observation.count, lastSeenAt: now, detail: JSON.stringify(observation.detail) };
  try {
    await driverOf(db).transaction(async (session) => {
      await session.run(
        `INSERT INTO "Incident" ("id", "organizationId", "rule", "key", "status", "openKey", "openedAt", "count", "lastSeenAt", "detail") VALUES (?, ?, ?, ?, 'open', ?, ?, ?, ?, ?)`,
        [incident.id, organizationId, rule, observation.key, openKeyOf(organizationId, rule, observation.key), now, observation.count, now, incident.detail],
      );
      await queueNotices(session, incident, "opened", channels, body, now);
    });
  } catch (error) {
    if (uniqueViolationFields(error)?.includes("openKey")) return null;
    throw error;
  }
  return incident;
}

/** Counts a still-holding condition into its open incident (never a new notice). */
export async function touchIncident(db: Db, id: string, observation: Observation, now: Date): Promise<void> {
  await db.incident.updateMany({ where: { id, status: "open" }, data: { count: observation.count, lastSeenAt: now, detail: JSON.stringify(observation.detail) } });
}

/**
 * Resolves an open incident and queues its "resolved" notice to each of `channels`, in one transaction
 * whose first statement is the guarded UPDATE: only the evaluator that moves it from open to resolved
 * writes the notices. Returns true when this call resolved it.
 */
export async function resolveIncident(db: Db, incident: IncidentRow, channels: readonly AlertChannelRow[], body: NoticeBody, now: Date): Promise<boolean> {
  return driverOf(db).transaction(async (session) => {
    const changed = await session.run(`UPDATE "Incident" SET "status" = 'resolved', "openKey" = NULL, "resolvedAt" = ? WHERE "id" = ? AND "status" = 'open'`, [now, incident.id]);
    if (changed !== 1) return false;
    await queueNotices(session, { ...incident, status: "resolved", resolvedAt: now }, "resolved", channels, body, now);
    return true;
  });
}
