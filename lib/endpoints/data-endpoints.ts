import { settings } from "@/lib/config/settings";
import type { ProviderName } from "@/lib/core/effect";
import type { Db } from "@/lib/db/client";
import { driverOf } from "@/lib/db/driver";
import { sqlDate, sqliteBoolean } from "@/lib/db/sql-values";
import { isDataEndpointId } from "@/lib/endpoints/data-endpoint-ids";
import { EndpointConfigError, resolveEndpoint, type ProcessingMode, type ServedEndpoint } from "@/lib/endpoints/endpoints";
import { errorMessage } from "@/lib/log/error-message";
import { logger } from "@/lib/log/logger";
import { providers } from "@/lib/providers/registry";
import type { SigningSecret } from "@/lib/providers/types";
import { decryptSecret } from "@/lib/secrets/secret-box";
import { secretsKeys } from "@/lib/secrets/secrets-key";

/** Seconds a disabled endpoint asks its sender to wait (`Retry-After`): the provider keeps the events and retries. */
export const DISABLED_RETRY_AFTER_SECONDS = 600;

/** How often a process reads the endpoints' change counter (ms): a change made elsewhere holds here within this. */
export const ENDPOINTS_VERSION_CHECK_MS = 1_000;

/** At most this often a secret's lastMatchedAt is written per process (ms): not one write per delivery. */
export const LAST_MATCHED_WRITE_MS = 60_000;

/** Endpoints (and unknown ids) kept in a process's cache; beyond it the oldest entry is dropped. */
const MAX_CACHED_ENDPOINTS = 10_000;

/** Secrets no longer accepted that a refusal's diagnosis still tries, newest first (1 HMAC each per refusal). */
const MAX_DIAGNOSED_OLD_SECRETS = 10;

/** The name of the endpoints' row in ConfigVersion. */
export const ENDPOINTS_CONFIG = "endpoints";

/** The context a data endpoint's secret is encrypted under: a ciphertext only decrypts on its own row. */
export function secretContext(endpointId: string, label: string): string {
  return `endpoint:${endpointId}:${label}`;
}

/** One stored secret of a cached endpoint: its value is decrypted in memory only. */
interface CachedSecret {
  id: string;
  label: string;
  value: string;
  createdAt: Date;
  expiresAt: Date | null;
  retiredAt: Date | null;
  /** The last write this process knows of (its own, or the row's when loaded). */
  lastMatchedAt: Date | null;
}

/** A data endpoint as cached: its row, validated options and decrypted secrets. */
interface CachedEndpoint {
  id: string;
  organizationId: string;
  provider: ProviderName;
  account: string;
  livemode: boolean;
  mode: ProcessingMode;
  options: unknown;
  status: "enabled" | "disabled";
  secrets: CachedSecret[];
  /** A Stripe Connect endpoint's bindings: connected account to organization id (absent on any other endpoint). */
  connect?: { bindings: ReadonlyMap<string, string> };
}

type CacheEntry = { kind: "found"; endpoint: CachedEndpoint } | { kind: "absent" } | { kind: "misconfigured"; issues: string[] };

/** How a delivery's data endpoint resolves. */
export type DataEndpointResolution =
  | { kind: "served"; endpoint: ServedEndpoint; organizationId: string }
  | { kind: "disabled"; endpoint: ServedEndpoint; organizationId: string }
  | { kind: "unknown" }
  | { kind: "misconfigured"; issues: string[] };

/**
 * The process's cache, on globalThis under a registry symbol: Next.js bundles lib/ once per route and
 * for the instrumentation hook, and a change made through the API route must clear the copy the webhook
 * route reads.
 */
interface EndpointCache {
  entries: Map<string, Promise<CacheEntry>>;
  /** Bumped on every local clear: a load that started before it is not kept. */
  generation: number;
  version: number | undefined;
  checkedAtMs: number;
  checking: Promise<void> | undefined;
}

const CACHE = Symbol.for("acredita.dataEndpointCache");

