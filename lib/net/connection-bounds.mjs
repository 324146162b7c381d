// The connection bounds of Acredita's HTTP servers (npm start's server, npm run receiver): a plain TCP
// server accepts each connection paused and hands it to the HTTP server only within the bounds; past
// them it answers 503 without reading a byte. Plain JavaScript: npm start's server process runs without
// a TypeScript loader (tsx in that process cost ~90 MB of RSS: it enables source maps for every module).
import { channel } from "node:diagnostics_channel";
import { createServer as createNetServer } from "node:net";

/**
 * The diagnostics channel on which a refusal is published, `{ server, address, open, fromAddress,
 * limit, reason }`: the processes log them (lib/net/connection-refusal-log.ts) without this module
 * depending on their logger.
 */
export const CONNECTION_REFUSED_CHANNEL = "acredita.connection.refused";

const refused = channel(CONNECTION_REFUSED_CHANNEL);

/** How long a connection refused past a bound stays open (unread) after its 503 before it is destroyed (ms). */
const REFUSED_LINGER_MS = 1_000;

/** How often Node checks headersTimeout and requestTimeout (ms; its default, 30 s, is longer than the timeouts themselves). */
export const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/** The reasons a connection is refused, as sent. */
const REFUSAL_REASONS = {
  closing: "shutting down; retry later",
  per_address: "too many connections from this address; retry later",
  total: "too many connections; retry later",
};

/**
 * The 503 written on a connection refused past a bound, before anything is read from it: encoded once
 * per reason, as a flood of refusals writes the same bytes thousands of times a second.
 * @type {Record<keyof typeof REFUSAL_REASONS, Buffer>}
 */
const REFUSALS = /** @type {any} */ (
  Object.fromEntries(
    Object.entries(REFUSAL_REASONS).map(([limit, reason]) => {
      const body = JSON.stringify({ outcome: "rejected", reason });
      return [limit, Buffer.from(`HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncache-control: no-store\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)];
    }),
  )
);

/**
 * Puts `http` (a node:http Server that never listens itself) behind a TCP server that counts open
 * connections per client (socket) address and in all, from accept to close. A connection past
 * `limits.maxConnectionsPerAddress` (0: no per-address bound) or `limits.maxConnections` is answered
 * 503 (JSON `{outcome: "rejected", reason}`, `Retry-After: 1`, `Connection: close`) and closed a second
 * later, without a byte of it read, not even into Node's HTTP parser; each refusal is published on
 * {@link CONNECTION_REFUSED_CHANNEL} with `name`. Within the bounds the connection goes to `http`.
 *
 * Returns the listening `server` (call its `listen`), `closing()` (true once `close` began), and
 * `close(deadlineMs)`: refuses new connections (503 "shutting down"), stops listening, closes idle
 * kept-alive connections at once and the others as their answers finish (every answer not yet begun
 * goes out with `Connection: close`), every one after `deadlineMs`; resolves when all are closed.
 * @param {import("node:http").Server} http
 * @param {{ maxConnectionsPerAddress: number, maxConnections: number }} limits
 * @param {string} name
 */
export function boundConnections(http, limits, name) {
  let isClosing = false;
  /** @type {Map<string, number>} */
  const perAddress = new Map();
  let open = 0;
  // As node:http's own listening server does: half-open allowed (HTTP decides when to close) and Nagle's
  // algorithm off. With Nagle on, an answer written in pieces (Next.js writes headers, then chunks)
  // waited for the client's delayed ACK: ~40 ms more per request, no CPU spent.
  const server = createNetServer({ pauseOnConnect: true, allowHalfOpen: true, noDelay: true }, (socket) => {
    const address = socket.remoteAddress ?? "";
    const fromAddress = perAddress.get(address) ?? 0;
    const overAddress = limits.maxConnectionsPerAddress > 0 && fromAddress >= limits.maxConnectionsPerAddress;
    if (isClosing || overAddress || open >= limits.maxConnections) {
      const limit = isClosing ? "closing" : overAddress ? "per_address" : "total";
      if (refused.hasSubscribers) refused.publish({ server: name, address, open, fromAddress, limit, reason: REFUSAL_REASONS[limit] });
      // Written raw and half-closed, never read. Destroyed a moment later, not at once: closing on
      // bytes still unread resets the connection, and a client that had not read the 503 would lose it.
      socket.on("error", () => undefined);
      socket.end(REFUSALS[limit]);
      setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref();
      return;
    }
    open += 1;
    perAddress.set(address, fromAddress + 1);
    socket.once("close", () => {
      open -= 1;
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left > 0) perAddress.set(address, left);
      else perAddress.delete(address);
    });
    http.emit("connection", socket);
    socket.resume();
  });
  // The HTTP server never listens itself: its 'listening' starts Node's tracking of its connections,
  // which its headersTimeout, requestTimeout and closeIdleConnections() work from.
  server.on("listening", () => http.emit("listening"));
  // Answers not yet begun: once closing, each goes out with `Connection: close`, so a keep-alive client
  // cannot hold the process open; an answer that finishes leaves its connection idle: close it then.
  /** @type {Set<import("node:http").ServerResponse>} */
  const inHand = new Set();
  http.on("request", (_request, response) => {
    if (isClosing) response.setHeader("connection", "close");
    inHand.add(response);
    response.once("close", () => inHand.delete(response));
    response.once("finish", () => {
      inHand.delete(response);
      if (isClosing) http.closeIdleConnections();
    });
  });

  return {
    server,
    closing: () => isClosing,
    openConnections: () => open,
    /** @param {number} [deadlineMs] */
    close(deadlineMs = 10_000) {
      isClosing = true;
      for (const response of inHand) if (!response.headersSent) response.setHeader("connection", "close");
      return new Promise((resolve) => {
        const deadline = setTimeout(() => http.closeAllConnections(), deadlineMs);
        server.close(() => {
          clearTimeout(deadline);
          // Stops the connection tracking started at 'listening' (the HTTP server itself was never listening: that error is expected).
          http.close(() => undefined);
          resolve(undefined);
        });
        http.closeIdleConnections();
      });
    },
  };
}
