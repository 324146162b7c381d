import { db as defaultDb, type Db } from "@/lib/db/client";
import { recordDecisionSafely } from "@/lib/decisions/record-decision";
import { EndpointConfigError, resolveEndpoint, type Endpoint } from "@/lib/endpoints/endpoints";
import { bodyHash } from "@/lib/events/event-key";
import { processInline, type ProcessResult, type VerifiedDelivery } from "@/lib/events/process-inline";
import { storeInInbox } from "@/lib/inbox/store-inbox-event";
import { logger } from "@/lib/log/logger";
import { providers } from "@/lib/webhooks/providers/registry";

/** One delivery as it arrived: the endpoint's URL name, the headers and the raw bytes of the body. */
export interface IncomingDelivery {
  endpointName: string;
  headers: Headers;
  body: Buffer;
  /** The receiver's clock (UTC); tests pass a fixed one. */
  now?: Date;
}

/** The JSON answer to a provider. */
export interface WebhookAnswer {
  status: number;
  body: { outcome: string; reason: string };
}

/** Inbox mode's store step: stores a verified delivery and answers `accepted` (default {@link storeInInbox}). */
export type InboxStore = (db: Db, delivery: VerifiedDelivery) => Promise<ProcessResult>;

/**
 * Receives one webhook delivery: verifies the signature over the raw bytes (every configured secret,
 * constant time, then the timestamp window), only then parses and validates, then hands it to the core
 * (inline: store and apply in one transaction; inbox: store durably, answer, a worker applies it later).
 * Every path writes exactly one decision row. Returns the status and `{outcome, reason}`; 503 when the database cannot be reached.
 */
export async function receiveWebhook(delivery: IncomingDelivery, options: { db?: Db; inbox?: InboxStore } = {}): Promise<WebhookAnswer> {
  const now = delivery.now ?? new Date();
  let database: Db;
  try {
    database = options.db ?? (await defaultDb());
  } catch (error) {
    logger.error({ err: error instanceof Error ? error.message : String(error) }, "database unavailable");
    return { status: 503, body: { outcome: "rejected", reason: "database unavailable; retry later" } };
  }

  let endpoint: Endpoint | undefined;
  try {
    endpoint = resolveEndpoint(delivery.endpointName);
  } catch (error) {
    if (!(error instanceof EndpointConfigError)) throw error;
    // A configuration mistake is ours, not the sender's: 500 makes the provider retry once it is fixed.
    logger.error({ issues: error.issues }, "webhook endpoint misconfigured");
    const reason = "endpoint misconfigured; see the server log";
    await recordDecisionSafely(database, { provider: "unknown", endpoint: delivery.endpointName.slice(0, 100), verified: false, outcome: "rejected", httpStatus: 500, reason });
    return { status: 500, body: { outcome: "rejected", reason } };
  }
  if (!endpoint) {
    const reason = "unknown webhook endpoint";
    await recordDecisionSafely(database, { provider: "unknown", endpoint: delivery.endpointName.slice(0, 100), verified: false, outcome: "rejected", httpStatus: 404, reason });
    return { status: 404, body: { outcome: "rejected", reason } };
  }
  const provider = providers[endpoint.provider];
  const input = { headers: delivery.headers, body: delivery.body, now };

  const verified = provider.verify(input, endpoint);
  if (!verified.ok) {
    await recordDecisionSafely(database, {
      provider: endpoint.provider,
      endpoint: endpoint.name,
      eventId: provider.untrustedEventId(input),
      verified: false,
      outcome: "rejected",
      httpStatus: verified.status,
      reason: verified.reason,
      diagnosis: verified.diagnosis,
    });
    return { status: verified.status, body: { outcome: "rejected", reason: verified.reason } };
  }

  const parsed = provider.parse(input, endpoint.options, { name: endpoint.name, account: endpoint.account, livemode: endpoint.livemode });
  if (!parsed.ok) {
    await recordDecisionSafely(database, {
      provider: endpoint.provider,
      endpoint: endpoint.name,
      eventId: parsed.eventId,
      eventType: parsed.eventType,
      verified: true,
      outcome: "rejected",
      httpStatus: parsed.status,
      reason: parsed.reason,
      secretLabel: verified.secretLabel,
    });
    return { status: parsed.status, body: { outcome: "rejected", reason: parsed.reason } };
  }

  const verifiedDelivery: VerifiedDelivery = { endpoint, event: parsed.event, bodyHash: bodyHash(delivery.body), secretLabel: verified.secretLabel };
  const result = endpoint.mode === "inbox" ? await (options.inbox ?? storeInInbox)(database, verifiedDelivery) : await processInline(database, verifiedDelivery);
  return { status: result.httpStatus, body: { outcome: result.outcome, reason: result.reason } };
}

export type { Endpoint };
