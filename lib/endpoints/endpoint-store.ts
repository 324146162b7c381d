import { z } from "zod";
import { recordAudit } from "@/lib/audit/record-audit";
import { can } from "@/lib/auth/roles";
import { holdsPublicDemoValue, runMode } from "@/lib/config/settings";
import type { ProviderName } from "@/lib/core/effect";
import type { Db, Tx } from "@/lib/db/client";
import { generatedSigningSecret, isDataEndpointId, newDataEndpointId } from "@/lib/endpoints/data-endpoint-ids";
import { ENDPOINTS_CONFIG, forgetCachedEndpoints, isActiveSecret, secretContext } from "@/lib/endpoints/data-endpoints";
import { endpointAccountSchema, endpointDefinitions, isDemoAccount, signingSecretProblem, STANDARD_WEBHOOKS_DEFAULT_OPTIONS, type ProcessingMode } from "@/lib/endpoints/endpoints";
import { DEFAULT_ORGANIZATION } from "@/lib/organizations/organizations";
import { providers } from "@/lib/providers/registry";
import { because } from "@/lib/reasons/reason-codes";
import { encryptSecret, SecretsKeyMissingError } from "@/lib/secrets/secret-box";
import { SecretsKeyError, secretsKeys } from "@/lib/secrets/secrets-key";

/** The providers an endpoint stored as data may be of. */
export const DATA_ENDPOINT_PROVIDERS = ["stripe", "yolfi", "standard-webhooks", "lab"] as const satisfies readonly ProviderName[];

/** Default and bounds of a rotation's overlap (seconds): a day by default, at most a week. */
export const DEFAULT_OVERLAP_SECONDS = 86_400;
export const MAX_OVERLAP_SECONDS = 604_800;

/** Longest signing secret accepted (characters); providers' secrets are well under 200. */
const MAX_SECRET_LENGTH = 1_024;

/** Who changes endpoints: the operator (API_TOKEN) or a person / API key with a role; audited as `id` / `email`. */
export interface EndpointActor {
  id: string;
  email: string;
  /** True for the operator's API_TOKEN, which may also create Stripe Connect endpoints. */
  operator: boolean;
  /** The person's or key's role (absent for the operator). */
  role?: string;
}

/** `POST /api/endpoints`'s body. */
export const newEndpointSchema = z
  .object({
    provider: z.enum(DATA_ENDPOINT_PROVIDERS),
    account: endpointAccountSchema,
    livemode: z.boolean(),
    processingMode: z.enum(["inline", "inbox"]).optional(),
    options: z.unknown().optional(),
    secret: z.string().min(1).max(MAX_SECRET_LENGTH).optional(),
    connect: z.boolean().optional(),
  })
  .strict();
export type NewEndpoint = z.infer<typeof newEndpointSchema>;

/** `PATCH /api/endpoints/<id>`'s body. */
export const endpointPatchSchema = z.object({ status: z.enum(["enabled", "disabled"]) }).strict();

/** `PUT /api/endpoints/<id>/api-key`'s body: a Stripe secret or restricted key (Stripe's keys are well under 255 characters). */
export const apiKeyBodySchema = z.object({ apiKey: z.string().min(1).max(255) }).strict();

/** `POST /api/endpoints/<id>/secrets`'s body. */
export const rotationSchema = z
  .object({
    secret: z.string().min(1).max(MAX_SECRET_LENGTH).optional(),
    overlapSeconds: z.number().int().min(0).max(MAX_OVERLAP_SECONDS).optional(),
  })
  .strict();
export type Rotation = z.infer<typeof rotationSchema>;

/** A secret as the API shows it: its label and dates (ISO 8601, UTC), never its value. */
export interface SecretView {
  label: string;
  /** active: verifies deliveries; expired: its rotation's overlap ended; retired: retired by hand. */
  state: "active" | "expired" | "retired";
  createdAt: string;
  expiresAt: string | null;
  lastMatchedAt: string | null;
  retiredAt: string | null;
}

/** An endpoint as the API shows it. Never a secret value. */
export interface EndpointView {
  id: string;
  url: string;
  provider: ProviderName;
  account: string;
  livemode: boolean;
  processingMode: ProcessingMode;
  options: unknown;
  connect: boolean;
  status: "enabled" | "disabled";
  createdAt: string;
  secrets: SecretView[];
  /** The provider API key it holds (a Stripe endpoint's, for backfills and settlement pulls): when it was set, never its value; null when none. */
  apiKey: { setAt: string } | null;
}

