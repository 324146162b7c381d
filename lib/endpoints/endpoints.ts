import { z } from "zod";
import { DEMO_ENDPOINT_SECRET_VALUES, DEMO_SECRET_LABEL_SUFFIX, DEMO_SECRETS, holdsPublicDemoValue, runMode, settingFrom } from "@/lib/config/settings";
import { providers } from "@/lib/providers/registry";
import { DEFAULT_ORGANIZATION } from "@/lib/organizations/default-organization";
import type { ProviderName } from "@/lib/core/effect";
import type { SigningSecret, VerificationKeys } from "@/lib/providers/types";

/** inline: verify, store and apply in one transaction before answering. inbox: store, answer, apply in a worker. */
export type ProcessingMode = "inline" | "inbox";

/**
 * One URL a provider posts to (`POST /api/webhooks/{name}`). Secrets are never written here: the
 * definition names the environment variables that hold them (comma-separated during rotation).
 */
export interface EndpointDefinition {
  name: string;
  provider: ProviderName;
  /** The merchant account / provider organisation this endpoint is bound to (scopes event ids; a payload naming another is refused). */
  account: string;
  /**
   * Environment variable the account comes from (STRIPE_ACCOUNT_ID, ...), when it is the operator's to
   * set: production refuses to serve the endpoint while it is unset or holds a demo account name.
   */
  accountEnv?: string;
  /** Live or test: events of the other kind are stored and have no effect. */
  livemode: boolean;
  mode: ProcessingMode;
  /** Environment variable holding the active signing secrets, comma-separated, trimmed. */
  secretsEnv: string;
  /** Environment variable holding retired secrets: never accepted, only named in a rejection's diagnosis. */
  retiredSecretsEnv?: string;
  /** Public demo secret used while `secretsEnv` is unset in demo mode only (documented in the README; refused in production). */
  demoSecrets?: string;
  /** Timestamp window in seconds for providers that sign a timestamp (default WEBHOOK_TOLERANCE_SECONDS). */
  toleranceSeconds?: number;
  /** Provider-specific options, validated by the provider module's schema when the endpoints are loaded. */
  options?: unknown;
  /** Environment variable holding the provider API key of this endpoint's account and mode (a Stripe restricted key with read access to events), for a backfill; never logged or shown. */
  apiKeyEnv?: string;
}

/** An endpoint ready for use: its definition with validated options, loaded secrets and tolerance (seconds). */
export interface Endpoint extends Omit<EndpointDefinition, "toleranceSeconds">, VerificationKeys {
  /** Always the default organization's: the environment configures one merchant's endpoints. */
  organizationId: string;
}

/**
 * What the delivery pipeline needs of an endpoint, configured in the environment ({@link Endpoint}) or
 * stored as data (lib/endpoints/data-endpoints.ts): its URL name (a data endpoint's id), scope,
 * processing mode, validated options and the secrets that verify a delivery now.
 */
export interface ServedEndpoint extends VerificationKeys {
  name: string;
  /** The organization that owns it and every event, order and entry it brings (environment endpoints: the default one). */
  organizationId: string;
  provider: ProviderName;
  account: string;
  livemode: boolean;
  mode: ProcessingMode;
  options?: unknown;
  /**
   * On a Stripe Connect endpoint only: its connected accounts' bindings (account to organization id),
   * read from the process's cache with the endpoint (lib/endpoints/data-endpoints.ts), so routing an
   * event costs no read (lib/endpoints/connect-routing.ts).
   */
  connect?: { bindings: ReadonlyMap<string, string> };
}

/**
 * The documented default field mapping of a Standard Webhooks endpoint (docs/providers.md): the
 * spec's recommended envelope, e.g. {"type":"payment.succeeded","timestamp":"...","data":{"payment_id":
 * "pay_1","order_id":"ord_1","amount":2500,"currency":"USD"}}. The environment-configured endpoint uses
 * it, and so does a data endpoint created without options.
 */
