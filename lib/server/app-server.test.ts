// npm start's HTTP server around a request handler (lib/server/app-server.mjs), with a stand-in for
// Next.js's handler: an anonymous action post is refused 403 before a byte of its body is read (the
// handler never sees it), a signed session cookie lets it through, a body that does not arrive within
// twice the read timeout gets a 408 and its connection closed (the settlement upload excepted), headers
// within the read timeout, connections past the per-address bound are 503 while another address is
// served, and a closing server answers with Connection: close and refuses new connections.
import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import { after, test } from "node:test";
import { serializeSignedCookie } from "better-call";
import { createAppServer, type AppServer } from "@/lib/server/app-server.mjs";

const SECRET = "app-server-test-secret-0123456789abcdef";
const servers: AppServer[] = [];
const sockets: Socket[] = [];
after(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((server) => server.close(100)));
});

/** What the stand-in handler saw: each request's method, path and how many body bytes it read. */
interface Seen {
  method: string;
  url: string;
  bodyBytes: number;
}

/**
 * Starts the app server on a free port around a handler that reads the whole body and answers 200
 * `{seen: bytes}` (or holds the answer until `release` when the path is /hold). Returns the port and
 * what the handler saw.
 */
async function listen(limits: { readTimeoutMs?: number; maxConnectionsPerAddress?: number; maxConnections?: number } = {}): Promise<{ port: number; seen: Seen[]; server: AppServer; release: () => void }> {
  const seen: Seen[] = [];
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const entry = { method: request.method ?? "", url: request.url ?? "", bodyBytes: 0 };
    seen.push(entry);
    for await (const chunk of request) entry.bodyBytes += (chunk as Buffer).length;
    if (request.url === "/hold") await held;
    const body = JSON.stringify({ seen: entry.bodyBytes });
    response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    response.end(body);
  };
  const server = createAppServer(handle, { readTimeoutMs: 500, maxConnectionsPerAddress: 0, maxConnections: 100, authSecret: SECRET, ...limits });
  servers.push(server);
  await new Promise<void>((resolve) => server.server.listen(0, "127.0.0.1", resolve));
  return { port: (server.server.address() as { port: number }).port, seen, server, release };
}

