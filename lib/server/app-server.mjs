// npm start's HTTP server around Next.js's request handler (scripts/server.mjs): bounded connections,
// headers and bodies that must arrive in time, and anonymous action posts refused before a byte of their
// body is read. Plain JavaScript: that process runs without a TypeScript loader (see
// lib/net/connection-bounds.mjs).
import { createServer } from "node:http";
import { cookieValue, hasSignedSessionCookie, isActionPost } from "../auth/session-cookie.mjs";
import { boundConnections, TIMEOUT_CHECK_INTERVAL_MS } from "../net/connection-bounds.mjs";
import { securityHeaders } from "../security/security-headers.mjs";

/**
 * The paths whose request body may take longer than the read timeout: the settlement report upload
 * (app/api/reconciliations/route.ts), streamed to disk up to RECONCILIATION_UPLOAD_MAX_BYTES (200 MB)
 * by a signed-in merchant over their own link. They have {@link UPLOAD_TIMEOUT_MS}.
 */
export const LONG_BODY_PATHS = new Set(["/api/reconciliations"]);

/** How long a request to {@link LONG_BODY_PATHS} may take to arrive, headers and body (ms): Node's own default request timeout, as before. */
export const UPLOAD_TIMEOUT_MS = 300_000;

/** How long an idle kept-alive connection stays open at most (ms): Node's default, unless the read timeout is shorter. */
const KEEP_ALIVE_MS = 5_000;

/** How long a connection closed for a late body stays open after its 408 before it is destroyed (ms): see the refusals in connection-bounds.mjs. */
const TIMED_OUT_LINGER_MS = 1_000;

/**
 * The answer proxy.ts gives an action post without a signed session cookie, with the headers
 * next.config.mjs puts on every answer, and `Connection: close`: the body is never read.
 * @returns {Record<string, string>}
 */
function sessionRequiredHeaders() {
  return {
    ...Object.fromEntries(securityHeaders().map(({ key, value }) => [key.toLowerCase(), value])),
    "content-type": "application/json",
    "cache-control": "no-store",
    connection: "close",
  };
}

/**
 * The raw 408 written on a connection whose request body did not arrive in time (the request is
 * abandoned: Next.js's handler may still hold it, so the answer does not go through its response).
 * @param {number} seconds
 * @returns {string}
 */
function bodyTimeoutBytes(seconds) {
  const body = JSON.stringify({ error: `request body not received within ${seconds} s`, code: "body_timeout" });
  return `HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\ncache-control: no-store\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/**
 * The path of a request target (origin form `/a?b`, or absolute form `http://host/a`), or "/" when it
 * does not parse.
 * @param {string} target
 * @returns {string}
 */
function pathnameOf(target) {
  try {
    return new URL(target, "http://server").pathname;
  } catch {
    return "/";
  }
}

/**
 * True when the request announces a body (a Content-Length above 0, or any Transfer-Encoding).
 * @param {import("node:http").IncomingMessage} request
 * @returns {boolean}
 */
function hasBody(request) {
  const length = request.headers["content-length"];
  return request.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/**
 * Wraps `handle` (Next.js's request handler: `next({...}).getRequestHandler()`) in the HTTP server of
 * `npm start`, with the same bounds as the receiver (lib/receiver/receiver-server.ts):
 * - connections: past `maxConnectionsPerAddress` open from one client address (0: no such bound) or
 *   `maxConnections` in all, a new connection is answered 503 and closed unread
 *   (lib/net/connection-bounds.mjs);
 * - headers must arrive within `readTimeoutMs` (Node's headersTimeout, checked every second: 408), an
 *   idle kept-alive connection is closed after 5 s or `readTimeoutMs` if shorter, and a request body
 *   must be whole within twice `readTimeoutMs` of the request's start (the webhook route answers its
 *   own 408 after `readTimeoutMs`; this is the backstop for every route), or a raw 408
 *   `{error, code: "body_timeout"}` is written, the request abandoned and the connection closed (an
 *   answer already begun: the connection is closed). {@link LONG_BODY_PATHS} have
 *   {@link UPLOAD_TIMEOUT_MS} instead (Node's requestTimeout);
 * - a server action's post (lib/auth/session-cookie.mjs `isActionPost`) without a session cookie
 *   signed with `authSecret` is answered 403 `{error: "sign in first", code: "session_required"}`
 *   (proxy.ts's answer) with `Connection: close` before Next.js sees it: not a byte of its body is
 *   read, where Next.js reads the whole body before its proxy's answer goes out.
 * An error thrown by `handle` is answered 500 "Internal Server Error" (as `next start` does) and
 * logged to stderr. Returns the listening `server` (call its `listen`) and `close(deadlineMs)`: see
 * boundConnections.
 * @param {(request: import("node:http").IncomingMessage, response: import("node:http").ServerResponse) => Promise<unknown>} handle
 * @param {{ readTimeoutMs: number, maxConnectionsPerAddress: number, maxConnections: number, authSecret: string }} options
 */
export function createAppServer(handle, options) {
  const bodyDeadlineMs = 2 * options.readTimeoutMs;
  const http = createServer({ connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS }, (request, response) => {
    const pathname = pathnameOf(request.url ?? "/");
    const signedIn = () => hasSignedSessionCookie((name) => cookieValue(request.headers.cookie, name), options.authSecret);
    if (isActionPost(request.method ?? "GET", pathname, { has: (name) => request.headers[name] !== undefined }) && !signedIn()) {
      const body = JSON.stringify({ error: "sign in first", code: "session_required" });
      response.writeHead(403, { ...sessionRequiredHeaders(), "content-length": Buffer.byteLength(body) });
      response.end(body);
      return;
    }
    if (hasBody(request) && !LONG_BODY_PATHS.has(pathname)) {
      const socket = request.socket;
      const timer = setTimeout(() => {
        socket.off("close", clear);
        if (request.complete) return;
        socket.on("error", () => undefined);
        if (response.headersSent) {
          socket.destroy();
          return;
        }
        socket.end(bodyTimeoutBytes(bodyDeadlineMs / 1_000));
        setTimeout(() => socket.destroy(), TIMED_OUT_LINGER_MS).unref();
      }, bodyDeadlineMs);
      timer.unref();
      // Cleared when the body is whole or the connection closes; the listener comes off with it, as a
      // kept-alive connection carries many requests.
      const clear = () => {
        clearTimeout(timer);
        socket.off("close", clear);
      };
      request.once("end", clear);
      socket.once("close", clear);
    }
    handle(request, response).catch((error) => {
      console.error(`Failed to handle request for ${request.url}`);
      console.error(error);
      if (response.headersSent) {
        response.destroy();
        return;
      }
      response.statusCode = 500;
      response.end("Internal Server Error");
    });
  });
  http.keepAliveTimeout = Math.min(KEEP_ALIVE_MS, options.readTimeoutMs);
  http.headersTimeout = options.readTimeoutMs;
  // The backstop of every request, headers and body; the uploads' only one.
  http.requestTimeout = UPLOAD_TIMEOUT_MS;
  const bounded = boundConnections(http, options, "server");
  return { server: bounded.server, close: bounded.close };
}