export const STANDARD_WEBHOOKS_DEFAULT_OPTIONS = {
  fields: {
    type: "$.type",
    orderId: "$.data.order_id",
    paymentId: "$.data.payment_id",
    amount: "$.data.amount",
    currency: "$.data.currency",
    refundedTotal: "$.data.amount_refunded",
    livemode: "$.data.livemode",
    customerEmail: "$.data.customer_email",
  },
  eventTypes: { payment: ["payment.succeeded"], refund: ["payment.refunded"], paymentFailed: ["payment.failed"] },
} as const;

/**
 * Public demo secrets of the shipped endpoints, used only in demo mode (`npm run demo`) while their
 * environment variable is unset. They are in the README on purpose, so a fresh clone can be exercised;
 * production refuses them even when set explicitly.
 */
export const DEMO_ENDPOINT_SECRETS = { LAB_WEBHOOK_SECRET: DEMO_SECRETS.LAB_WEBHOOK_SECRET, ...DEMO_ENDPOINT_SECRET_VALUES } as const;

/**
 * Accounts of the demo endpoints (override with STRIPE_ACCOUNT_ID, YOLFI_ORG_ID, STANDARD_WEBHOOKS_ACCOUNT).
 * Demo mode only: production refuses an enabled endpoint whose account variable is unset or holds one
 * of these, since the account ends up in every payment key and reconciliation scope.
 */
export const DEMO_ACCOUNTS = {
  stripe: "acct_acredita_demo",
  yolfi: "org_acredita_demo",
  standardWebhooks: "acredita-demo",
} as const;

/**
 * The configured endpoints. This list is the one documented place where endpoints are defined
 * (docs/providers.md); secrets live only in the environment. The providers' endpoints
 * run in `inbox` mode unless WEBHOOK_PROCESSING_MODE=inline (Stripe and Yolfi ask for a fast 2xx and
 * slow work later); the lab runs `inline` unless LAB_PROCESSING_MODE=inbox. Read per call, so a test
 * may switch modes; the start command validates both values (lib/config/settings.ts).
 */
export function endpointDefinitions(env: Record<string, string | undefined> = process.env): EndpointDefinition[] {
  const yolfiOrg = env.YOLFI_ORG_ID?.trim() || DEMO_ACCOUNTS.yolfi;
  const providerMode: ProcessingMode = env.WEBHOOK_PROCESSING_MODE?.trim() === "inline" ? "inline" : "inbox";
  return [
    {
      name: "lab",
      provider: "lab",
      account: "lab",
      livemode: true,
      mode: env.LAB_PROCESSING_MODE?.trim() === "inbox" ? "inbox" : "inline",
      secretsEnv: "LAB_WEBHOOK_SECRET",
      retiredSecretsEnv: "LAB_WEBHOOK_RETIRED_SECRETS",
      demoSecrets: DEMO_ENDPOINT_SECRETS.LAB_WEBHOOK_SECRET,
    },
    {
      name: "stripe",
      provider: "stripe",
      account: env.STRIPE_ACCOUNT_ID?.trim() || DEMO_ACCOUNTS.stripe,
      accountEnv: "STRIPE_ACCOUNT_ID",
      livemode: true,
      mode: providerMode,
      secretsEnv: "STRIPE_WEBHOOK_SECRET",
      retiredSecretsEnv: "STRIPE_WEBHOOK_RETIRED_SECRETS",
      apiKeyEnv: "STRIPE_API_KEY",
      demoSecrets: DEMO_ENDPOINT_SECRETS.STRIPE_WEBHOOK_SECRET,
    },
    {
      name: "stripe-test",
      provider: "stripe",
      account: env.STRIPE_ACCOUNT_ID?.trim() || DEMO_ACCOUNTS.stripe,
      accountEnv: "STRIPE_ACCOUNT_ID",
      livemode: false,
      mode: providerMode,
      secretsEnv: "STRIPE_TEST_WEBHOOK_SECRET",
      retiredSecretsEnv: "STRIPE_TEST_WEBHOOK_RETIRED_SECRETS",
      apiKeyEnv: "STRIPE_TEST_API_KEY",
      demoSecrets: DEMO_ENDPOINT_SECRETS.STRIPE_TEST_WEBHOOK_SECRET,
    },
    {
      name: "yolfi",
      provider: "yolfi",
      account: yolfiOrg,
      accountEnv: "YOLFI_ORG_ID",
      livemode: true,
      mode: providerMode,
      secretsEnv: "YOLFI_WEBHOOK_SECRET",
      retiredSecretsEnv: "YOLFI_WEBHOOK_RETIRED_SECRETS",
      demoSecrets: DEMO_ENDPOINT_SECRETS.YOLFI_WEBHOOK_SECRET,
    },
    {
      name: "yolfi-test",
      provider: "yolfi",
      account: yolfiOrg,
      accountEnv: "YOLFI_ORG_ID",
      livemode: false,
      mode: providerMode,
      secretsEnv: "YOLFI_TEST_WEBHOOK_SECRET",
      retiredSecretsEnv: "YOLFI_TEST_WEBHOOK_RETIRED_SECRETS",
      demoSecrets: DEMO_ENDPOINT_SECRETS.YOLFI_TEST_WEBHOOK_SECRET,
    },
    {
      name: "standard-webhooks",
      provider: "standard-webhooks",
      account: env.STANDARD_WEBHOOKS_ACCOUNT?.trim() || DEMO_ACCOUNTS.standardWebhooks,
      accountEnv: "STANDARD_WEBHOOKS_ACCOUNT",
      livemode: true,
      mode: providerMode,
      secretsEnv: "STANDARD_WEBHOOKS_SECRET",
      retiredSecretsEnv: "STANDARD_WEBHOOKS_RETIRED_SECRETS",
      demoSecrets: DEMO_ENDPOINT_SECRETS.STANDARD_WEBHOOKS_SECRET,
      options: STANDARD_WEBHOOKS_DEFAULT_OPTIONS,
    },
  ];
}

