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

/** A readable, stable string for an event key: `provider:account:live|test:eventId`. */
export function formatEventKey(key: EventKey): string {
  return `${key.provider}:${key.account}:${key.livemode ? "live" : "test"}:${key.eventId}`;
}