/** What is wrong with a new endpoint or secret, as a code the dashboard words in the reader's language (the API sends `message`). */
export type EndpointProblem =
  | "secret_required"
  | "secret_short"
  | "secret_format"
  | "secret_demo"
  | "account_stripe"
  | "account_demo"
  | "options_none"
  | "options_invalid"
  | "connect_provider"
  | "api_key_provider"
  | "api_key_format"
  | "api_key_mode";

/** Why a change was refused: each maps to one HTTP status in the route (lib/api/endpoint-answers.ts). */
export type EndpointRefusal =
  | { kind: "invalid"; problem: EndpointProblem; message: string }
  | { kind: "forbidden"; problem: "role" | "connect_operator"; message: string }
  | { kind: "not_found"; message: string }
  | { kind: "conflict"; code: "last_active_secret" | "no_active_secret" | "account_taken"; message: string }
  | { kind: "secrets_key"; code: "secrets_key_missing" | "secrets_key_invalid"; message: string };

type StoredEndpoint = NonNullable<Awaited<ReturnType<typeof findEndpoint>>>;

const iso = (date: Date | null) => (date ? date.toISOString() : null);

function secretView(secret: StoredEndpoint["secrets"][number], now: Date): SecretView {
  return {
    label: secret.label,
    state: secret.retiredAt ? "retired" : isActiveSecret(secret, now) ? "active" : "expired",
    createdAt: secret.createdAt.toISOString(),
    expiresAt: iso(secret.expiresAt),
    lastMatchedAt: iso(secret.lastMatchedAt),
    retiredAt: iso(secret.retiredAt),
  };
}

function endpointView(endpoint: StoredEndpoint, now: Date): EndpointView {
  return {
    id: endpoint.id,
    url: `/api/webhooks/${endpoint.id}`,
    provider: endpoint.provider as ProviderName,
    account: endpoint.account,
    livemode: endpoint.livemode,
    processingMode: endpoint.processingMode === "inline" ? "inline" : "inbox",
    options: endpoint.options === null ? null : JSON.parse(endpoint.options),
    connect: endpoint.connect,
    status: endpoint.status === "disabled" ? "disabled" : "enabled",
    createdAt: endpoint.createdAt.toISOString(),
    secrets: endpoint.secrets.map((secret) => secretView(secret, now)),
    apiKey: endpoint.apiKeySetAt ? { setAt: endpoint.apiKeySetAt.toISOString() } : null,
  };
}

/** An organization's endpoint that is not deleted, with its secrets oldest first (no ciphertext read). */
function findEndpoint(client: Db | Tx, organizationId: string, id: string) {
  if (!isDataEndpointId(id)) return Promise.resolve(null);
  return client.endpoint.findFirst({
    where: { id, organizationId, deletedAt: null },
    omit: { apiKeyCiphertext: true },
    include: { secrets: { orderBy: [{ createdAt: "asc" }, { label: "asc" }], select: { label: true, createdAt: true, expiresAt: true, lastMatchedAt: true, retiredAt: true } } },
  });
}

/**
 * The first write of every change: bumps the endpoints' change counter, so every process drops its
 * cached endpoints within a second (lib/endpoints/data-endpoints.ts), and, being a write, takes the
 * lock that serialises concurrent changes (the last-active-secret check cannot race).
 */
async function bumpEndpointsVersion(tx: Tx): Promise<void> {
  // An UPDATE first (never a read: on SQLite a transaction that reads before it writes can lose to another process).
  const { count } = await tx.configVersion.updateMany({ where: { name: ENDPOINTS_CONFIG }, data: { version: { increment: 1 } } });
  // The migration made the row; a database restored without it gets it back.
  if (count === 0) await tx.configVersion.create({ data: { name: ENDPOINTS_CONFIG, version: 1 } });
}

/**
 * Runs a change of the endpoints' configuration (an endpoint, a secret, a Connect binding) in one
 * transaction whose first write bumps the endpoints' change counter, then drops this process's cache
 * (other processes follow within a second). Returns what `work` returns; throws the database's errors.
 */