const envNameSchema = z.string().regex(/^[A-Z][A-Z0-9_]{0,63}$/, "must be an environment variable name (A-Z, 0-9, _)");

/** An endpoint's provider account: it is part of the ledger's business keys, whose parts are separated by colons. */
export const endpointAccountSchema = z.string().min(1).max(255).regex(/^[^:\s]+$/, "must not contain a colon or whitespace");

/**
 * What is wrong with a signing secret for `provider`, or undefined: at least 8 characters, and the
 * provider's own format (a Standard Webhooks secret is `whsec_` + base64). Never echoes the value.
 */
export function signingSecretProblem(provider: ProviderName, value: string): string | undefined {
  return value.length < 8 ? "needs at least 8 characters" : providers[provider].checkSecret?.(value);
}

const definitionSchema = z.object({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "must be lower-case letters, digits and dashes (it is a URL segment)"),
  provider: z.enum(Object.keys(providers) as [ProviderName, ...ProviderName[]]),
  account: endpointAccountSchema,
  livemode: z.boolean(),
  mode: z.enum(["inline", "inbox"]),
  accountEnv: envNameSchema.optional(),
  secretsEnv: envNameSchema,
  retiredSecretsEnv: envNameSchema.optional(),
  demoSecrets: z.string().optional(),
  toleranceSeconds: z.number().int().min(1).max(86_400).optional(),
  options: z.unknown().optional(),
});

/** Raised when an endpoint definition, its options or its secrets are invalid; names the endpoint and variable, never a value. */
export class EndpointConfigError extends Error {
  constructor(public readonly issues: string[]) {
    super(`invalid webhook endpoint configuration: ${issues.join("; ")}`);
    this.name = "EndpointConfigError";
  }
}

/** Splits a comma-separated secret list, trimming stray whitespace; labels are `<ENV>[<position>]`. */
export function loadSecrets(envName: string, raw: string | string[]): SigningSecret[] {
  const values = Array.isArray(raw) ? raw : raw.split(",");
  return values
    .map((value) => value.trim())
    .filter((value) => value.length > 0)
    .map((value, index) => ({ label: `${envName}[${index}]`, value }));
}

/** Why an endpoint is not served: its secrets variable is unset outside demo mode. */
export interface DisabledEndpoint {
  definition: EndpointDefinition;
  reason: string;
}

/**
 * The raw secrets of an endpoint: its variable when set; in demo mode its public demo secret;
 * otherwise undefined (the endpoint is not configured, so it is not served).
 */
