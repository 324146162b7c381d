import { because, type ReasonRef } from "@/lib/reasons/reason-codes";
import { contentTypeBecause } from "@/lib/http/content-type";
import { settings } from "@/lib/config/settings";
import type { Db } from "@/lib/db/client";
import { recordPreSignatureRejection, type RejectionCode } from "@/lib/decisions/rejection-counter";
import { receiveAtEndpoint, resolveDeliveryEndpoint, type InboxStore, type WebhookAnswer } from "@/lib/ingest/receive-webhook";
import { readBodyWithCap, type CappedBody } from "@/lib/ingest/request-body";

/** A webhook answer plus the response headers it needs (`Allow` on a 405). */
export interface WebhookHttpAnswer extends WebhookAnswer {
  headers: Record<string, string>;
}

/** Options for {@link receiveWebhookRequest}; tests pass their own database, cap or clock. */
export interface ReceiveRequestOptions {
  db?: Db;
  inbox?: InboxStore;
  /** Body cap in bytes (default: the WEBHOOK_MAX_BODY_BYTES setting). */
  maxBodyBytes?: number;
  /** How long the body may take to arrive (ms; default: the WEBHOOK_BODY_READ_TIMEOUT_MS setting). */
  bodyReadTimeoutMs?: number;
  now?: Date;
}

/**
 * One HTTP request as any transport hands it over: the method, the headers, and a reader of the raw
 * body that never holds more than the cap (a Web Request in the route handler, a Node IncomingMessage
 * in the dedicated receiver process).
 */
export interface WebhookHttpRequest {
  method: string;
  headers: Headers;
  readBody: (maxBytes: number, timeoutMs: number) => Promise<CappedBody>;
}

/**
 * Receives one HTTP request on `POST /api/webhooks/{endpointName}` before any byte of the body is trusted:
 * unknown (or deleted) endpoint 404; a disabled data endpoint 503 with `Retry-After`; a method other than POST 405 (with `Allow: POST`); a Content-Type other than
 * JSON 415; a body above the cap 413, before reading when Content-Length says so and while streaming
 * when it does not (nothing is stored); a body not whole within the read timeout 408 (with
 * `Connection: close`, so the rest of it is not awaited); an unreadable body 400. Each of those rejections is counted per
 * endpoint (unknown names under one key), reason and minute, and the first few of each are stored as
 * decision rows (unverified, no event id: the body is never parsed; lib/decisions/rejection-counter.ts).
 * Anything else goes to {@link receiveWebhook} (verify, parse, store, apply).
 */
export function receiveWebhookRequest(request: Request, endpointName: string, options: ReceiveRequestOptions = {}): Promise<WebhookHttpAnswer> {
  return receiveWebhookHttp({ method: request.method, headers: request.headers, readBody: (maxBytes, timeoutMs) => readBodyWithCap(request, maxBytes, timeoutMs) }, endpointName, options);
}

/** {@link receiveWebhookRequest} for any transport: the same checks, answers and decision rows. */
export async function receiveWebhookHttp(request: WebhookHttpRequest, endpointName: string, options: ReceiveRequestOptions = {}): Promise<WebhookHttpAnswer> {
  const now = options.now ?? new Date();
  const resolved = await resolveDeliveryEndpoint(options.db, endpointName, now);
  if (!resolved.ok) return { ...resolved.answer, headers: resolved.headers ?? {} };
  const { endpoint } = resolved;
  const reject = async (code: RejectionCode, status: number, why: { reason: string; reasonRef?: ReasonRef }, headers: Record<string, string> = {}): Promise<WebhookHttpAnswer> => {
    await recordPreSignatureRejection(options.db, { endpoint: endpoint.name, organizationId: endpoint.organizationId, requestedName: endpointName, provider: endpoint.provider, code, httpStatus: status, reason: why.reason, reasonRef: why.reasonRef }, now);
    return { status, body: { outcome: "rejected", reason: why.reason }, headers };
  };

  if (request.method !== "POST") return reject("method_not_allowed", 405, because("method_not_allowed", { method: request.method.slice(0, 20) }), { allow: "POST" });
  const contentType = contentTypeBecause(request.headers.get("content-type"));
  if (contentType) return reject("unsupported_media_type", 415, contentType);

  const read = await request.readBody(options.maxBodyBytes ?? settings().WEBHOOK_MAX_BODY_BYTES, options.bodyReadTimeoutMs ?? settings().WEBHOOK_BODY_READ_TIMEOUT_MS);
  if (!read.ok) {
    const code: RejectionCode = read.status === 413 ? "body_too_large" : read.status === 408 ? "body_timeout" : "body_unreadable";
    return reject(code, read.status, read, read.status === 400 ? {} : { connection: "close" });
  }

  const answer = await receiveAtEndpoint(endpoint, { headers: request.headers, body: read.body, now }, { db: options.db, inbox: options.inbox });
  return { ...answer, headers: {} };
}
