import { latestGapChecks, type GapCheckView } from "@/lib/monitoring/gap-checks";
import { DEMO_SECRET_LABEL_SUFFIX } from "@/lib/config/settings";
import type { Db } from "@/lib/db/client";
import { EndpointConfigError, endpointDefinitions, validateEndpoints, type EndpointDefinition, type ProcessingMode } from "@/lib/endpoints/endpoints";
import { PENDING_INBOX_STATUSES } from "@/lib/monitoring/operational-metrics";

/** The decision outcomes the Endpoints page counts, in the order it shows them. */
export const HEALTH_OUTCOMES = ["applied", "accepted", "duplicate", "ignored", "retry_scheduled", "dead_lettered", "conflict", "rejected"] as const;
export type HealthOutcome = (typeof HEALTH_OUTCOMES)[number];
export type OutcomeCounts = Record<HealthOutcome, number>;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** The chart's slices: seven of 24 h each, ending now; the newest is the "last 24 h" window. */
export const HEALTH_SLICES = 7;
/**
 * An active secret that has not matched for this long, while another secret of the endpoint matched
 * after it, is safe to retire: the sender has moved to the other one (Stripe keeps an old secret valid
 * for up to 24 h after a roll, docs.stripe.com/webhooks#roll-endpoint-secrets).
 */
export const ROTATION_QUIET_MS = DAY_MS;
/** A retired secret tried within this long is "still being tried". */
export const RETIRED_RECENT_MS = 7 * DAY_MS;

/**
 * What a configured secret label is doing:
 * - in_use: an active secret that matched recently (or the only one, which matched once);
 * - safe_to_retire: an active secret quiet for {@link ROTATION_QUIET_MS} while another matched after it;
 * - no_match_yet: an active secret no retained delivery matched (new, or the sender never used it);
 * - public_demo: the public demo secret (demo mode only: anyone can sign with it);
 * - still_tried: a retired secret a delivery was signed with in the last {@link RETIRED_RECENT_MS} (refused);
 * - not_tried: a retired secret nobody tried recently: safe to remove from the retired list.
 */
export type SecretStatus = "in_use" | "safe_to_retire" | "no_match_yet" | "public_demo" | "still_tried" | "not_tried";

/** One configured secret, by label only (`<VARIABLE>[<position>]`, `<VARIABLE>[demo]`): never a value. */
export interface SecretLabelHealth {
  label: string;
  kind: "active" | "demo" | "retired";
  /** Active or demo: when the receiver last verified a delivery with it. Retired: when a delivery signed with it was last refused. ISO 8601 UTC. */
  lastSeenAt: string | null;
  status: SecretStatus;
}

/** The last decision taken at an endpoint (a refused unsigned request included). */
export interface LastDelivery {
  at: string;
  outcome: string;
  httpStatus: number | null;
  verified: boolean;
}

/** One endpoint as the Endpoints page shows it. Times are ISO 8601 UTC; nothing here is a secret. */
export interface EndpointHealth {
  name: string;
  provider: string;
  account: string;
  livemode: boolean;
  mode: ProcessingMode;
  /** enabled: served; disabled: its secrets variable is unset (answers 404); misconfigured: refused at start. */
  state: "enabled" | "disabled" | "misconfigured";
  /** Why it is disabled or misconfigured (variable names and labels only), else null. */
  stateDetail: string | null;
  secretsEnv: string;
  retiredSecretsEnv: string | null;
  /** True while the endpoint verifies with its public demo secret (demo mode, variable unset). */
  publicDemoSecret: boolean;
  /** The provider's last delivery (a decision with source "receiver"; dashboard and CLI retries are not deliveries), else null. */
  lastDelivery: LastDelivery | null;
  last24h: OutcomeCounts;
  last7d: OutcomeCounts;
  /** {@link HEALTH_SLICES} slices of 24 h, oldest first; the last one is {@link EndpointHealth.last24h}. */
  slices: { start: string; end: string; total: number; counts: OutcomeCounts }[];
  /** Inbox events stored and not yet finished (received, processing, failed), and the oldest one's arrival. */
  pending: { count: number; oldestReceivedAt: string | null };
  secrets: SecretLabelHealth[];
  /**
   * The endpoint's provider API access (a Stripe endpoint's `apiKeyEnv`): the variable (never its value),
   * whether it is set, and the last gap check (null before the first); null for an endpoint without one.
   */
  api: { keyEnv: string; keySet: boolean; lastGapCheck: GapCheckView | null } | null;
}

/** The Endpoints page's data. */
export interface EndpointsHealth {
  generatedAt: string;
  endpoints: EndpointHealth[];
}

