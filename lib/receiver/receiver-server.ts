import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Server } from "node:net";
import { runMode, settings } from "@/lib/config/settings";
import type { Db } from "@/lib/db/client";
import { logger } from "@/lib/log/logger";
import { securityHeaders } from "@/lib/security/security-headers.mjs";
import { receiveWebhookHttp, type WebhookHttpAnswer } from "@/lib/ingest/receive-webhook-request";
import { readNodeBodyWithCap } from "@/lib/ingest/request-body";
import { errorMessage } from "@/lib/log/error-message";
import { boundConnections, TIMEOUT_CHECK_INTERVAL_MS } from "@/lib/net/connection-bounds.mjs";
import { logConnectionRefusals } from "@/lib/net/connection-refusal-log";

const WEBHOOK_PATH = /^\/api\/webhooks\/([^/]+)(\/?)$/;

/** Headers every answer carries: JSON, never cached, and the dashboard's security headers (next.config.mjs). */
const BASE_HEADERS: Record<string, string> = {
  "content-type": "application/json",
  "cache-control": "no-store",
  ...Object.fromEntries(securityHeaders().map(({ key, value }) => [key.toLowerCase(), value])),
};

/**
 * The request's headers as a Fetch `Headers`, built the way Next.js builds them from Node's parsed
 * headers: a repeated `Content-Type` or `Authorization` keeps its first value, other repeats are joined
 * with ", " (Node's rules), so both entry points see the same values.
 */
