import { channel, type Channel } from "node:diagnostics_channel";
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";

/**
 * The `X-Forwarded-For` value the app should see for a request from `peer` (the socket's address)
 * that arrived with `forwarded` (the header as received, or undefined). With no trusted proxies the
 * header is a client's word and is dropped: the peer is the client. With trusted proxies the peer is
 * appended as the last hop, so better-auth (`advanced.ipAddress.trustedProxies`) walks the chain right
 * to left, skips trusted hops and takes the first untrusted one: a client that talks to the server
 * directly is its own socket address whatever it claims, and one behind N trusted proxies is the
 * address the outermost trusted proxy saw.
 */
export function forwardedFor(peer: string, forwarded: string | string[] | undefined, trustedProxies: readonly string[]): string {
  if (trustedProxies.length === 0) return peer;
  const received = (Array.isArray(forwarded) ? forwarded.join(",") : (forwarded ?? ""))
    .split(",")
    .map((hop) => hop.trim())
    .filter((hop) => hop.length > 0);
  return [...received, peer].join(", ");
}

// The channel is kept on globalThis: a channel object only weakly held could be collected with its subscriber.
const installed = globalThis as unknown as { acreditaClientAddress?: Channel };

/**
 * Rewrites `X-Forwarded-For` on every HTTP request this process serves, before Next.js reads it, with
 * {@link forwardedFor}. Next.js fills the header from the socket only when it is absent and otherwise
 * passes a client's value through unchanged (next/dist/server/base-server.js), and route handlers never
 * see the socket; Node's `http.server.request.start` diagnostics channel runs before the request
 * reaches Next.js and carries the socket. Installed once per process (instrumentation.ts).
 */
export function installClientAddress(trustedProxies: readonly string[]): void {
  if (installed.acreditaClientAddress) return;
  const requests = channel("http.server.request.start");
  installed.acreditaClientAddress = requests;
  requests.subscribe((message) => {
    const { request, socket } = message as { request: IncomingMessage; socket: Socket };
    const peer = socket.remoteAddress;
    if (!peer) {
      delete request.headers["x-forwarded-for"];
      return;
    }
    request.headers["x-forwarded-for"] = forwardedFor(peer, request.headers["x-forwarded-for"], trustedProxies);
  });
}
