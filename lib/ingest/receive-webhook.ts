import { db as defaultDb, type Db } from "@/lib/db/client";
import { recordDecisionSafely } from "@/lib/decisions/record-decision";
import { recordPreSignatureRejection, signatureRejectionCode } from "@/lib/decisions/rejection-counter";
import { routeConnectEvent } from "@/lib/endpoints/connect-routing";
import { isDataEndpointId } from "@/lib/endpoints/data-endpoint-ids";
import { DISABLED_RETRY_AFTER_SECONDS, noteSecretMatched, resolveDataEndpoint } from "@/lib/endpoints/data-endpoints";
import { EndpointConfigError, resolveEndpoint, type ServedEndpoint } from "@/lib/endpoints/endpoints";
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

/** Why an endpoint does not take a delivery: the answer, and the response headers it needs (`Retry-After` on a disabled one). */
export interface EndpointRefused {
  ok: false;
  answer: WebhookAnswer;
  headers?: Record<string, string>;
}

/**
 * Resolves the endpoint a delivery names, once per delivery: a name shaped like a data endpoint id
 * (`ep_...`, lib/endpoints/data-endpoint-ids.ts) from the database through the process's cache (at most
 * one indexed read; lib/endpoints/data-endpoints.ts), any other name from the environment's
 * definitions (no database read). A refusal here comes before any byte is trusted and is counted per
 * endpoint, reason and minute (lib/decisions/rejection-counter.ts): an unknown name or a deleted endpoint
 * is 404 {@link FIXED_ANSWERS}.unknown_endpoint; a disabled endpoint is 503 with `Retry-After`
 * ({@link DISABLED_RETRY_AFTER_SECONDS} s: the provider keeps the events and retries); a configuration
 * mistake (an env endpoint's, or a stored secret no key decrypts) is ours, not the sender's, so it is 500
 * (logged) and the provider retries once it is fixed; a database that cannot be read is 503.
 */
export async function resolveDeliveryEndpoint(db: Db | undefined, endpointName: string, now: Date): Promise<{ ok: true; endpoint: ServedEndpoint } | EndpointRefused> {
  if (isDataEndpointId(endpointName)) return resolveStoredEndpoint(db, endpointName, now);
  let endpoint: ServedEndpoint | undefined;
  try {
    endpoint = resolveEndpoint(endpointName);
  } catch (error) {
    if (!(error instanceof EndpointConfigError)) throw error;
    return misconfigured(db, endpointName, error.issues, now);
  }
  if (endpoint) return { ok: true, endpoint };
  return unknownEndpoint(db, endpointName, now);
}

async function unknownEndpoint(db: Db | undefined, endpointName: string, now: Date): Promise<EndpointRefused> {
  const answer = FIXED_ANSWERS.unknown_endpoint;
  await recordPreSignatureRejection(db, { endpoint: undefined, requestedName: endpointName, provider: "unknown", code: "unknown_endpoint", httpStatus: answer.httpStatus, reason: answer.reason, reasonRef: answer.reasonRef }, now);
  return { ok: false, answer: webhookAnswer(answer) };
}

async function misconfigured(db: Db | undefined, endpointName: string, issues: string[], now: Date, provider = "unknown"): Promise<EndpointRefused> {
  logger.error({ issues }, "webhook endpoint misconfigured");
  const answer = FIXED_ANSWERS.endpoint_misconfigured;
  // The name is a configured one (its definition or row exists), so it may be a key.
  await recordPreSignatureRejection(db, { endpoint: endpointName, requestedName: endpointName, provider, code: "endpoint_misconfigured", httpStatus: answer.httpStatus, reason: answer.reason, reasonRef: answer.reasonRef }, now);
  return { ok: false, answer: webhookAnswer(answer) };
}

/** {@link resolveDeliveryEndpoint} for a data endpoint's id. */
async function resolveStoredEndpoint(db: Db | undefined, id: string, now: Date): Promise<{ ok: true; endpoint: ServedEndpoint } | EndpointRefused> {
  let resolved;
  try {
    resolved = await resolveDataEndpoint(db ?? (await defaultDb()), id, now);
  } catch (error) {
    logger.error({ err: errorMessage(error), endpoint: id }, "database unavailable while resolving an endpoint");
    return { ok: false, answer: webhookAnswer(FIXED_ANSWERS.database_unavailable) };
  }
  if (resolved.kind === "served") return { ok: true, endpoint: resolved.endpoint };
  if (resolved.kind === "unknown") return unknownEndpoint(db, id, now);
  if (resolved.kind === "misconfigured") return misconfigured(db, id, resolved.issues, now);
  const answer = FIXED_ANSWERS.endpoint_disabled;
  await recordPreSignatureRejection(db, { endpoint: id, organizationId: resolved.endpoint.organizationId, requestedName: id, provider: resolved.endpoint.provider, code: "endpoint_disabled", httpStatus: answer.httpStatus, reason: answer.reason, reasonRef: answer.reasonRef }, now);
  return { ok: false, answer: webhookAnswer(answer), headers: { "retry-after": String(DISABLED_RETRY_AFTER_SECONDS) } };
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
 * routes a Stripe Connect endpoint's event by its account ({@link routeConnectEvent}), then hands it to
 * the core (inline: store and apply in one transaction; inbox: store durably, answer, a worker applies
 * it later). A bad or missing signature or timestamp (400/401) is counted per endpoint,
 * reason and minute, and only the first few of each are stored in full as decision rows; every path
 * after a valid signature writes exactly one decision row. Returns the status and `{outcome, reason}`;
 * 503 when the database cannot be reached.
 */
export async function receiveAtEndpoint(endpoint: ServedEndpoint, delivery: { headers: Headers; body: Buffer; now: Date }, options: { db?: Db; inbox?: InboxStore } = {}): Promise<WebhookAnswer> {
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
        organizationId: endpoint.organizationId,
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

  // A data endpoint's secret records when it last matched (at most one write a minute).
  if (isDataEndpointId(endpoint.name)) await noteSecretMatched(database, endpoint.name, verified.secretLabel, delivery.now);

  const parsed = provider.parse(input, endpoint.options, { name: endpoint.name, account: endpoint.account, livemode: endpoint.livemode });
  if (!parsed.ok) {
    await recordDecisionSafely(database, {
      organizationId: endpoint.organizationId,
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

  // A Connect endpoint's event is its connected account's organization's, when the account is bound.
  const receivedAs = routeConnectEvent(endpoint, parsed.event.account);
  const verifiedDelivery: VerifiedDelivery = { endpoint: receivedAs, event: parsed.event, bodyHash: bodyHash(delivery.body), secretLabel: verified.secretLabel, headerNames: headerNamesJson(delivery.headers) };
  const result = endpoint.mode === "inbox" ? await (options.inbox ?? storeInInbox)(database, verifiedDelivery) : await processInline(database, verifiedDelivery);
  return webhookAnswer(result);
}

export type { ServedEndpoint as Endpoint };