function rawSecretsOf(definition: EndpointDefinition, env: Record<string, string | undefined>): { raw: string; demo: boolean } | undefined {
  const own = env[definition.secretsEnv];
  if (own?.trim()) return { raw: own, demo: false };
  return runMode(env) === "demo" && definition.demoSecrets ? { raw: definition.demoSecrets, demo: true } : undefined;
}

/** The demo accounts as a set, for {@link productionAccountIssue}. */
const DEMO_ACCOUNT_NAMES: ReadonlySet<string> = new Set(Object.values(DEMO_ACCOUNTS));

/** True when `account` is one of {@link DEMO_ACCOUNTS}: production binds no endpoint to one. */
export function isDemoAccount(account: string): boolean {
  return DEMO_ACCOUNT_NAMES.has(account);
}

/**
 * Production's rule for an endpoint that is served (its secrets are set): the account it is bound to
 * must be the operator's own, read from its variable, never the demo default. The account scopes every
 * event id, payment key and reconciliation run, so a silent default would mix the demo's scope into
 * real money. Returns one issue naming the endpoint and the variable (an account is not a secret, but
 * the message does not need the value either), or undefined.
 */
function productionAccountIssue(definition: EndpointDefinition, env: Record<string, string | undefined>): string | undefined {
  if (!definition.accountEnv) return undefined;
  const value = env[definition.accountEnv]?.trim();
  if (!value) return `endpoint ${definition.name}: ${definition.accountEnv} is not set; set the provider account this endpoint is bound to (required in production when ${definition.secretsEnv} is set)`;
  if (DEMO_ACCOUNT_NAMES.has(value)) return `endpoint ${definition.name}: ${definition.accountEnv} holds a demo account name; set your own provider account`;
  return undefined;
}

/**
 * Validates one definition (fields, provider options) and loads its secrets; collects problems into
 * `issues`. Returns `disabled` when the endpoint is not configured (production without its secrets).
 */
function loadEndpoint(definition: EndpointDefinition, env: Record<string, string | undefined>, issues: string[]): Endpoint | DisabledEndpoint | undefined {
  const checked = definitionSchema.safeParse(definition);
  if (!checked.success) {
    for (const issue of checked.error.issues) issues.push(`endpoint ${definition.name}: ${issue.path.join(".")}: ${issue.message}`);
    return undefined;
  }
  const provider = providers[definition.provider];
  let options: unknown = definition.options;
  if (provider.optionsSchema) {
    const parsed = provider.optionsSchema.safeParse(definition.options);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) issues.push(`endpoint ${definition.name}: options.${issue.path.join(".")}: ${issue.message}`);
      return undefined;
    }
    options = parsed.data;
  }
  const source = rawSecretsOf(definition, env);
  if (source === undefined) return { definition, reason: `disabled: ${definition.secretsEnv} is not set` };
  const { raw } = source;
  const production = runMode(env) === "production";
  if (production && holdsPublicDemoValue(raw)) {
    issues.push(`endpoint ${definition.name}: ${definition.secretsEnv} holds a public demo value (printed in the README); set your own secret`);
    return undefined;
  }
  // A public demo secret is labelled as such on everything it signed, so nothing it stored can be applied later in production.
  const secrets = source.demo ? loadSecrets(definition.secretsEnv, raw).map((secret) => ({ ...secret, label: `${definition.secretsEnv}${DEMO_SECRET_LABEL_SUFFIX}` })) : loadSecrets(definition.secretsEnv, raw);
  const retiredSecrets = definition.retiredSecretsEnv ? loadSecrets(definition.retiredSecretsEnv, env[definition.retiredSecretsEnv] ?? "") : [];
  if (secrets.length === 0) issues.push(`endpoint ${definition.name}: ${definition.secretsEnv} must hold at least one secret`);
  for (const secret of [...secrets, ...retiredSecrets]) {
    const problem = signingSecretProblem(definition.provider, secret.value);
    if (problem) issues.push(`endpoint ${definition.name}: ${secret.label} ${problem}`);
  }
  const accountProblem = production ? productionAccountIssue(definition, env) : undefined;
  if (accountProblem) issues.push(accountProblem);
  return { ...definition, organizationId: DEFAULT_ORGANIZATION.id, options, secrets, retiredSecrets, toleranceSeconds: definition.toleranceSeconds ?? settingFrom("WEBHOOK_TOLERANCE_SECONDS", env) };
}