function emptyCounts(): OutcomeCounts {
  return Object.fromEntries(HEALTH_OUTCOMES.map((outcome) => [outcome, 0])) as OutcomeCounts;
}

function isHealthOutcome(outcome: string): outcome is HealthOutcome {
  return (HEALTH_OUTCOMES as readonly string[]).includes(outcome);
}

/** The configuration side of one endpoint: state, secret labels (never values). */
interface ConfiguredEndpoint {
  definition: EndpointDefinition;
  state: EndpointHealth["state"];
  stateDetail: string | null;
  active: string[];
  retired: string[];
}

function configured(definition: EndpointDefinition, env: Record<string, string | undefined>): ConfiguredEndpoint {
  try {
    const set = validateEndpoints([definition], env);
    const served = set.endpoints[0];
    if (!served) return { definition, state: "disabled", stateDetail: set.disabled[0]?.reason ?? null, active: [], retired: [] };
    return { definition, state: "enabled", stateDetail: null, active: served.secrets.map((secret) => secret.label), retired: served.retiredSecrets.map((secret) => secret.label) };
  } catch (error) {
    // The issues name the endpoint, the variable and the label, never a value (lib/endpoints/endpoints.ts).
    if (error instanceof EndpointConfigError) return { definition, state: "misconfigured", stateDetail: error.issues.join("; "), active: [], retired: [] };
    throw error;
  }
}

/**
 * The rotation status of an endpoint's secret labels from when each was last seen (a pure rule,
 * tested beside this file). `active` in configured order; `lastSeen` maps a label to its last match
 * (active) or last refused try (retired). See {@link SecretStatus} for the statuses.
 */
export function rotationStatus(active: string[], retired: string[], lastSeen: ReadonlyMap<string, Date>, now: Date): SecretLabelHealth[] {
  const real = active.filter((label) => !label.endsWith(DEMO_SECRET_LABEL_SUFFIX));
  const newest = Math.max(-Infinity, ...real.map((label) => lastSeen.get(label)?.getTime() ?? -Infinity));
  const activeStatuses = active.map((label): SecretLabelHealth => {
    const seen = lastSeen.get(label);
    const lastSeenAt = seen?.toISOString() ?? null;
    if (label.endsWith(DEMO_SECRET_LABEL_SUFFIX)) return { label, kind: "demo", lastSeenAt, status: "public_demo" };
    if (!seen) return { label, kind: "active", lastSeenAt, status: "no_match_yet" };
    const quiet = now.getTime() - seen.getTime() >= ROTATION_QUIET_MS;
    return { label, kind: "active", lastSeenAt, status: quiet && newest > seen.getTime() ? "safe_to_retire" : "in_use" };
  });
  const retiredStatuses = retired.map((label): SecretLabelHealth => {
    const seen = lastSeen.get(label);
    const recent = seen !== undefined && now.getTime() - seen.getTime() < RETIRED_RECENT_MS;
    return { label, kind: "retired", lastSeenAt: seen?.toISOString() ?? null, status: recent ? "still_tried" : "not_tried" };
  });
  return [...activeStatuses, ...retiredStatuses];
}

/**
 * Everything the Endpoints page shows, for every defined endpoint (served, disabled or misconfigured):
 * configuration (provider, account, live/test, mode, whether the public demo secret is in use), the last
 * decision, decisions per outcome in seven 24 h slices ending at `now` (the newest is the last 24 h, all
 * seven the last 7 days), pending inbox events with the oldest one's arrival, and per secret label when
 * it last matched (or, retired, was last tried).
 *
 * Cost on a big table, by index: per slice one grouped count over Decision's covering
 * (at, endpoint, outcome, verified) index and one over RejectionCount's (minute) index (refusals before
 * a valid signature are counted there exactly; their sampled decision rows are skipped, so none counts
 * twice); one grouped MIN over the pending inbox rows ((status, receivedAt)); per endpoint one seek for
 * the provider's last delivery (the last decision with source "receiver": a dashboard or CLI retry is not a
 * delivery) ((endpoint, at)); per endpoint and label one seek ((endpoint, secretLabel, source, at)).
 * Refusals are counted per UTC minute, so a slice's edge is exact to the minute. "Last matched" reaches
 * back as far as decisions are kept (DECISION_RETENTION_DAYS). Secret labels are positions
 * (`X[0]`, `X[1]`): reordering the variable's list renames them. Throws the database's errors.
 */
