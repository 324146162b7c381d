import { createHash } from "node:crypto";

/** The UNIQUE scope of an event id: provider, account, live/test, provider's event id. */
export interface EventKey {
  provider: string;
  account: string;
  livemode: boolean;
  eventId: string;
}

/** SHA-256 (hex) of the raw body as signed: tells a duplicate (same hash) from a conflict (another body). */
export function bodyHash(body: Buffer): string {
  return createHash("sha256").update(body).digest("hex");
}

/** What starts the body hash of an event fetched over the provider's API (a backfill, the gap check). */
export const API_COPY_HASH_PREFIX = "api:";

/**
 * The body hash of an event fetched over the provider's API with the endpoint's key: `api:` + SHA-256
 * of the JSON as fetched. An API copy differs in bytes from its delivery (Stripe: `pending_webhooks`,
 * rendering), so its hash cannot tell a duplicate from a conflict; the `api:` mark says so.
 */
export function apiCopyBodyHash(body: Buffer): string {
  return `${API_COPY_HASH_PREFIX}${bodyHash(body)}`;
}

/**
 * Whether a stored event and a new copy of the same key are one event: the same signed bytes, or either
 * one fetched over the provider's API (authentic, and the provider's event id decides: Stripe event ids
 * are never reused). Otherwise a reused id with another body is a conflict.
 */
export function isSameEvent(storedHash: string, newHash: string): boolean {
  return storedHash === newHash || storedHash.startsWith(API_COPY_HASH_PREFIX) || newHash.startsWith(API_COPY_HASH_PREFIX);
}

/** A readable, stable string for an event key: `provider:account:live|test:eventId`. */
export function formatEventKey(key: EventKey): string {
  return `${key.provider}:${key.account}:${key.livemode ? "live" : "test"}:${key.eventId}`;
}
