import type { EndpointScope, ProviderName } from "@/lib/core/effect";

/**
 * The endpoint scope a stored event (or a dead letter) is applied under: the endpoint as configured now
 * when `configured` names it (its name, provider and mode), else the scope stored on the row (an endpoint
 * removed from the configuration after the event was stored). The organization is always the row's: it
 * was decided at receipt, never by today's configuration.
 */
export function storedEventScope(stored: { endpoint: string; organizationId: string; provider: string; livemode: boolean }, configured?: { name: string; provider: ProviderName; livemode: boolean }): EndpointScope {
  return configured
    ? { name: configured.name, provider: configured.provider, livemode: configured.livemode, organizationId: stored.organizationId }
    : { name: stored.endpoint, provider: stored.provider as ProviderName, livemode: stored.livemode, organizationId: stored.organizationId };
}
