// The alert rules as data: each one's name, default threshold and unit, and the indexed read that says
// where its condition holds in one organization. lib/alerts/alert-evaluator.ts opens an incident per
// (rule, key) where it holds and resolves it once it no longer does.
import type { Db } from "@/lib/db/client";
import { DEFAULT_ORGANIZATION } from "@/lib/organizations/organizations";

export const ALERT_RULES = ["dead_letter_open", "pending_event_age", "payment_undelivered", "reconciliation_mismatch", "signature_failures", "secret_still_matching", "gap_found"] as const;
export type AlertRuleName = (typeof ALERT_RULES)[number];

export function isAlertRule(value: string): value is AlertRuleName {
  return (ALERT_RULES as readonly string[]).includes(value);
}

/** What a threshold counts, for the page and the docs. */
export type ThresholdUnit = "dead_letters" | "minutes" | "mismatches" | "failures_per_5_minutes" | "events";

/** One rule's default: enabled, and its threshold in its unit. An organization may change both (AlertRule rows). */
export const RULE_DEFAULTS: Record<AlertRuleName, { threshold: number; unit: ThresholdUnit; min: number; max: number }> = {
  // Open dead letters at or above which the incident opens (1: the first one).
  dead_letter_open: { threshold: 1, unit: "dead_letters", min: 1, max: 100_000 },
  // Age of the oldest event still waiting to be applied (received, processing or failed).
  pending_event_age: { threshold: 10, unit: "minutes", min: 1, max: 10_080 },
  // Age of a paid order's fulfilment message not yet answered 2xx by the merchant.
  payment_undelivered: { threshold: 15, unit: "minutes", min: 1, max: 10_080 },
  // Mismatches of a scope's latest finished reconciliation run.
  reconciliation_mismatch: { threshold: 1, unit: "mismatches", min: 1, max: 1_000_000 },
  // Refused signatures of one endpoint over the last five minutes.
  signature_failures: { threshold: 20, unit: "failures_per_5_minutes", min: 1, max: 1_000_000 },
  // A retired secret tried, or a secret that expires within a week still verifying, within this many minutes.
  secret_still_matching: { threshold: 60, unit: "minutes", min: 1, max: 10_080 },
  // Missed events a gap check (or a backfill) of one endpoint found and stored, in its latest run.
  gap_found: { threshold: 1, unit: "events", min: 1, max: 1_000_000 },
};

/** An organization's setting of one rule: the default, or its own change. */
export interface RuleSetting {
  rule: AlertRuleName;
  enabled: boolean;
  threshold: number;
  unit: ThresholdUnit;
  /** True when the organization changed the default. */
  changed: boolean;
}

/** Each rule's setting in `organizationId`: one read of its AlertRule rows, defaults for the rest. */
export async function ruleSettings(db: Db, organizationId: string): Promise<RuleSetting[]> {
  const rows = await db.alertRule.findMany({ where: { organizationId } });
  return ALERT_RULES.map((rule) => {
    const row = rows.find((candidate) => candidate.rule === rule);
    return { rule, enabled: row?.enabled ?? true, threshold: row?.threshold ?? RULE_DEFAULTS[rule].threshold, unit: RULE_DEFAULTS[rule].unit, changed: row !== undefined };
  });
}

/** Where a rule's condition holds: its key ("" for the organization as a whole), how many, and what was seen. */
export interface Observation {
  key: string;
  count: number;
  detail: Record<string, string | number | boolean | null>;
}