export async function changeEndpoints<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  const result = await db.$transaction(async (tx) => {
    await bumpEndpointsVersion(tx);
    return work(tx);
  });
  forgetCachedEndpoints();
  return result;
}

const notFound = (id: string): EndpointRefusal => ({ kind: "not_found", message: `endpoint ${id.slice(0, 40)} not found` });

/** Refuses an actor who may not manage endpoints (the route checks too; the rule lives here). */
function refusedActor(actor: EndpointActor): EndpointRefusal | undefined {
  if (actor.operator || (actor.role !== undefined && can(actor.role, "endpoints.manage"))) return undefined;
  return { kind: "forbidden", problem: "role", message: "your role does not allow managing endpoints" };
}

/**
 * Checks a supplied secret for `provider` (length, the provider's format, and no public demo value in
 * production). Returns the refusal (naming the field, never the value) or undefined.
 */
function secretRefusal(provider: ProviderName, secret: string): EndpointRefusal | undefined {
  const problem = signingSecretProblem(provider, secret);
  if (problem) return { kind: "invalid", problem: secret.length < 8 ? "secret_short" : "secret_format", message: `secret: ${problem}` };
  if (runMode() === "production" && holdsPublicDemoValue(secret)) return { kind: "invalid", problem: "secret_demo", message: "secret: is a public demo value (printed in the README); use your own secret" };
  return undefined;
}

/** The secret a new endpoint or rotation gets: the one supplied, or (Standard Webhooks, lab) one made here. */
function secretFor(provider: ProviderName, supplied: string | undefined): { secret: string; generated: boolean } | EndpointRefusal {
  if (supplied !== undefined) return secretRefusal(provider, supplied) ?? { secret: supplied, generated: false };
  if (provider === "standard-webhooks" || provider === "lab") return { secret: generatedSigningSecret(provider), generated: true };
  return { kind: "invalid", problem: "secret_required", message: `secret: required for a ${provider} endpoint (the signing secret the provider shows for this endpoint)` };
}

/** The refusal when no secret can be encrypted: ACREDITA_SECRETS_KEY unset (or malformed), else undefined. */
function keysRefusal(): EndpointRefusal | undefined {
  try {
    if (secretsKeys().length > 0) return undefined;
  } catch (error) {
    if (error instanceof SecretsKeyError) return { kind: "secrets_key", code: "secrets_key_invalid", message: error.message };
    throw error;
  }
  return { kind: "secrets_key", code: "secrets_key_missing", message: new SecretsKeyMissingError().message };
}

/** Encrypts a secret for its row under the first key (checked by {@link keysRefusal} first). */
function sealed(endpointId: string, label: string, secret: string): string {
  return encryptSecret(secret, secretContext(endpointId, label), secretsKeys());
}

/**
 * The stored options of a new endpoint: validated by the provider's schema. A Standard Webhooks endpoint
 * without them gets the documented default mapping (stored, so it reads back as it is used); another
 * provider's absent options stay absent (its schema's own default applies when it is served).
 */
function optionsFor(input: NewEndpoint): { options: string | null } | EndpointRefusal {
  const schema = providers[input.provider].optionsSchema;
  if (!schema) return input.options === undefined ? { options: null } : { kind: "invalid", problem: "options_none", message: `options: a ${input.provider} endpoint takes no options` };
  const options = input.options ?? (input.provider === "standard-webhooks" ? STANDARD_WEBHOOKS_DEFAULT_OPTIONS : undefined);
  const parsed = schema.safeParse(options);
  if (!parsed.success) return { kind: "invalid", problem: "options_invalid", message: parsed.error.issues.slice(0, 5).map((issue) => `options${issue.path.map((part) => `.${String(part)}`).join("")}: ${issue.message}`).join("; ") };
  return { options: options === undefined ? null : JSON.stringify(options) };
}

/** The account rules beyond its shape: a Stripe account is an `acct_` id; production binds no endpoint to a demo account. */
function accountRefusal(input: NewEndpoint): EndpointRefusal | undefined {
  if (input.provider === "stripe" && !/^acct_[A-Za-z0-9]+$/.test(input.account)) return { kind: "invalid", problem: "account_stripe", message: "account: a Stripe account id (acct_...)" };
  if (runMode() === "production" && isDemoAccount(input.account)) return { kind: "invalid", problem: "account_demo", message: "account: is a demo account name; use your own provider account" };
  return undefined;
}

