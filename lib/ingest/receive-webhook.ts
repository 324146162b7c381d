import { db as defaultDb, type Db } from "@/lib/db/client";
import { recordDecisionSafely } from "@/lib/decisions/record-decision";
import { recordPreSignatureRejection, signatureRejectionCode } from "@/lib/decisions/rejection-counter";
import { EndpointConfigError, resolveEndpoint, type Endpoint } from "@/lib/endpoints/endpoints";
import { bodyHash } from "@/lib/core/event-key";
import { processInline, type ProcessResult, type VerifiedDelivery } from "@/lib/ingest/process-inline";
import { FIXED_ANSWERS, webhookAnswer } from "@/lib/ingest/answers";
import { storeInInbox } from "@/lib/ingest/store-inbox-event";
import { headerNamesJson } from "@/lib/events/webhook-events";
import { logger } from "@/lib/log/logger";
import { providers } from "@/lib/providers/registry";
import { retiredSecretLabelOf } from "@/lib/providers/signatures/diagnose-signature";
import { errorMessage } from "@/lib/log/error-message";

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
 * Resolves the endpoint a delivery names, once per delivery. A refusal here comes before any byte is
 * trusted and is counted per endpoint, reason and minute (lib/decisions/rejection-counter.ts): an
 * unknown name is 404 {@link FIXED_ANSWERS}.unknown_endpoint; a configuration mistake is ours, not the
 * sender's, so it is 500 (logged) and the provider retries once it is fixed.
 */
export async function resolveDeliveryEndpoint(db: Db | undefined, endpointName: string, now: Date): Promise<{ ok: true; endpoint: Endpoint } | { ok: false; answer: WebhookAnswer }> {
  let endpoint: Endpoint | undefined;
  try {
    endpoint = resolveEndpoint(endpointName);
  } catch (error) {
    if (!(error instanceof EndpointConfigError)) throw error;
    logger.error({ issues: error.issues }, "webhook endpoint misconfigured");
    const answer = FIXED_ANSWERS.endpoint_misconfigured;
    // The name is a configured one (its definition exists), so it may be a key.
    await recordPreSignatureRejection(db, { endpoint: endpointName, requestedName: endpointName, provider: "unknown", code: "endpoint_misconfigured", httpStatus: answer.httpStatus, reason: answer.reason, reasonRef: answer.reasonRef }, now);
    return { ok: false, answer: webhookAnswer(answer) };
  }
  if (endpoint) return { ok: true, endpoint };
  const answer = FIXED_ANSWERS.unknown_endpoint;
  await recordPreSignatureRejection(db, { endpoint: undefined, requestedName: endpointName, provider: "unknown", code: "unknown_endpoint", httpStatus: answer.httpStatus, reason: answer.reason, reasonRef: answer.reasonRef }, now);
  return { ok: false, answer: webhookAnswer(answer) };
}

/**
 * Receives one webhook delivery by endpoint name: {@link resolveDeliveryEndpoint}, then
 * {@link receiveAtEndpoint}. For callers without an HTTP request (tests, tools).
 */
export async function receiveWebhook(delivery: IncomingDelivery, options: { db?: Db; inbox?: InboxStore } = {}): Promise<WebhookAnswer> {
  const now = delivery.now ?? new Date();
  const resolved = await resolveDeliveryEndpoint(options.db, delivery.endpointName, now);
  if (!resolved.ok) return resolved.answer;
  return receiveAtEndpoint(resolved.endpoint, { headers: delivery.headers, body: delivery.body, now }, options);
}

/**
 * Receives one delivery at a resolved endpoint: verifies the signature over the raw bytes (every
 * configured secret, constant time, then the timestamp window), only then parses and validates, then
 * hands it to the core (inline: store and apply in one transaction; inbox: store durably, answer, a
 * worker applies it later). A bad or missing signature or timestamp (400/401) is counted per endpoint,
 * reason and minute, and only the first few of each are stored in full as decision rows; every path
 * after a valid signature writes exactly one decision row. Returns the status and `{outcome, reason}`;
 * 503 when the database cannot be reached.
 */
export async function receiveAtEndpoint(endpoint: Endpoint, delivery: { headers: Headers; body: Buffer; now: Date }, options: { db?: Db; inbox?: InboxStore } = {}): Promise<WebhookAnswer> {
  let database: Db;
  try {
    database = options.db ?? (await defaultDb());
  } catch (error) {
    logger.error({ err: errorMessage(error) }, "database unavailable");
    return webhookAnswer(FIXED_ANSWERS.database_unavailable);
  }
  const provider = providers[endpoint.provider];
  const input = { headers: delivery.headers, body: delivery.body, now: delivery.now };

  const verified = provider.verify(input, endpoint);
  if (!verified.ok) {
    await recordPreSignatureRejection(
      database,
      {
        endpoint: endpoint.name,
        requestedName: endpoint.name,
        provider: endpoint.provider,
        code: signatureRejectionCode(verified.reason),
        httpStatus: verified.status,
        reason: verified.reason,
        reasonRef: verified.reasonRef,
        eventId: provider.untrustedEventId(input),
        diagnosis: verified.diagnosis,
        diagnosisRef: verified.diagnosisRef,
        secretLabel: retiredSecretLabelOf(verified.diagnosisRef),
      },
      delivery.now,
    );
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
      reasonRef: parsed.reasonRef,
      secretLabel: verified.secretLabel,
    });
    return { status: parsed.status, body: { outcome: "rejected", reason: parsed.reason } };
  }

  const verifiedDelivery: VerifiedDelivery = { endpoint, event: parsed.event, bodyHash: bodyHash(delivery.body), secretLabel: verified.secretLabel, headerNames: headerNamesJson(delivery.headers) };
  const result = endpoint.mode === "inbox" ? await (options.inbox ?? storeInInbox)(database, verifiedDelivery) : await processInline(database, verifiedDelivery);
  return webhookAnswer(result);
}

export type { Endpoint };