/** A raw connection from `localAddress` that writes `sent`; `read(waitMs)` resolves with what it read once closed (or after the wait). */
function raw(port: number, sent: string | Buffer, localAddress = "127.0.0.1") {
  const socket = connect({ host: "127.0.0.1", port, localAddress });
  sockets.push(socket);
  const started = Date.now();
  let text = "";
  let closedAfterMs: number | undefined;
  socket.on("data", (chunk) => (text += chunk.toString("latin1")));
  socket.on("error", () => undefined);
  socket.on("close", () => (closedAfterMs = Date.now() - started));
  socket.once("connect", () => socket.write(sent));
  return {
    socket,
    read: async (waitMs: number) => {
      const until = Date.now() + waitMs;
      while (closedAfterMs === undefined && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
      return { text, closedAfterMs };
    },
  };
}

/** The body of a raw HTTP/1.1 answer (after the blank line). */
const bodyOf = (text: string) => text.slice(text.indexOf("\r\n\r\n") + 4);

test("an anonymous action post is answered 403 session_required with Connection: close before its body arrives; the handler never sees it", async () => {
  const { port, seen } = await listen();
  // 9 MB announced, 10 bytes sent: the answer cannot wait for the body.
  const connection = raw(port, "POST /dead-letters HTTP/1.1\r\nhost: x\r\nnext-action: 60ab\r\ncontent-type: text/plain\r\ncontent-length: 9000000\r\n\r\n[{\"k0\":0,");
  const { text, closedAfterMs } = await connection.read(2_000);
  assert.match(text, /^HTTP\/1\.1 403 Forbidden\r\n/);
  assert.match(text, /\r\nconnection: close\r\n/i);
  assert.match(text, /\r\ncache-control: no-store\r\n/i);
  assert.match(text, /\r\ncontent-security-policy: default-src 'self'/i);
  assert.equal(bodyOf(text), '{"error":"sign in first","code":"session_required"}');
  assert.notEqual(closedAfterMs, undefined, "the connection is closed");
  assert.deepEqual(seen, []);
});

test("a POST to a page without a session cookie is refused the same way; a forged cookie too; GETs and API posts pass", async () => {
  const { port, seen } = await listen();
  const page = await raw(port, "POST /sign-in HTTP/1.1\r\nhost: x\r\ncontent-type: multipart/form-data; boundary=b\r\ncontent-length: 4\r\n\r\n--b\n").read(2_000);
  const forged = await raw(port, `POST /dead-letters HTTP/1.1\r\nhost: x\r\nnext-action: 60ab\r\ncookie: better-auth.session_token=tok.${"A".repeat(43)}=\r\ncontent-length: 2\r\n\r\n[]`).read(2_000);
  const get = await raw(port, "GET /dead-letters HTTP/1.1\r\nhost: x\r\nnext-action: 60ab\r\nconnection: close\r\n\r\n").read(2_000);
  const api = await raw(port, "POST /api/locale HTTP/1.1\r\nhost: x\r\ncontent-type: application/x-www-form-urlencoded\r\nconnection: close\r\ncontent-length: 9\r\n\r\nlocale=es").read(2_000);
  assert.deepEqual([page.text.slice(0, 12), forged.text.slice(0, 12), get.text.slice(0, 12), api.text.slice(0, 12)], ["HTTP/1.1 403", "HTTP/1.1 403", "HTTP/1.1 200", "HTTP/1.1 200"]);
  assert.deepEqual(seen.map(({ method, url, bodyBytes }) => [method, url, bodyBytes]), [["GET", "/dead-letters", 0], ["POST", "/api/locale", 9]]);
});

test("an action post with a session cookie signed with AUTH_SECRET reaches the handler, body and all", async () => {
  const { port, seen } = await listen();
  const cookie = (await serializeSignedCookie("better-auth.session_token", "tok_app_server", SECRET)).split(";")[0];
  const { text } = await raw(port, `POST /dead-letters HTTP/1.1\r\nhost: x\r\nnext-action: 60ab\r\ncookie: theme=dark; ${cookie}\r\nconnection: close\r\ncontent-length: 12\r\n\r\n["dl_1","x"]`).read(2_000);
  assert.match(text, /^HTTP\/1\.1 200 OK\r\n/);
  assert.equal(bodyOf(text), '{"seen":12}');
  assert.deepEqual(seen, [{ method: "POST", url: "/dead-letters", bodyBytes: 12 }]);
});

test("a body not whole within twice the read timeout is answered 408 body_timeout and its connection closed; the settlement upload is not", async () => {
  const { port, seen } = await listen({ readTimeoutMs: 300 });
  const stalled = raw(port, "POST /api/orders HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{\"id\":");
  const upload = raw(port, "POST /api/reconciliations HTTP/1.1\r\nhost: x\r\ncontent-type: text/csv\r\ncontent-length: 1000\r\n\r\nid,amount\n");
  const timedOut = await stalled.read(3_000);
  assert.match(timedOut.text, /^HTTP\/1\.1 408 Request Timeout\r\n/);
  assert.equal(bodyOf(timedOut.text), '{"error":"request body not received within 0.6 s","code":"body_timeout"}');
  assert.ok(timedOut.closedAfterMs !== undefined && timedOut.closedAfterMs >= 600 && timedOut.closedAfterMs < 2_900, `closed after ${timedOut.closedAfterMs} ms`);
  const stillOpen = await upload.read(10);
  assert.deepEqual(stillOpen, { text: "", closedAfterMs: undefined });
  assert.deepEqual(seen.map(({ url }) => url), ["/api/orders", "/api/reconciliations"]);
});

test("headers not whole within the read timeout are answered 408 by Node and the connection closed", async () => {
  const { port, seen } = await listen({ readTimeoutMs: 300 });
  const { text, closedAfterMs } = await raw(port, "GET /orders HTTP/1.1\r\nhost: x\r\n").read(3_000);
  assert.match(text, /^HTTP\/1\.1 408 Request Timeout\r\n/);
  assert.ok(closedAfterMs !== undefined && closedAfterMs < 2_900, `closed after ${closedAfterMs} ms`);
  assert.deepEqual(seen, []);
});

test("past the per-address bound a connection is answered 503 unread, while another address is served", async () => {
  const { port, seen } = await listen({ maxConnectionsPerAddress: 2 });
  const open = [raw(port, "GET /a HTTP/1.1\r\nhost: x\r\n", "127.0.0.3"), raw(port, "GET /b HTTP/1.1\r\nhost: x\r\n", "127.0.0.3")];
  await new Promise((resolve) => setTimeout(resolve, 100));
  const third = await raw(port, "GET /c HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n", "127.0.0.3").read(3_000);
  const other = await raw(port, "GET /d HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n", "127.0.0.2").read(3_000);
  assert.match(third.text, /^HTTP\/1\.1 503 Service Unavailable\r\n/);
  assert.equal(bodyOf(third.text), '{"outcome":"rejected","reason":"too many connections from this address; retry later"}');
  assert.match(other.text, /^HTTP\/1\.1 200 OK\r\n/);
  assert.deepEqual(seen.map(({ url }) => url), ["/d"]);
  for (const connection of open) connection.socket.destroy();
});

test("closing: the request in hand is answered with Connection: close, a new connection gets 503 shutting down, and close resolves once all are closed", async () => {
  const { port, server, release, seen } = await listen();
  const inHand = raw(port, "GET /hold HTTP/1.1\r\nhost: x\r\n\r\n");
  while (seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
  const closed = server.close(5_000);
  const late = await raw(port, "GET /late HTTP/1.1\r\nhost: x\r\n\r\n").read(100).catch(() => ({ text: "", closedAfterMs: 0 }));
  release();
  const answered = await inHand.read(3_000);
  await closed;
  assert.match(answered.text, /^HTTP\/1\.1 200 OK\r\n/);
  assert.match(answered.text, /\r\nconnection: close\r\n/i);
  assert.notEqual(answered.closedAfterMs, undefined);
  // The listening socket may already be closed when the late one connects: refused by the kernel then, never served.
  assert.ok(late.text === "" || late.text.startsWith("HTTP/1.1 503 Service Unavailable"), late.text);
  assert.deepEqual(seen.map(({ url }) => url), ["/hold"]);
});

test("fifteen posts with bodies on one kept-alive connection are all served, and no listener piles up on it", async () => {
  const { port, seen } = await listen();
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.name);
  process.on("warning", onWarning);
  const post = "POST /api/orders HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}";
  const { text } = await raw(port, post.repeat(14) + post.replace("host: x\r\n", "host: x\r\nconnection: close\r\n")).read(3_000);
  await new Promise((resolve) => setImmediate(resolve));
  process.off("warning", onWarning);
  assert.equal(text.match(/HTTP\/1\.1 200 OK\r\n/g)?.length, 15);
  assert.equal(seen.length, 15);
  assert.deepEqual(warnings, []);
});

test("accepted connections have Nagle's algorithm off, as node:http's own server has (an answer written in pieces waited ~40 ms for the client's delayed ACK)", async () => {
  const { server } = await listen();
  assert.equal((server.server as unknown as { noDelay: boolean }).noDelay, true);
});