/** The processing mode of an endpoint created without one: the environment-configured endpoints' rule (lib/endpoints/endpoints.ts). */
function defaultProcessingMode(provider: ProviderName, env: Record<string, string | undefined> = process.env): ProcessingMode {
  if (provider === "lab") return env.LAB_PROCESSING_MODE?.trim() === "inbox" ? "inbox" : "inline";
  return env.WEBHOOK_PROCESSING_MODE?.trim() === "inline" ? "inline" : "inbox";
}

const isRefusal = (value: object): value is EndpointRefusal => "kind" in value && "message" in value;

/**
 * 409 `account_taken` when the provider account (provider, account, live/test) of a new endpoint is
 * already bound to another organization: by one of its endpoints that is not deleted, or, for any
 * organization but the default one, by an environment-configured endpoint (those are the default
 * organization's) whose secrets variable is set. Events are keyed by provider account (lib/core/event-key.ts),
 * so an account's events and books belong to one organization; another endpoint of the same
 * organization on the same account is allowed (moving an endpoint: docs/endpoints.md).
 */
async function accountOwnedElsewhere(tx: Tx, organizationId: string, input: NewEndpoint, env: Record<string, string | undefined> = process.env): Promise<EndpointRefusal | undefined> {
  if (!(await accountBelongsElsewhere(tx, organizationId, input, env))) return undefined;
  return { kind: "conflict", code: "account_taken", message: `account: ${input.provider} account ${input.account} (${input.livemode ? "live" : "test"}) belongs to another organization; an account's events belong to one organization` };
}

/**
 * True when a provider account and mode belong to an organization other than `organizationId`: an
 * endpoint of it that is not deleted is bound to them, a Stripe Connect endpoint (not deleted) binds
 * the account as a connected account to it (`exceptBindingOf`: except that endpoint's own binding, the
 * one a move replaces), or, for any organization but the default one,
 * an environment-configured endpoint (the default organization's) whose secrets variable is set. What
 * keeps an organization from creating an endpoint on another's account, or reconciling another's books.
 * Throws the database's errors.
 */
export async function accountBelongsElsewhere(
  client: Db | Tx,
  organizationId: string,
  scope: { provider: string; account: string; livemode: boolean },
  env: Record<string, string | undefined> = process.env,
  options: { exceptBindingOf?: string } = {},
): Promise<boolean> {
  const other = await client.endpoint.findFirst({ where: { provider: scope.provider, account: scope.account, livemode: scope.livemode, deletedAt: null, organizationId: { not: organizationId } }, select: { id: true } });
  if (other) return true;
  // A connected account bound to another organization on a Connect endpoint of the same mode (lib/endpoints/connect-bindings.ts).
  const bound = await client.connectBinding.findFirst({
    where: { account: scope.account, organizationId: { not: organizationId }, endpoint: { provider: scope.provider, livemode: scope.livemode, deletedAt: null }, ...(options.exceptBindingOf ? { endpointId: { not: options.exceptBindingOf } } : {}) },
    select: { endpointId: true },
  });
  if (bound) return true;
  return (
    organizationId !== DEFAULT_ORGANIZATION.id &&
    endpointDefinitions(env).some((definition) => definition.provider === scope.provider && definition.account === scope.account && definition.livemode === scope.livemode && Boolean(env[definition.secretsEnv]?.trim()))
  );
}

/**
 * Creates a data endpoint in `organizationId` (default: the default organization) with its first
 * signing secret (`secret-1`, encrypted at rest). Stripe and Yolfi need the provider's secret; Standard
 * Webhooks (`whsec_` + base64 of 24 random bytes) and lab (64 hex characters) get one made here unless
 * supplied. Only the operator may create a Stripe Connect endpoint. The processing mode defaults to the
 * environment-configured endpoints' rule (providers inbox unless WEBHOOK_PROCESSING_MODE=inline; the lab
 * inline). Audited as `endpoint.create`. Returns the endpoint and, when generated, the secret (shown in
 * this answer only), or a refusal: invalid (400), forbidden (403), conflict `account_taken` (409: the
 * provider account belongs to another organization), secrets_key (503: ACREDITA_SECRETS_KEY unset or malformed).
 */