function headersOf(message: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(message.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  return headers;
}

/**
 * The path and query of a request target, as a URL parser reads them: dot segments resolved (`/a/../b`),
 * the fragment dropped, and the absolute form (`http://host/path`, RFC 9112 section 3.2.2) reduced to its
 * path (its host is ignored: this server answers for itself only). The path stays percent-encoded.
 */
function targetOf(target: string): { pathname: string; query: string | undefined } {
  try {
    const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(target) ? new URL(target) : new URL(`http://receiver${target.startsWith("/") ? "" : "/"}${target}`);
    return { pathname: url.pathname, query: url.search ? url.search.slice(1) : undefined };
  } catch {
    return { pathname: target, query: undefined };
  }
}

/** The endpoint name in the path, percent-decoded; the raw segment when it does not decode (then it is unknown: 404). */
function endpointNameOf(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The bounds on what clients may hold open; defaults from the settings. */
export interface ReceiverLimits {
  /** How long headers, then the body, may take to arrive (ms): WEBHOOK_BODY_READ_TIMEOUT_MS. */
  readTimeoutMs: number;
  /** Connections open at once per client (socket) address; 0 for none: RECEIVER_MAX_CONNECTIONS_PER_ADDRESS. */
  maxConnectionsPerAddress: number;
  /** Connections open at once in all: RECEIVER_MAX_CONNECTIONS. */
  maxConnections: number;
}

/** A running receiver: its listening server (TCP, handing connections within the bounds to the HTTP server) and its graceful stop. */
export interface ReceiverServer {
  server: Server;
  /**
   * Stops accepting connections, answers the requests in hand (each with `Connection: close`, so a
   * keep-alive client cannot hold the process open), and resolves when every connection is closed; after
   * `deadlineMs` it closes the remaining connections itself.
   */
  close(deadlineMs?: number): Promise<void>;
}

/**
 * The dedicated webhook receiver (`npm run receiver`): a bare Node.js HTTP server answering
 * `/api/webhooks/{endpoint}` with the route handler's contract (the same lib function
 * {@link receiveWebhookHttp}: same statuses, bodies, body cap, decision rows, processing modes and group
 * commit; the same security headers), `/api/webhooks/{endpoint}/` with a 308 to the path without the
 * slash (as Next.js does), and `GET`/`HEAD /api/health/live`; everything else is 404. It exists for
 * throughput: one App Router route handler that does nothing costs ~1 ms of CPU per request here
 * (bench/, target `route`), more than all of the inbox's own work. `options.db` lets tests pass a client.
 *
 * What a client can hold is bounded ({@link ReceiverLimits}): headers must arrive within the read
 * timeout (`headersTimeout`) and then the body within it too (408, counted like the other refusals,
 * with `Connection: close`), `requestTimeout` backs both; connections past the per-address or the
 * total bound are answered 503 and closed without a byte of them read. So stalled bodies hold at most
 * `maxConnections` x WEBHOOK_MAX_BODY_BYTES, and for the read timeout only. `options.limits` overrides
 * the settings' bounds (tests).
 */
export function createReceiverServer(options: { db?: Db; limits?: Partial<ReceiverLimits> } = {}): ReceiverServer {
  const config = settings();
  const limits: ReceiverLimits = {
    readTimeoutMs: config.WEBHOOK_BODY_READ_TIMEOUT_MS,
    maxConnectionsPerAddress: config.RECEIVER_MAX_CONNECTIONS_PER_ADDRESS,
    maxConnections: config.RECEIVER_MAX_CONNECTIONS,
    ...options.limits,
  };

  const send = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
    const text = JSON.stringify(body);
    response.writeHead(status, { ...BASE_HEADERS, ...headers, ...(bounded.closing() ? { connection: "close" } : {}), "content-length": Buffer.byteLength(text) });
    response.end(text);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const { pathname, query } = targetOf(request.url ?? "/");
    const webhook = WEBHOOK_PATH.exec(pathname);
    if (!webhook) {
      // The same contract as the server's route: the mode lets `npm run lab` tell a demo from production.
      if (pathname === "/api/health/live" && (request.method === "GET" || request.method === "HEAD")) return send(response, 200, { ok: true, mode: runMode(process.env) });
      return send(response, 404, { error: "not found: this process serves /api/webhooks/{endpoint} only", code: "not_found" });
    }
    if (webhook[2] === "/") {
      const location = `/api/webhooks/${webhook[1]}${query === undefined ? "" : `?${query}`}`;
      return send(response, 308, { error: `permanent redirect to ${location}`, code: "redirect" }, { location });
    }
    let answer: WebhookHttpAnswer;
    try {
      answer = await receiveWebhookHttp({ method: request.method ?? "GET", headers: headersOf(request), readBody: (maxBytes, timeoutMs) => readNodeBodyWithCap(request, maxBytes, timeoutMs) }, endpointNameOf(webhook[1]), { db: options.db, bodyReadTimeoutMs: limits.readTimeoutMs });
    } catch (error) {
      logger.error({ err: errorMessage(error) }, "webhook request failed");
      return send(response, 500, { outcome: "rejected", reason: "internal error; retry later" });
    }
    send(response, answer.status, answer.body, answer.headers);
    // A body refused unread (408, 413) may still be arriving: close the connection once answered rather than wait for it.
    if (answer.headers.connection === "close") response.once("finish", () => request.socket.end());
  };

  const http = createServer({ connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS }, (request, response) => {
    handle(request, response).catch((error: unknown) => {
      logger.error({ err: errorMessage(error) }, "webhook answer failed");
      if (!response.headersSent) send(response, 500, { outcome: "rejected", reason: "internal error; retry later" });
      else response.destroy();
    });
  });
  // An idle kept-alive connection holds a slot of the per-address and total caps: no longer than a body may take.
  http.keepAliveTimeout = Math.min(30_000, limits.readTimeoutMs);
  http.headersTimeout = limits.readTimeoutMs;
  // Node's own backstop for headers and body together (it answers 408 itself); the body's timer above answers first.
  http.requestTimeout = 2 * limits.readTimeoutMs;

  // Open connections, per client address and in all, counted from accept to close; a refused one is
  // answered 503 and never read (lib/net/connection-bounds.mjs).
  logConnectionRefusals();
  const bounded = boundConnections(http, limits, "receiver");

  return { server: bounded.server, close: (deadlineMs = 10_000) => bounded.close(deadlineMs) };
}