export async function endpointsHealth(db: Db, { env = process.env, now = new Date() }: { env?: Record<string, string | undefined>; now?: Date } = {}): Promise<EndpointsHealth> {
  const endpoints = endpointDefinitions(env).map((definition) => configured(definition, env));
  const names = new Set(endpoints.map((endpoint) => endpoint.definition.name));
  const slices = Array.from({ length: HEALTH_SLICES }, (_, index) => {
    const end = new Date(now.getTime() - (HEALTH_SLICES - 1 - index) * DAY_MS);
    return { start: new Date(end.getTime() - DAY_MS), end };
  });

  const [sliceCounts, pending, lastDeliveries, seen, gapChecks] = await Promise.all([
    Promise.all(
      slices.map(async ({ start, end }) => {
        const [decisions, refusals] = await Promise.all([
          db.decision.groupBy({ by: ["endpoint", "outcome", "verified"], where: { at: { gte: start, lt: end } }, _count: { _all: true } }),
          db.rejectionCount.groupBy({ by: ["endpoint"], where: { minute: { gte: start, lt: end } }, _sum: { count: true } }),
        ]);
        const byEndpoint = new Map<string, OutcomeCounts>();
        const countsOf = (endpoint: string) => byEndpoint.get(endpoint) ?? byEndpoint.set(endpoint, emptyCounts()).get(endpoint)!;
        for (const row of decisions) {
          // An unverified refusal's row is a sample of what RejectionCount counts in full.
          if (!names.has(row.endpoint) || !isHealthOutcome(row.outcome) || (row.outcome === "rejected" && !row.verified)) continue;
          countsOf(row.endpoint)[row.outcome] += row._count._all;
        }
        for (const row of refusals) if (names.has(row.endpoint)) countsOf(row.endpoint).rejected += row._sum.count ?? 0;
        return byEndpoint;
      }),
    ),
    db.webhookEvent.groupBy({ by: ["endpoint"], where: { status: { in: [...PENDING_INBOX_STATUSES] } }, _count: { _all: true }, _min: { receivedAt: true } }),
    Promise.all(
      endpoints.map(({ definition }) =>
        db.decision.findFirst({ where: { endpoint: definition.name, source: "receiver" }, orderBy: { at: "desc" }, select: { at: true, outcome: true, httpStatus: true, verified: true } }),
      ),
    ),
    Promise.all(
      endpoints.map(async ({ definition, active, retired }) => {
        const labels = [...active, ...retired];
        const rows = await Promise.all(
          labels.map((label) => db.decision.findFirst({ where: { endpoint: definition.name, secretLabel: label, source: "receiver" }, orderBy: { at: "desc" }, select: { at: true } })),
        );
        return new Map(labels.flatMap((label, index) => (rows[index] ? [[label, rows[index].at] as const] : [])));
      }),
    ),
    latestGapChecks(db, endpoints.filter(({ definition }) => definition.apiKeyEnv).map(({ definition }) => definition.name)),
  ]);

  return {
    generatedAt: now.toISOString(),
    endpoints: endpoints.map(({ definition, state, stateDetail, active, retired }, index): EndpointHealth => {
      const perSlice = slices.map(({ start, end }, sliceIndex) => {
        const counts = { ...(sliceCounts[sliceIndex].get(definition.name) ?? emptyCounts()) };
        return { start: start.toISOString(), end: end.toISOString(), total: HEALTH_OUTCOMES.reduce((sum, outcome) => sum + counts[outcome], 0), counts };
      });
      const last7d = emptyCounts();
      for (const slice of perSlice) for (const outcome of HEALTH_OUTCOMES) last7d[outcome] += slice.counts[outcome];
      const waiting = pending.find((row) => row.endpoint === definition.name);
      const last = lastDeliveries[index];
      return {
        name: definition.name,
        provider: definition.provider,
        account: definition.account,
        livemode: definition.livemode,
        mode: definition.mode,
        state,
        stateDetail,
        secretsEnv: definition.secretsEnv,
        retiredSecretsEnv: definition.retiredSecretsEnv ?? null,
        publicDemoSecret: active.some((label) => label.endsWith(DEMO_SECRET_LABEL_SUFFIX)),
        lastDelivery: last ? { at: last.at.toISOString(), outcome: last.outcome, httpStatus: last.httpStatus, verified: last.verified } : null,
        last24h: { ...perSlice[perSlice.length - 1].counts },
        last7d,
        slices: perSlice,
        pending: { count: waiting?._count._all ?? 0, oldestReceivedAt: waiting?._min.receivedAt?.toISOString() ?? null },
        secrets: rotationStatus(active, retired, seen[index], now),
        api: definition.apiKeyEnv ? { keyEnv: definition.apiKeyEnv, keySet: Boolean(env[definition.apiKeyEnv]?.trim()), lastGapCheck: gapChecks.get(definition.name) ?? null } : null,
      };
    }),
  };
}