export async function createEndpoint(db: Db, input: NewEndpoint, actor: EndpointActor, options: { organizationId?: string; now?: Date } = {}): Promise<{ kind: "created"; endpoint: EndpointView; secret?: string } | EndpointRefusal> {
  const refused = refusedActor(actor);
  if (refused) return refused;
  if (input.connect && input.provider !== "stripe") return { kind: "invalid", problem: "connect_provider", message: "connect: only a Stripe endpoint can be a Connect endpoint" };
  if (input.connect && !actor.operator) return { kind: "forbidden", problem: "connect_operator", message: "connect: only the operator (API_TOKEN) creates a Stripe Connect endpoint" };
  const account = accountRefusal(input);
  if (account) return account;
  const stored = optionsFor(input);
  if (isRefusal(stored)) return stored;
  const secret = secretFor(input.provider, input.secret);
  if (isRefusal(secret)) return secret;
  const noKey = keysRefusal();
  if (noKey) return noKey;
  const id = newDataEndpointId();
  const label = "secret-1";
  const ciphertext = sealed(id, label, secret.secret);
  const now = options.now ?? new Date();
  const mode: ProcessingMode = input.processingMode ?? defaultProcessingMode(input.provider);
  const organizationId = options.organizationId ?? DEFAULT_ORGANIZATION.id;
  const created = await changeEndpoints(db, async (tx): Promise<StoredEndpoint | EndpointRefusal> => {
    // After the counter's write: concurrent creations are serialised, so two organizations cannot both take an account.
    const taken = await accountOwnedElsewhere(tx, organizationId, input);
    if (taken) return taken;
    await tx.endpoint.create({
      data: { id, organizationId, provider: input.provider, account: input.account, livemode: input.livemode, processingMode: mode, options: stored.options, connect: input.connect ?? false, status: "enabled", createdAt: now, updatedAt: now },
    });
    await tx.endpointSecret.create({ data: { id: `${id}_${label}`, endpointId: id, label, ciphertext, createdAt: now } });
    await recordAudit(tx, { ...actor, organizationId }, { action: "endpoint.create", targetType: "endpoint", targetId: id, note: because("audit_endpoint_created", { provider: input.provider, account: input.account, mode: input.livemode ? "live" : "test" }) }, now);
    return (await findEndpoint(tx, organizationId, id))!;
  });
  if (isRefusal(created)) return created;
  return { kind: "created", endpoint: endpointView(created, now), ...(secret.generated ? { secret: secret.secret } : {}) };
}

/** The endpoints of an organization that are not deleted, oldest first, as {@link EndpointView}s. */
export async function listEndpoints(db: Db, options: { organizationId?: string; now?: Date } = {}): Promise<{ data: EndpointView[]; count: number }> {
  const now = options.now ?? new Date();
  const rows = await db.endpoint.findMany({
    where: { organizationId: options.organizationId ?? DEFAULT_ORGANIZATION.id, deletedAt: null },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    omit: { apiKeyCiphertext: true },
    include: { secrets: { orderBy: [{ createdAt: "asc" }, { label: "asc" }], select: { label: true, createdAt: true, expiresAt: true, lastMatchedAt: true, retiredAt: true } } },
  });
  return { data: rows.map((row) => endpointView(row, now)), count: rows.length };
}

/** One endpoint of an organization, or undefined when there is none of that id (or it was deleted). */
export async function getEndpoint(db: Db, id: string, options: { organizationId?: string; now?: Date } = {}): Promise<EndpointView | undefined> {
  const row = await findEndpoint(db, options.organizationId ?? DEFAULT_ORGANIZATION.id, id);
  return row ? endpointView(row, options.now ?? new Date()) : undefined;
}

/**
 * Enables or disables an endpoint. A disabled endpoint answers every delivery 503 with Retry-After (the
 * provider keeps the events and retries); enabling one without an active secret is refused (409
 * no_active_secret: rotate first). Takes effect on every process within a second. Audited as
 * `endpoint.status`. Returns the endpoint or a refusal (not_found, conflict, forbidden).
 */
