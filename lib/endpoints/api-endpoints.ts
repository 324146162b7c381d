// The endpoints Acredita may call the provider's API for (backfills, the gap check, settlement pulls):
// Stripe endpoints that hold an API key, configured in the environment (STRIPE_API_KEY,
// STRIPE_TEST_API_KEY) or stored as data (the key encrypted on the endpoint's row). The key is decrypted
// here, for the call, and never leaves the process.
import type { Db } from "@/lib/db/client";
import { routeConnectEvent } from "@/lib/endpoints/connect-routing";
import { isDataEndpointId } from "@/lib/endpoints/data-endpoint-ids";
import { resolveDataEndpoint } from "@/lib/endpoints/data-endpoints";
import { apiKeyContext } from "@/lib/endpoints/endpoint-store";
import { endpointApiKey, endpointDefinitions, EndpointConfigError, resolveEndpoint, stripeApiEndpoint, type ApiEndpointProblem, type ServedEndpoint } from "@/lib/endpoints/endpoints";
import { errorMessage } from "@/lib/log/error-message";
import { logger } from "@/lib/log/logger";
import { decryptSecret, SecretDecryptError } from "@/lib/secrets/secret-box";
import { SECRETS_KEY_ENV, secretsKeys } from "@/lib/secrets/secrets-key";

/** An endpoint the provider's API can be asked about: served, a Stripe one, with its API key. */
export interface ApiEndpoint {
  endpoint: ServedEndpoint;
  apiKey: string;
  /** What names the key in messages (`STRIPE_API_KEY`, `the API key of endpoint ep_…`), never its value. */
  keyLabel: string;
  /** Stripe Connect: the bound connected account the calls are made for (`Stripe-Account`); `endpoint` is then as its events are received (its organization, its account). */
  stripeAccount?: string;
}

/**
 * `targets` with, after each Stripe Connect endpoint, one target per connected account bound to an
 * organization: the calls are made on its behalf (`Stripe-Account`) with the platform's key, and what
 * they fetch belongs to the account's organization and scope, as its deliveries do
 * (lib/endpoints/connect-routing.ts). An unbound account gets none.
 */
export function withConnectedAccounts(targets: readonly ApiEndpoint[]): ApiEndpoint[] {
  return targets.flatMap((target) => {
    const accounts = target.endpoint.connect && !target.stripeAccount ? [...target.endpoint.connect.bindings.keys()].sort() : [];
    return [target, ...accounts.map((account) => ({ ...target, endpoint: routeConnectEvent(target.endpoint, account), stripeAccount: account }))];
  });
}

/** The label a data endpoint's key goes by in messages. */
const dataKeyLabel = (id: string) => `the API key of endpoint ${id}`;

/**
 * The environment-configured endpoints a backfill or the gap check can serve: the Stripe ones that are
 * served here (their signing secret set) and hold an API key (STRIPE_API_KEY, STRIPE_TEST_API_KEY).
 * A misconfigured endpoint is left out (the start check names it).
 */
export function environmentApiEndpoints(env: Record<string, string | undefined> = process.env): ApiEndpoint[] {
  const found: ApiEndpoint[] = [];
  for (const definition of endpointDefinitions(env)) {
    if (definition.provider !== "stripe" || !definition.apiKeyEnv) continue;
    const key = endpointApiKey(definition.name, env);
    if (!key) continue;
    let endpoint: ServedEndpoint | undefined;
    try {
      endpoint = resolveEndpoint(definition.name, env);
    } catch {
      continue;
    }
    if (endpoint) found.push({ endpoint, ...key });
  }
  return found;
}

/**
 * One data endpoint with its decrypted API key, or why it cannot be called for: `unknown` (no such id,
 * or deleted), `disabled` (with `allowDisabled` false), `misconfigured`, `provider` (not Stripe),
 * `no_key`, `undecryptable` (no key of ACREDITA_SECRETS_KEY opens it). Throws database errors.
 */
async function dataApiEndpoint(
  db: Db,
  id: string,
  now: Date,
  options: { allowDisabled: boolean },
): Promise<{ target: ApiEndpoint } | { problem: "unknown" | "disabled" | "provider" | "no_key" | "undecryptable" } | { problem: "misconfigured"; issues: string[] }> {
  const resolved = await resolveDataEndpoint(db, id, now);
  if (resolved.kind === "unknown") return { problem: "unknown" };
  if (resolved.kind === "misconfigured") return { problem: "misconfigured", issues: resolved.issues };
  if (resolved.kind === "disabled" && !options.allowDisabled) return { problem: "disabled" };
  if (resolved.endpoint.provider !== "stripe") return { problem: "provider" };
  const row = await db.endpoint.findFirst({ where: { id, deletedAt: null }, select: { apiKeyCiphertext: true } });
  if (!row?.apiKeyCiphertext) return { problem: "no_key" };
  try {
    return { target: { endpoint: resolved.endpoint, apiKey: decryptSecret(row.apiKeyCiphertext, apiKeyContext(id), secretsKeys()), keyLabel: dataKeyLabel(id) } };
  } catch (error) {
    if (error instanceof SecretDecryptError) return { problem: "undecryptable" };
    throw error;
  }
}