function cache(): EndpointCache {
  const holder = globalThis as unknown as { [CACHE]?: EndpointCache };
  holder[CACHE] ??= { entries: new Map(), generation: 0, version: undefined, checkedAtMs: 0, checking: undefined };
  return holder[CACHE];
}

/**
 * Drops this process's cached endpoints (the store calls it after every committed change) and makes the
 * next resolution read the change counter first: otherwise the counter this process bumped itself would
 * drop the freshly loaded entries once more at the next check.
 */
export function forgetCachedEndpoints(): void {
  const state = cache();
  state.entries.clear();
  state.generation += 1;
  state.checkedAtMs = 0;
}

/**
 * Reads the endpoints' change counter when the last read is older than {@link ENDPOINTS_VERSION_CHECK_MS}
 * (one primary-key read, shared by concurrent deliveries) and drops the cache when another process
 * changed an endpoint or a secret. A failed read leaves the cache as it is and tries again next time.
 */
async function refreshIfStale(db: Db): Promise<void> {
  const state = cache();
  if (Date.now() - state.checkedAtMs < ENDPOINTS_VERSION_CHECK_MS) return;
  state.checking ??= (async () => {
    try {
      const rows = await driverOf(db).all<{ version: number | bigint }>(`SELECT "version" FROM "ConfigVersion" WHERE "name" = ?`, [ENDPOINTS_CONFIG]);
      const version = rows.length === 0 ? 0 : Number(rows[0].version);
      if (state.version !== undefined && state.version !== version) forgetCachedEndpoints();
      state.version = version;
      state.checkedAtMs = Date.now();
    } finally {
      state.checking = undefined;
    }
  })();
  await state.checking;
}

interface JoinedRow {
  id: string;
  organizationId: string;
  provider: string;
  account: string;
  livemode: boolean | number | bigint;
  processingMode: string;
  options: string | null;
  status: string;
  connect: boolean | number | bigint;
  deletedAt: Date | string | number | null;
  secretId: string | null;
  label: string | null;
  ciphertext: string | null;
  secretCreatedAt: Date | string | number | null;
  expiresAt: Date | string | number | null;
  retiredAt: Date | string | number | null;
  lastMatchedAt: Date | string | number | null;
}

/**
 * The endpoint and its secrets in ONE statement: a primary-key read of Endpoint joined to its secrets
 * through the (endpointId, label) unique index. Erased secrets (a deleted endpoint's) are left out.
 */
const LOAD_SQL = `SELECT e."id", e."organizationId", e."provider", e."account", e."livemode", e."processingMode", e."options", e."status", e."connect", e."deletedAt",
  s."id" AS "secretId", s."label", s."ciphertext", s."createdAt" AS "secretCreatedAt", s."expiresAt", s."retiredAt", s."lastMatchedAt"
  FROM "Endpoint" e LEFT JOIN "EndpointSecret" s ON s."endpointId" = e."id" AND s."ciphertext" IS NOT NULL
  WHERE e."id" = ?`;

/**
 * A Connect endpoint's bindings, read with it on a cache miss (a second statement, for Connect endpoints
 * only): a delivery then routes its event's account from memory. Every bind and unbind moves the
 * endpoints' change counter (lib/endpoints/connect-bindings.ts), which drops this copy.
 */
const BINDINGS_SQL = `SELECT "account", "organizationId" FROM "ConnectBinding" WHERE "endpointId" = ?`;