export async function setEndpointStatus(db: Db, id: string, status: "enabled" | "disabled", actor: EndpointActor, options: { organizationId?: string; now?: Date } = {}): Promise<{ kind: "updated"; endpoint: EndpointView } | EndpointRefusal> {
  const refused = refusedActor(actor);
  if (refused) return refused;
  const now = options.now ?? new Date();
  const organizationId = options.organizationId ?? DEFAULT_ORGANIZATION.id;
  const result = await changeEndpoints(db, async (tx): Promise<StoredEndpoint | EndpointRefusal> => {
    const endpoint = await findEndpoint(tx, organizationId, id);
    if (!endpoint) return notFound(id);
    if (endpoint.status === status) return endpoint;
    if (status === "enabled" && !endpoint.secrets.some((secret) => isActiveSecret(secret, now))) {
      return { kind: "conflict", code: "no_active_secret", message: `endpoint ${id} has no active signing secret: rotate one in (POST /api/endpoints/${id}/secrets) before enabling it` };
    }
    await tx.endpoint.update({ where: { id }, data: { status, updatedAt: now } });
    await recordAudit(tx, { ...actor, organizationId }, { action: "endpoint.status", targetType: "endpoint", targetId: id, note: because("audit_endpoint_status", { status }) }, now);
    return (await findEndpoint(tx, organizationId, id))!;
  });
  return isRefusal(result) ? result : { kind: "updated", endpoint: endpointView(result, now) };
}

/**
 * Deletes an endpoint: from then on its URL answers 404 and the API does not show it. Its row stays
 * (deletedAt) so events, decisions and books keep naming it; every secret is retired and its ciphertext
 * erased, and so is its API key. Audited as `endpoint.delete`. Returns `deleted` or not_found / forbidden.
 */
export async function deleteEndpoint(db: Db, id: string, actor: EndpointActor, options: { organizationId?: string; now?: Date } = {}): Promise<{ kind: "deleted" } | EndpointRefusal> {
  const refused = refusedActor(actor);
  if (refused) return refused;
  const now = options.now ?? new Date();
  const organizationId = options.organizationId ?? DEFAULT_ORGANIZATION.id;
  return changeEndpoints(db, async (tx) => {
    const endpoint = await findEndpoint(tx, organizationId, id);
    if (!endpoint) return notFound(id);
    await tx.endpoint.update({ where: { id }, data: { deletedAt: now, updatedAt: now } });
    await tx.endpointSecret.updateMany({ where: { endpointId: id, retiredAt: null }, data: { retiredAt: now } });
    await tx.endpointSecret.updateMany({ where: { endpointId: id }, data: { ciphertext: null } });
    await tx.endpoint.update({ where: { id }, data: { apiKeyCiphertext: null, apiKeySetAt: null } });
    await recordAudit(tx, { ...actor, organizationId }, { action: "endpoint.delete", targetType: "endpoint", targetId: id, note: because("audit_endpoint_deleted", { provider: endpoint.provider, account: endpoint.account }) }, now);
    return { kind: "deleted" as const };
  });
}

/**
 * Rotates an endpoint's signing secret: adds a new one (supplied, required for Stripe and Yolfi, or made
 * here for Standard Webhooks and lab) and gives every secret active before it an expiry `overlapSeconds`
 * from now (default {@link DEFAULT_OVERLAP_SECONDS}; 0 expires them at once; an earlier expiry is kept).
 * Until then deliveries signed with either verify; after it the old ones are refused and named expired in
 * the refusal's diagnosis. Audited as `endpoint.secret_rotate`. Returns the new label, the secret when
 * generated (shown in this answer only) and `previousExpiresAt` (ISO 8601 UTC; null when no secret was
 * active), or a refusal (invalid, not_found, forbidden, secrets_key).
 */
