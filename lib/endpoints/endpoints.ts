import { settings } from "@/lib/config/settings";
import type { ProviderName, SigningSecret } from "@/lib/webhooks/types";

/** inline: verify, store and apply in one transaction before answering. inbox: store, answer, apply in a worker. */
export type ProcessingMode = "inline" | "inbox";

/**
 * One URL a provider posts to (`POST /api/webhooks/{name}`). Secrets are never written here: the
 * definition names the environment variable that holds them (comma-separated during rotation).
 */
export interface EndpointDefinition {
  name: string;
  provider: ProviderName;
  /** The merchant account / provider organisation this endpoint is bound to (scopes event ids). */
  account: string;
  /** Live or test: events of the other kind are stored and have no effect. */
  livemode: boolean;
  mode: ProcessingMode;
  /** Environment variable holding the signing secrets. */
  secretsEnv: string;
  /** Provider-specific options (validated by the provider module). */
  options?: unknown;
}

/** An endpoint ready for use: its definition plus loaded secrets and tolerance (seconds). */
export interface Endpoint extends EndpointDefinition {
  secrets: SigningSecret[];
  toleranceSeconds: number;
}

/**
 * The configured endpoints. This list is the one documented place where endpoints are defined
 * (README, "Endpoints"); secrets live only in the environment.
 */
export function endpointDefinitions(env: Record<string, string | undefined> = process.env): EndpointDefinition[] {
  return [
    {
      name: "lab",
      provider: "lab",
      account: "lab",
      livemode: true,
      mode: env.LAB_PROCESSING_MODE === "inbox" ? "inbox" : "inline",
      secretsEnv: "LAB_WEBHOOK_SECRET",
    },
  ];
}

/** Splits a comma-separated secret list, trimming stray whitespace; labels are `<ENV>[<position>]`. */
export function loadSecrets(envName: string, raw: string | string[]): SigningSecret[] {
  const values = Array.isArray(raw) ? raw : raw.split(",");
  return values
    .map((value) => value.trim())
    .filter((value) => value.length > 0)
    .map((value, index) => ({ label: `${envName}[${index}]`, value }));
}

/** Finds an endpoint by its URL name and loads its secrets; undefined for an unknown name. */
export function resolveEndpoint(name: string, env: Record<string, string | undefined> = process.env): Endpoint | undefined {
  const definition = endpointDefinitions(env).find((candidate) => candidate.name === name);
  if (!definition) return undefined;
  const config = settings();
  const raw = definition.secretsEnv === "LAB_WEBHOOK_SECRET" ? config.LAB_WEBHOOK_SECRET : (env[definition.secretsEnv] ?? "");
  return { ...definition, secrets: loadSecrets(definition.secretsEnv, raw), toleranceSeconds: config.WEBHOOK_TOLERANCE_SECONDS };
}