function isDisabled(loaded: Endpoint | DisabledEndpoint | undefined): loaded is DisabledEndpoint {
  return loaded !== undefined && "reason" in loaded && "definition" in loaded;
}

/** The configured endpoints of a process: those it serves, and those it does not serve, with why. */
export interface EndpointSet {
  endpoints: Endpoint[];
  disabled: DisabledEndpoint[];
}

/**
 * Validates `definitions` and loads them: fields, provider options (zod, e.g. Standard Webhooks JSON
 * paths), unique names, and secrets (at least 8 characters, in the provider's format, never a public
 * demo value in production), and in production the account variable of every served endpoint (set,
 * and not a demo account name). An endpoint whose secrets variable is unset is served only in demo mode
 * (with its public demo secret); otherwise it is returned under `disabled`.
 * Returns the {@link EndpointSet}. Throws {@link EndpointConfigError} listing every problem.
 */
export function validateEndpoints(definitions: EndpointDefinition[], env: Record<string, string | undefined> = process.env): EndpointSet {
  const issues: string[] = [];
  const names = new Set<string>();
  for (const definition of definitions) {
    if (names.has(definition.name)) issues.push(`endpoint ${definition.name}: defined twice`);
    names.add(definition.name);
  }
  const loaded = definitions.map((definition) => loadEndpoint(definition, env, issues));
  if (issues.length > 0) throw new EndpointConfigError(issues);
  return {
    endpoints: loaded.filter((entry): entry is Endpoint => entry !== undefined && !isDisabled(entry)),
    disabled: loaded.filter(isDisabled),
  };
}

/**
 * Loads and validates every defined endpoint ({@link validateEndpoints} over
 * {@link endpointDefinitions}). The start command calls this so a wrong endpoint stops the start with
 * a message naming it. Throws {@link EndpointConfigError}.
 */
export function loadEndpoints(env: Record<string, string | undefined> = process.env): EndpointSet {
  return validateEndpoints(endpointDefinitions(env), env);
}

/**
 * The provider API key of an environment-configured endpoint: `{apiKey, keyLabel}` (the label is the
 * variable's name, for messages), or undefined when the endpoint has no `apiKeyEnv` or it is unset.
 */
export function endpointApiKey(name: string, env: Record<string, string | undefined> = process.env): { apiKey: string; keyLabel: string } | undefined {
  const variable = endpointDefinitions(env).find((candidate) => candidate.name === name)?.apiKeyEnv;
  const apiKey = variable ? env[variable]?.trim() : undefined;
  return variable && apiKey ? { apiKey, keyLabel: variable } : undefined;
}

/** Endpoints resolved by {@link resolveEndpoint}, by their definition and the variables' values they were loaded from. */
const RESOLVED = new Map<string, { endpoint: Endpoint | undefined } | { issues: string[] }>();
const MAX_RESOLVED = 64;

/**
 * Finds a served endpoint by its URL name and loads it (options validated, secrets read from the
 * environment), once per configuration: later calls with the same variables' values get the same
 * object, which callers must not change. Returns undefined for an unknown name and for an endpoint that
 * is not configured (production without its secrets), so both answer 404 alike.
 * Throws {@link EndpointConfigError} when that endpoint's configuration is invalid.
 */