export async function rotateSecret(db: Db, id: string, rotation: Rotation, actor: EndpointActor, options: { organizationId?: string; now?: Date } = {}): Promise<{ kind: "rotated"; label: string; secret?: string; previousExpiresAt: string | null } | EndpointRefusal> {
  const refused = refusedActor(actor);
  if (refused) return refused;
  const now = options.now ?? new Date();
  const organizationId = options.organizationId ?? DEFAULT_ORGANIZATION.id;
  const current = await findEndpoint(db, organizationId, id);
  if (!current) return notFound(id);
  const provider = current.provider as ProviderName;
  const secret = secretFor(provider, rotation.secret);
  if (isRefusal(secret)) return secret;
  const noKey = keysRefusal();
  if (noKey) return noKey;
  const overlapSeconds = rotation.overlapSeconds ?? DEFAULT_OVERLAP_SECONDS;
  const expiresAt = new Date(now.getTime() + overlapSeconds * 1000);
  const result = await changeEndpoints(db, async (tx): Promise<{ label: string; previousExpiresAt: Date | null } | EndpointRefusal> => {
    const endpoint = await findEndpoint(tx, organizationId, id);
    if (!endpoint) return notFound(id);
    // Labels are never reused: rows are only ever added (a deleted endpoint keeps its rows).
    const label = `secret-${(await tx.endpointSecret.count({ where: { endpointId: id } })) + 1}`;
    const ciphertext = sealed(id, label, secret.secret);
    const previous = endpoint.secrets.filter((stored) => isActiveSecret(stored, now));
    for (const stored of previous) {
      if (stored.expiresAt && stored.expiresAt.getTime() <= expiresAt.getTime()) continue;
      await tx.endpointSecret.update({ where: { endpointId_label: { endpointId: id, label: stored.label } }, data: { expiresAt } });
    }
    await tx.endpointSecret.create({ data: { id: `${id}_${label}`, endpointId: id, label, ciphertext, createdAt: now } });
    await recordAudit(tx, { ...actor, organizationId }, { action: "endpoint.secret_rotate", targetType: "endpoint", targetId: id, note: because("audit_endpoint_secret_rotated", { label, seconds: overlapSeconds }) }, now);
    const ends = previous.map((stored) => Math.min(stored.expiresAt?.getTime() ?? Infinity, expiresAt.getTime()));
    return { label, previousExpiresAt: ends.length > 0 ? new Date(Math.max(...ends)) : null };
  });
  if (isRefusal(result)) return result;
  return { kind: "rotated", label: result.label, ...(secret.generated ? { secret: secret.secret } : {}), previousExpiresAt: iso(result.previousExpiresAt) };
}

/**
 * Retires one secret at once (it never verifies again; a refusal signed with it is diagnosed as
 * retired). The last active secret of an enabled endpoint cannot be retired (409 last_active_secret:
 * rotate first, or disable the endpoint). Retiring a retired secret changes nothing. Audited as
 * `endpoint.secret_retire`. Returns the secret's view, or a refusal (not_found, conflict, forbidden).
 */
export async function retireSecret(db: Db, id: string, label: string, actor: EndpointActor, options: { organizationId?: string; now?: Date } = {}): Promise<{ kind: "retired"; secret: SecretView } | EndpointRefusal> {
  const refused = refusedActor(actor);
  if (refused) return refused;
  const now = options.now ?? new Date();
  const organizationId = options.organizationId ?? DEFAULT_ORGANIZATION.id;
  return changeEndpoints(db, async (tx) => {
    const endpoint = await findEndpoint(tx, organizationId, id);
    if (!endpoint) return notFound(id);
    const secret = endpoint.secrets.find((stored) => stored.label === label);
    if (!secret) return { kind: "not_found", message: `endpoint ${id} has no secret ${label.slice(0, 40)}` } satisfies EndpointRefusal;
    if (secret.retiredAt) return { kind: "retired" as const, secret: secretView(secret, now) };
    const othersActive = endpoint.secrets.some((stored) => stored.label !== label && isActiveSecret(stored, now));
    if (endpoint.status === "enabled" && isActiveSecret(secret, now) && !othersActive) {
      return { kind: "conflict", code: "last_active_secret", message: `${label} is the last active signing secret of enabled endpoint ${id}: rotate a new one in first, or disable the endpoint` } satisfies EndpointRefusal;
    }
    await tx.endpointSecret.update({ where: { endpointId_label: { endpointId: id, label } }, data: { retiredAt: now } });
    await recordAudit(tx, { ...actor, organizationId }, { action: "endpoint.secret_retire", targetType: "endpoint", targetId: id, note: because("audit_endpoint_secret_retired", { label }) }, now);
    return { kind: "retired" as const, secret: secretView({ ...secret, retiredAt: now }, now) };
  });
}

/** The context an endpoint's API key is encrypted under: its ciphertext only decrypts on its own row, never as a signing secret. */
export function apiKeyContext(endpointId: string): string {
  return secretContext(endpointId, "api-key");
}

/** Stripe's secret and restricted keys: `sk_` or `rk_`, the mode, then letters and digits. */
const STRIPE_API_KEY_PATTERN = /^(?:sk|rk)_(live|test)_[A-Za-z0-9]{8,240}$/;