/** Builds a cache entry from the joined rows (and a Connect endpoint's bindings): decrypts every secret and validates the options. */
function entryOf(id: string, rows: JoinedRow[], bindings?: { account: string; organizationId: string }[]): CacheEntry {
  const row = rows[0];
  if (!row || row.deletedAt !== null) return { kind: "absent" };
  const issues: string[] = [];
  const provider = row.provider as ProviderName;
  const module = providers[provider];
  if (!module) return { kind: "misconfigured", issues: [`endpoint ${id}: provider ${row.provider.slice(0, 40)} is not one this version knows`] };
  let options: unknown = undefined;
  if (module.optionsSchema) {
    try {
      const parsed = module.optionsSchema.safeParse(row.options === null ? undefined : JSON.parse(row.options));
      if (parsed.success) options = parsed.data;
      else issues.push(`endpoint ${id}: its stored options are invalid`);
    } catch {
      issues.push(`endpoint ${id}: its stored options are not JSON`);
    }
  }
  let keys;
  try {
    keys = secretsKeys();
  } catch (error) {
    return { kind: "misconfigured", issues: [`endpoint ${id}: ${errorMessage(error)}`] };
  }
  const secrets: CachedSecret[] = [];
  for (const secretRow of rows) {
    if (secretRow.secretId === null || secretRow.label === null || secretRow.ciphertext === null) continue;
    try {
      secrets.push({
        id: secretRow.secretId,
        label: secretRow.label,
        value: decryptSecret(secretRow.ciphertext, secretContext(id, secretRow.label), keys),
        createdAt: sqlDate(secretRow.secretCreatedAt) ?? new Date(0),
        expiresAt: sqlDate(secretRow.expiresAt),
        retiredAt: sqlDate(secretRow.retiredAt),
        lastMatchedAt: sqlDate(secretRow.lastMatchedAt),
      });
    } catch (error) {
      issues.push(`endpoint ${id}: signing secret ${secretRow.label} cannot be decrypted: ${errorMessage(error)}`);
    }
  }
  if (issues.length > 0) return { kind: "misconfigured", issues };
  secrets.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.label.localeCompare(a.label));
  return {
    kind: "found",
    endpoint: {
      id,
      organizationId: row.organizationId,
      provider,
      account: row.account,
      livemode: sqliteBoolean(row.livemode),
      mode: row.processingMode === "inline" ? "inline" : "inbox",
      options,
      status: row.status === "disabled" ? "disabled" : "enabled",
      secrets,
      ...(sqliteBoolean(row.connect) ? { connect: { bindings: new Map((bindings ?? []).map((binding) => [binding.account, binding.organizationId])) } } : {}),
    },
  };
}

/** Loads one endpoint's entry: its row and secrets in one statement, then a Connect endpoint's bindings. */
async function loadEntry(db: Db, id: string): Promise<CacheEntry> {
  const driver = driverOf(db);
  const rows = await driver.all<JoinedRow>(LOAD_SQL, [id]);
  const connect = rows.length > 0 && rows[0].deletedAt === null && sqliteBoolean(rows[0].connect);
  return entryOf(id, rows, connect ? await driver.all<{ account: string; organizationId: string }>(BINDINGS_SQL, [id]) : undefined);
}

/** The cached entry of `id`, loading it (one statement, shared by concurrent deliveries) on a miss. */
function cachedEntry(db: Db, id: string): Promise<CacheEntry> {
  const state = cache();
  const hit = state.entries.get(id);
  if (hit) return hit;
  const generation = state.generation;
  const loading = loadEntry(db, id);
  if (state.entries.size >= MAX_CACHED_ENDPOINTS) state.entries.delete(state.entries.keys().next().value as string);
  state.entries.set(id, loading);
  // A failed read is not kept; a load that a change overtook is not kept either (the next delivery reads again).
  loading.then(
    () => {
      if (state.generation !== generation && state.entries.get(id) === loading) state.entries.delete(id);
    },
    () => {
      if (state.entries.get(id) === loading) state.entries.delete(id);
    },
  );
  return loading;
}

/** True when a secret verifies deliveries at `now`: not retired, and its expiry (if any) still ahead. */
export function isActiveSecret(secret: { expiresAt: Date | null; retiredAt: Date | null }, now: Date): boolean {
  return secret.retiredAt === null && (secret.expiresAt === null || secret.expiresAt.getTime() > now.getTime());
}

/**
 * The endpoint as a delivery at `now` verifies against: its active secrets (any may match), and the
 * newest {@link MAX_DIAGNOSED_OLD_SECRETS} it no longer accepts, for the diagnosis only (an expired one
 * carries its expiry, so a refusal says "expired" and when).
 */