/** What a rule's read gets: the organization, the threshold, the clock, and the open incidents of the rule by key. */
export interface RuleContext {
  organizationId: string;
  threshold: number;
  now: Date;
  open: ReadonlyMap<string, { openedAt: Date; count: number; detail: string }>;
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** The WebhookEvent statuses of an event not yet applied. */
const WAITING_EVENT_STATUSES = ["received", "processing", "failed"];
/** The fulfilment message statuses that are not a delivery (sent) nor a person's settlement (resolved). */
const UNDELIVERED_STATUSES = ["pending", "sending", "uncertain", "failed"];
/** RejectionCount reasons that are a refused signature (lib/decisions/rejection-counter.ts). */
export const SIGNATURE_FAILURE_REASONS = ["signature_missing", "signature_malformed", "signature_mismatch", "timestamp_outside_tolerance"];

/** The endpoint names (environment ones and data endpoint ids) among `names` that belong to `organizationId`. */
async function endpointsOf(db: Db, organizationId: string, names: string[]): Promise<Set<string>> {
  const dataIds = names.filter((name) => name.startsWith("ep_"));
  const rows = dataIds.length === 0 ? [] : await db.endpoint.findMany({ where: { id: { in: dataIds } }, select: { id: true, organizationId: true } });
  const owner = new Map(rows.map((row) => [row.id, row.organizationId]));
  // Environment-configured endpoints are the default organization's (docs/organizations.md).
  return new Set(names.filter((name) => (name.startsWith("ep_") ? owner.get(name) : DEFAULT_ORGANIZATION.id) === organizationId));
}

/** Each rule's read. Each runs one or two indexed queries for one organization. */
export const RULE_READS: Record<AlertRuleName, (db: Db, context: RuleContext) => Promise<Observation[]>> = {
  async dead_letter_open(db, { organizationId, threshold, open }) {
    const openCount = await db.deadLetter.count({ where: { status: "open", organizationId } });
    if (openCount < threshold) return [];
    const incident = open.get("");
    if (!incident) return [{ key: "", count: openCount, detail: { open: openCount, atOpen: openCount } }];
    // Dead letters opened while the incident is open are counted into it (never a second alert).
    const atOpen = Number((JSON.parse(incident.detail) as { atOpen?: number }).atOpen ?? incident.count);
    const since = await db.deadLetter.count({ where: { organizationId, firstFailedAt: { gt: incident.openedAt } } });
    return [{ key: "", count: atOpen + since, detail: { open: openCount, atOpen } }];
  },
  async pending_event_age(db, { organizationId, threshold, now }) {
    const before = new Date(now.getTime() - threshold * MINUTE_MS);
    const where = { status: { in: WAITING_EVENT_STATUSES }, receivedAt: { lte: before }, organizationId };
    const oldest = await db.webhookEvent.findFirst({ where, orderBy: { receivedAt: "asc" }, select: { id: true, receivedAt: true } });
    if (!oldest) return [];
    const count = await db.webhookEvent.count({ where });
    return [{ key: "", count, detail: { oldestEventId: oldest.id, oldestMinutes: Math.floor((now.getTime() - oldest.receivedAt.getTime()) / MINUTE_MS) } }];
  },
  async payment_undelivered(db, { organizationId, threshold, now }) {
    const before = new Date(now.getTime() - threshold * MINUTE_MS);
    const where = { status: { in: UNDELIVERED_STATUSES }, createdAt: { lte: before }, organizationId, channelId: null };
    const oldest = await db.outboxMessage.findFirst({ where, orderBy: { createdAt: "asc" }, select: { orderId: true, createdAt: true, status: true } });
    if (!oldest) return [];
    const count = await db.outboxMessage.count({ where });
    return [{ key: "", count, detail: { oldestOrderId: oldest.orderId, oldestStatus: oldest.status, oldestMinutes: Math.floor((now.getTime() - oldest.createdAt.getTime()) / MINUTE_MS) } }];
  },
  async reconciliation_mismatch(db, { organizationId, threshold, now }) {
    const runs = await db.reconciliationRun.findMany({
      where: { status: "done", organizationId, startedAt: { gte: new Date(now.getTime() - 30 * DAY_MS) } },
      orderBy: [{ startedAt: "desc" }, { id: "desc" }],
      select: { id: true, scopeKey: true, mismatchCount: true },
      take: 500,
    });
    const latest = new Map<string, (typeof runs)[number]>();
    for (const run of runs) if (!latest.has(run.scopeKey)) latest.set(run.scopeKey, run);
    return [...latest.values()].filter((run) => run.mismatchCount >= threshold).map((run) => ({ key: run.scopeKey, count: run.mismatchCount, detail: { runId: run.id, mismatches: run.mismatchCount } }));
  },
  async signature_failures(db, { organizationId, threshold, now }) {
    const rows = await db.rejectionCount.groupBy({ by: ["endpoint"], where: { minute: { gte: new Date(now.getTime() - 5 * MINUTE_MS) }, reason: { in: SIGNATURE_FAILURE_REASONS } }, _sum: { count: true } });
    const over = rows.filter((row) => (row._sum.count ?? 0) >= threshold && row.endpoint !== "(unknown)");
    if (over.length === 0) return [];
    const ours = await endpointsOf(db, organizationId, over.map((row) => row.endpoint));
    return over.filter((row) => ours.has(row.endpoint)).map((row) => ({ key: row.endpoint, count: row._sum.count ?? 0, detail: { endpoint: row.endpoint, failures: row._sum.count ?? 0 } }));
  },
  async secret_still_matching(db, { organizationId, threshold, now }) {
    const since = new Date(now.getTime() - threshold * MINUTE_MS);
    // A secret stored as data that expires within a week (a rotation's overlap ending) and still verified deliveries.
    const expiring = await db.endpointSecret.findMany({
      where: { endpoint: { organizationId, deletedAt: null }, retiredAt: null, expiresAt: { not: null, lte: new Date(now.getTime() + 7 * DAY_MS) }, lastMatchedAt: { gte: since } },
      select: { endpointId: true, label: true, expiresAt: true },
    });
    // A retired secret (environment-configured) that signed a refused delivery: the refusal's diagnosis names it.
    const retired = await db.decision.findMany({ where: { at: { gte: since }, verified: false, secretLabel: { not: null }, organizationId }, select: { endpoint: true, secretLabel: true }, distinct: ["endpoint", "secretLabel"], take: 100 });
    return [
      ...expiring.map((secret) => ({ key: `${secret.endpointId}:${secret.label}`, count: 1, detail: { endpoint: secret.endpointId, label: secret.label, kind: "expiring", expiresAt: secret.expiresAt!.toISOString() } })),
      ...retired.map((row) => ({ key: `${row.endpoint}:${row.secretLabel}`, count: 1, detail: { endpoint: row.endpoint, label: row.secretLabel, kind: "retired" } })),
    ];
  },
  async gap_found(db, { organizationId, threshold, now }) {
    const checks = await db.gapCheck.findMany({
      where: { trigger: { in: ["scheduled", "cli"] }, startedAt: { gte: new Date(now.getTime() - 7 * DAY_MS) }, status: "done", organizationId },
      orderBy: [{ startedAt: "desc" }, { id: "desc" }],
      select: { id: true, endpoint: true, stored: true },
      take: 500,
    });
    const latest = new Map<string, (typeof checks)[number]>();
    for (const check of checks) if (!latest.has(check.endpoint)) latest.set(check.endpoint, check);
    return [...latest.values()].filter((check) => check.stored >= threshold).map((check) => ({ key: check.endpoint, count: check.stored, detail: { endpoint: check.endpoint, stored: check.stored, gapCheckId: check.id } }));
  },
};