/**
 * Sets (or replaces) a Stripe endpoint's API key: a restricted key with read access to events, balance
 * transactions and reports (Stripe: docs.stripe.com/keys#limit-access), used by backfills, the gap check
 * and settlement pulls, encrypted at rest like signing secrets (ACREDITA_SECRETS_KEY) and never shown
 * again. A key of the other mode (a `_test_` key on a live endpoint, or the reverse) is refused: it could
 * only list the other mode's events. Audited as `endpoint.api_key_set` (never the value). Returns the
 * endpoint or a refusal: invalid `api_key_provider` (not a Stripe endpoint), `api_key_format`,
 * `api_key_mode` (400), not_found, forbidden, secrets_key (503).
 */
export async function setEndpointApiKey(db: Db, id: string, apiKey: string, actor: EndpointActor, options: { organizationId?: string; now?: Date } = {}): Promise<{ kind: "updated"; endpoint: EndpointView } | EndpointRefusal> {
  const refused = refusedActor(actor);
  if (refused) return refused;
  const now = options.now ?? new Date();
  const organizationId = options.organizationId ?? DEFAULT_ORGANIZATION.id;
  const current = await findEndpoint(db, organizationId, id);
  if (!current) return notFound(id);
  if (current.provider !== "stripe") return { kind: "invalid", problem: "api_key_provider", message: `apiKey: only a Stripe endpoint holds an API key (this one receives ${current.provider} events)` };
  const match = STRIPE_API_KEY_PATTERN.exec(apiKey);
  if (!match) return { kind: "invalid", problem: "api_key_format", message: "apiKey: not a Stripe secret or restricted key (sk_live_..., rk_live_..., sk_test_..., rk_test_...)" };
  if ((match[1] === "live") !== current.livemode) return { kind: "invalid", problem: "api_key_mode", message: `apiKey: a ${match[1]}-mode key, but the endpoint is ${current.livemode ? "live" : "test"}; it could only list the other mode's events` };
  const noKey = keysRefusal();
  if (noKey) return noKey;
  return writeApiKey(db, id, encryptSecret(apiKey, apiKeyContext(id), secretsKeys()), actor, organizationId, now);
}

/**
 * Stores `ciphertext` as endpoint `id`'s API key (null: removes it) in one change of the endpoints'
 * configuration, audited as `endpoint.api_key_set` / `endpoint.api_key_remove`; removing none changes
 * nothing. Returns the endpoint, or not_found.
 */
async function writeApiKey(db: Db, id: string, ciphertext: string | null, actor: EndpointActor, organizationId: string, now: Date): Promise<{ kind: "updated"; endpoint: EndpointView } | EndpointRefusal> {
  const result = await changeEndpoints(db, async (tx): Promise<StoredEndpoint | EndpointRefusal> => {
    const endpoint = await findEndpoint(tx, organizationId, id);
    if (!endpoint) return notFound(id);
    if (ciphertext === null && !endpoint.apiKeySetAt) return endpoint;
    await tx.endpoint.update({ where: { id }, data: { apiKeyCiphertext: ciphertext, apiKeySetAt: ciphertext === null ? null : now, updatedAt: now } });
    const [action, reason] = ciphertext === null ? (["endpoint.api_key_remove", "audit_endpoint_api_key_removed"] as const) : (["endpoint.api_key_set", "audit_endpoint_api_key_set"] as const);
    await recordAudit(tx, { ...actor, organizationId }, { action, targetType: "endpoint", targetId: id, note: because(reason, {}) }, now);
    return (await findEndpoint(tx, organizationId, id))!;
  });
  return isRefusal(result) ? result : { kind: "updated", endpoint: endpointView(result, now) };
}

/**
 * Removes an endpoint's API key at once: backfills, the gap check and settlement pulls no longer call the
 * provider for it. Removing none changes nothing. Audited as `endpoint.api_key_remove` when one was held.
 * Returns the endpoint or a refusal (not_found, forbidden).
 */
export async function removeEndpointApiKey(db: Db, id: string, actor: EndpointActor, options: { organizationId?: string; now?: Date } = {}): Promise<{ kind: "updated"; endpoint: EndpointView } | EndpointRefusal> {
  const refused = refusedActor(actor);
  if (refused) return refused;
  return writeApiKey(db, id, null, actor, options.organizationId ?? DEFAULT_ORGANIZATION.id, options.now ?? new Date());
}