/**
 * Every endpoint the scheduled work calls the provider's API for (the gap check, the daily settlement
 * pulls): the environment-configured ones ({@link environmentApiEndpoints}) and the enabled data Stripe
 * endpoints of every organization that hold an API key. A data endpoint whose key no listed key
 * decrypts, or that is misconfigured, is logged and left out (the start check names it). Throws
 * database errors.
 */
export async function apiEndpoints(db: Db, options: { env?: Record<string, string | undefined>; now?: Date } = {}): Promise<ApiEndpoint[]> {
  const now = options.now ?? new Date();
  const found = environmentApiEndpoints(options.env);
  const rows = await db.endpoint.findMany({ where: { provider: "stripe", status: "enabled", deletedAt: null, apiKeyCiphertext: { not: null } }, select: { id: true }, orderBy: { id: "asc" } });
  for (const { id } of rows) {
    const loaded = await dataApiEndpoint(db, id, now, { allowDisabled: false }).catch((error: unknown) => ({ problem: "misconfigured" as const, issues: [errorMessage(error)] }));
    if ("target" in loaded) found.push(loaded.target);
    else if (loaded.problem !== "disabled" && loaded.problem !== "unknown") logger.error({ endpoint: id, problem: loaded.problem }, "an endpoint's API key cannot be used: its backfills and settlement pulls are skipped");
  }
  return found;
}

/**
 * {@link stripeApiTarget} for an environment-configured endpoint, which needs no database (a command
 * refuses one before it opens its database); undefined for a data endpoint's id, read by
 * {@link stripeApiTarget}.
 */
export function environmentApiTarget(name: string, env: Record<string, string | undefined>, use: string, keyReads: string): { target: ApiEndpoint } | { refusal: string; problem: ApiEndpointProblem } | undefined {
  if (isDataEndpointId(name)) return undefined;
  const found = stripeApiEndpoint(name, env, use, keyReads);
  return "refusal" in found ? found : { target: { endpoint: found.endpoint, ...found.key } };
}

/**
 * The Stripe endpoint a command or a dashboard request calls Stripe's API for (`npm run backfill`,
 * `npm run settlement-pull`, the Endpoints page's backfill), by name (environment-configured:
 * {@link stripeApiEndpoint}) or data endpoint id (any organization: the caller scopes; a disabled one
 * is allowed, its events are fetched for when it is enabled again), with its API key; or the sentence
 * saying why it cannot be. `use` names what the command reads ("a backfill reads Stripe's API only");
 * `keyReads` what the restricted key must be allowed to read ("events"). Refusals name variables and
 * endpoints, never a key. Throws database errors.
 */
export async function stripeApiTarget(
  db: Db,
  name: string,
  env: Record<string, string | undefined>,
  use: string,
  keyReads: string,
  now: Date = new Date(),
): Promise<{ target: ApiEndpoint } | { refusal: string; problem: ApiEndpointProblem }> {
  const configured = environmentApiTarget(name, env, use, keyReads);
  if (configured) return configured;
  let loaded: Awaited<ReturnType<typeof dataApiEndpoint>>;
  try {
    loaded = await dataApiEndpoint(db, name, now, { allowDisabled: true });
  } catch (error) {
    if (!(error instanceof EndpointConfigError)) throw error;
    loaded = { problem: "misconfigured", issues: error.issues };
  }
  if ("target" in loaded) return loaded;
  switch (loaded.problem) {
    case "unknown":
    case "disabled":
      return { problem: "unknown", refusal: `no endpoint ${name} (unknown, or deleted)` };
    case "misconfigured":
      return { problem: "misconfigured", refusal: `endpoint ${name} is misconfigured: ${loaded.issues.join("; ")}` };
    case "provider":
      return { problem: "provider", refusal: `endpoint ${name} is not a Stripe endpoint; ${use}` };
    case "no_key":
      return { problem: "no_key", refusal: `endpoint ${name} holds no API key: set a restricted key with read access to ${keyReads} (PUT /api/endpoints/${name}/api-key, or the Endpoints page)` };
    default:
      return { problem: "undecryptable", refusal: `the API key of endpoint ${name} does not decrypt under ${SECRETS_KEY_ENV}: set it to the key it was stored with, or set the API key again` };
  }
}