function servedAt(endpoint: CachedEndpoint, now: Date): ServedEndpoint {
  const secrets: SigningSecret[] = [];
  const old: SigningSecret[] = [];
  for (const secret of endpoint.secrets) {
    if (isActiveSecret(secret, now)) secrets.push({ label: secret.label, value: secret.value });
    else if (old.length < MAX_DIAGNOSED_OLD_SECRETS) old.push({ label: secret.label, value: secret.value, ...(secret.retiredAt === null && secret.expiresAt ? { expiredAt: secret.expiresAt } : {}) });
  }
  return {
    name: endpoint.id,
    organizationId: endpoint.organizationId,
    provider: endpoint.provider,
    account: endpoint.account,
    livemode: endpoint.livemode,
    mode: endpoint.mode,
    options: endpoint.options,
    secrets,
    retiredSecrets: old,
    toleranceSeconds: settings().WEBHOOK_TOLERANCE_SECONDS,
    ...(endpoint.connect ? { connect: endpoint.connect } : {}),
  };
}

/**
 * Resolves a data endpoint by id for a delivery at `now`: from the process's cache, refreshed when the
 * endpoints' change counter moved (read at most once per {@link ENDPOINTS_VERSION_CHECK_MS}); a miss costs
 * one indexed read (endpoint and secrets in one statement). Returns `served` (with the secrets active at
 * `now`), `disabled`, `unknown` (no such id, or deleted) or `misconfigured` (a secret that no key of
 * ACREDITA_SECRETS_KEY decrypts, stored options this version refuses: issues name the endpoint and the
 * secret's label, never a value). Throws database errors.
 */
export async function resolveDataEndpoint(db: Db, id: string, now: Date): Promise<DataEndpointResolution> {
  await refreshIfStale(db);
  const entry = await cachedEntry(db, id);
  if (entry.kind === "absent") return { kind: "unknown" };
  if (entry.kind === "misconfigured") return entry;
  const { endpoint } = entry;
  return { kind: endpoint.status === "disabled" ? "disabled" : "served", endpoint: servedAt(endpoint, now), organizationId: endpoint.organizationId };
}

/**
 * Records that `label` of data endpoint `endpointId` verified a delivery at `now`: writes the secret's
 * lastMatchedAt when this process has not written it (or seen it written) within
 * {@link LAST_MATCHED_WRITE_MS}, so a busy endpoint costs one write a minute, not one per delivery. A later
 * time written by another process is kept. Never throws: a failed write is logged, the delivery goes on.
 */
export async function noteSecretMatched(db: Db, endpointId: string, label: string, now: Date): Promise<void> {
  const pending = cache().entries.get(endpointId);
  const entry = pending ? await pending.catch(() => undefined) : undefined;
  if (entry?.kind !== "found") return;
  const secret = entry.endpoint.secrets.find((candidate) => candidate.label === label);
  if (!secret) return;
  if (secret.lastMatchedAt && now.getTime() - secret.lastMatchedAt.getTime() < LAST_MATCHED_WRITE_MS) return;
  secret.lastMatchedAt = now;
  try {
    await db.endpointSecret.updateMany({ where: { id: secret.id, OR: [{ lastMatchedAt: null }, { lastMatchedAt: { lt: now } }] }, data: { lastMatchedAt: now } });
  } catch (error) {
    logger.warn({ err: errorMessage(error), endpoint: endpointId, secretLabel: label }, "could not record when a signing secret last matched");
  }
}

/**
 * Any endpoint by its URL name for work that is not a delivery (a dead letter's retry): a data endpoint
 * (enabled or disabled: the event was verified when it arrived) or an environment-configured one.
 * Returns undefined for an unknown or deleted one. Throws {@link EndpointConfigError} when it is
 * misconfigured, and database errors.
 */
export async function resolveAnyEndpoint(db: Db, name: string, now: Date): Promise<ServedEndpoint | undefined> {
  if (!isDataEndpointId(name)) return resolveEndpoint(name);
  const resolved = await resolveDataEndpoint(db, name, now);
  if (resolved.kind === "misconfigured") throw new EndpointConfigError(resolved.issues);
  return resolved.kind === "unknown" ? undefined : resolved.endpoint;
}