export function resolveEndpoint(name: string, env: Record<string, string | undefined> = process.env): Endpoint | undefined {
  const definition = endpointDefinitions(env).find((candidate) => candidate.name === name);
  if (!definition) return undefined;
  // Every delivery resolves its endpoint: validating it costs zod parses each time, so the result is
  // kept per definition and per value of every variable loading it reads (a changed secret is a new key).
  const key = JSON.stringify([
    definition,
    env[definition.secretsEnv] ?? null,
    definition.retiredSecretsEnv ? (env[definition.retiredSecretsEnv] ?? null) : null,
    definition.accountEnv ? (env[definition.accountEnv] ?? null) : null,
    env.ACREDITA_MODE ?? null,
    env.WEBHOOK_TOLERANCE_SECONDS ?? null,
  ]);
  let loaded = RESOLVED.get(key);
  if (!loaded) {
    const issues: string[] = [];
    const endpoint = loadEndpoint(definition, env, issues);
    loaded = !endpoint || issues.length > 0 ? { issues } : { endpoint: isDisabled(endpoint) ? undefined : endpoint };
    if (RESOLVED.size >= MAX_RESOLVED) RESOLVED.clear();
    RESOLVED.set(key, loaded);
  }
  if ("issues" in loaded) throw new EndpointConfigError(loaded.issues);
  return loaded.endpoint;
}

/**
 * One line per endpoint for the start banner: URL, provider, live/test, mode, account and where its
 * secrets come from (variable name and whether the public demo value is in use; never a value), then
 * one line per endpoint that is not served and why.
 */
export function describeEndpoints(set: EndpointSet, env: Record<string, string | undefined> = process.env): string[] {
  const served = set.endpoints.map((endpoint) => {
    const source = env[endpoint.secretsEnv]?.trim() ? `${endpoint.secretsEnv} (set, ${endpoint.secrets.length} secret${endpoint.secrets.length === 1 ? "" : "s"})` : `${endpoint.secretsEnv} (PUBLIC DEMO SECRET, demo mode only)`;
    return `POST /api/webhooks/${endpoint.name.padEnd(18)} ${endpoint.provider.padEnd(17)} ${endpoint.livemode ? "live" : "test"} ${endpoint.mode.padEnd(6)} account ${endpoint.account}  ${source}`;
  });
  const disabled = set.disabled.map(({ definition, reason }) => `     /api/webhooks/${definition.name.padEnd(18)} ${definition.provider.padEnd(17)} ${definition.livemode ? "live" : "test"} ${reason} (answers 404)`);
  return [...served, ...disabled];
}

/** Why an endpoint cannot be called for: unknown (or not served, or deleted), misconfigured, another provider's, no API key, a key no listed ACREDITA_SECRETS_KEY decrypts. */
export type ApiEndpointProblem = "unknown" | "misconfigured" | "provider" | "no_key" | "undecryptable";

/**
 * The environment-configured Stripe endpoint a command calls Stripe's API for (`npm run backfill`,
 * `npm run settlement-pull`) with its API key ({@link endpointApiKey}), or the sentence saying why it
 * cannot be: a misconfigured one, one not served here, another provider's, or one whose key variable is
 * unset. A data endpoint's key is read from the database (lib/endpoints/api-endpoints.ts). `use` names what the command
 * reads ("a backfill reads Stripe's API only"); `keyReads` what the restricted key must be allowed to
 * read ("events"). The refusal names variables, never a key. Rethrows anything but {@link EndpointConfigError}.
 */
export function stripeApiEndpoint(
  name: string,
  env: Record<string, string | undefined>,
  use: string,
  keyReads: string,
): { endpoint: Endpoint; key: { apiKey: string; keyLabel: string } } | { refusal: string; problem: ApiEndpointProblem } {
  let endpoint: Endpoint | undefined;
  try {
    endpoint = resolveEndpoint(name, env);
  } catch (error) {
    if (!(error instanceof EndpointConfigError)) throw error;
    return { refusal: `endpoint ${name} is misconfigured: ${error.message}`, problem: "misconfigured" };
  }
  if (!endpoint) return { problem: "unknown", refusal: `no endpoint named ${name} is served here (its signing secret is not set, or the name is unknown)` };
  if (endpoint.provider !== "stripe") return { problem: "provider", refusal: `endpoint ${name} receives ${endpoint.provider} events; ${use}` };
  const key = endpointApiKey(name, env);
  if (!key) return { problem: "no_key", refusal: `endpoint ${name} has no API key: set ${endpoint.livemode ? "STRIPE_API_KEY" : "STRIPE_TEST_API_KEY"} to a restricted key with read access to ${keyReads}` };
  return { endpoint, key };
}
