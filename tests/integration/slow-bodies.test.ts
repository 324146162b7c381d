import { TEST_LAB_SECRET } from "@/e2e/support/test-env";
// Slow bodies and piles of connections cannot pin memory: a webhook body must arrive within
// WEBHOOK_BODY_READ_TIMEOUT_MS (0.5 s here) or the request is answered 408, counted, and its connection
// closed; the dedicated receiver (npm run receiver) bounds headers the same way and refuses connections
// past RECEIVER_MAX_CONNECTIONS_PER_ADDRESS or RECEIVER_MAX_CONNECTIONS with 503, while a signed
// delivery from another address is answered.
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { connect, type Socket } from "node:net";
import { after, before, describe, test } from "node:test";
import * as route from "@/app/api/webhooks/[endpoint]/route";
import { closeDb, db } from "@/lib/db/client";
import { flushRejectionCounts } from "@/lib/decisions/rejection-counter";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";
import { createReceiverServer, type ReceiverServer } from "@/lib/receiver/receiver-server";
import { createOrder, labEvent } from "@/e2e/support/http";

process.env.WEBHOOK_BODY_READ_TIMEOUT_MS = "500";

const receivers: ReceiverServer[] = [];
const sockets: Socket[] = [];
after(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(receivers.map((receiver) => receiver.close(100)));
  await closeDb();
});

before(async () => {
  assert.equal((await createOrder("ord_slow_other", 700, "ARS")).status, 201);
});

async function listen(limits: { maxConnectionsPerAddress: number; maxConnections: number; readTimeoutMs?: number }): Promise<number> {
  const receiver = createReceiverServer({ limits });
  receivers.push(receiver);
  await new Promise<void>((resolve) => receiver.server.listen(0, "127.0.0.1", resolve));
  return (receiver.server.address() as { port: number }).port;
}

/** A raw connection from `localAddress` that sends `sent` and stalls; resolves with what it read once the server closed it (or after `waitMs`). */
function stalled(port: number, localAddress: string, sent: string): { opened: Promise<void>; closed: (waitMs: number) => Promise<{ text: string; closedAfterMs: number | undefined }> } {
  const socket = connect({ host: "127.0.0.1", port, localAddress });
  sockets.push(socket);
  const started = Date.now();
  let text = "";
  let closedAt: number | undefined;
  socket.on("data", (chunk) => (text += chunk.toString("latin1")));
  socket.on("error", () => undefined);
  socket.on("close", () => (closedAt = Date.now()));
  const opened = new Promise<void>((resolve) => socket.once("connect", () => socket.write(sent, () => resolve())));
  return {
    opened,
    closed: async (waitMs) => {
      const until = Date.now() + waitMs;
      while (closedAt === undefined && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
      return { text, closedAfterMs: closedAt === undefined ? undefined : closedAt - started };
    },
  };
}

/** A body of all but the last byte of 1 MiB: the headers announce 1,048,576 bytes. */
const STALLING_POST = `POST /api/webhooks/lab HTTP/1.1\r\nhost: receiver\r\ncontent-type: application/json\r\ncontent-length: 1048576\r\n\r\n${" ".repeat(1_048_575)}`;

/** A signed lab delivery over its own connection from `localAddress`: the status and body. */
function signedDelivery(port: number, localAddress: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: "127.0.0.1", port, localAddress, path: "/api/webhooks/lab", method: "POST", agent: false, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), "Lab-Signature": signTimestamped(TEST_LAB_SECRET, Math.floor(Date.now() / 1000), body), connection: "close" } }, (response) => {
      let text = "";
      response.on("data", (chunk) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    request.on("error", reject);
    request.end(body);
  });
}

describe("a body that does not arrive within the read timeout", () => {
  test("the webhook route answers 408 with Connection: close after 0.5 s, cancels the body and counts the refusal", async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"id":"evt_slow"'));
      },
      cancel() {
        cancelled = true;
      },
    });
    const started = Date.now();
    const request = new Request("http://127.0.0.1/api/webhooks/lab", { method: "POST", body, headers: { "content-type": "application/json", "Lab-Signature": "t=1,v1=00" }, duplex: "half" } as RequestInit);
    const response = await route.POST(request, { params: Promise.resolve({ endpoint: "lab" }) });
    const elapsed = Date.now() - started;
    assert.deepEqual([response.status, response.headers.get("connection"), await response.json()], [408, "close", { outcome: "rejected", reason: "request body not received within 0.5 s" }]);
    assert.ok(elapsed >= 450 && elapsed < 2_000, `answered after ${elapsed} ms`);
    assert.equal(cancelled, true);
    await flushRejectionCounts();
    const counted = await (await db()).rejectionCount.findMany({ where: { reason: "body_timeout" }, select: { endpoint: true, httpStatus: true, count: true } });
    assert.deepEqual(counted, [{ endpoint: "lab", httpStatus: 408, count: 1 }]);
  });

  test("the receiver answers a stalled 1 MiB body 408 and closes it within the read timeout; stalled headers are closed too", async () => {
    const port = await listen({ maxConnectionsPerAddress: 20, maxConnections: 100, readTimeoutMs: 500 });
    const body = stalled(port, "127.0.0.1", STALLING_POST);
    await body.opened;
    const headers = stalled(port, "127.0.0.1", "POST /api/webhooks/lab HTTP/1.1\r\nhost: receiver\r\ncontent-type: appl");
    await headers.opened;
    const [bodyEnd, headersEnd] = await Promise.all([body.closed(5_000), headers.closed(5_000)]);
    assert.match(bodyEnd.text, /^HTTP\/1\.1 408 Request Timeout\r\n/);
    assert.match(bodyEnd.text, /\r\n\r\n\{"outcome":"rejected","reason":"request body not received within 0\.5 s"\}$/);
    assert.ok(bodyEnd.closedAfterMs !== undefined && bodyEnd.closedAfterMs < 2_000, `body connection closed after ${bodyEnd.closedAfterMs} ms`);
    // Node's headersTimeout (checked once a second here) answers and closes a connection whose headers never end.
    assert.ok(headersEnd.closedAfterMs !== undefined && headersEnd.closedAfterMs < 3_000, `headers connection closed after ${headersEnd.closedAfterMs} ms`);
  });
});

describe("connection bounds of the receiver", () => {
  test("past 3 open connections from one address the next is 503 and closed; another address is still answered; past 5 in all, 503 for everyone", async () => {
    const port = await listen({ maxConnectionsPerAddress: 3, maxConnections: 5, readTimeoutMs: 30_000 });
    const held = [1, 2, 3].map(() => stalled(port, "127.0.0.1", STALLING_POST));
    await Promise.all(held.map((connection) => connection.opened));
    const fourth = stalled(port, "127.0.0.1", STALLING_POST);
    await fourth.opened;
    const refused = await fourth.closed(3_000);
    assert.match(refused.text, /^HTTP\/1\.1 503 Service Unavailable\r\n/);
    assert.match(refused.text, /\r\n\r\n\{"outcome":"rejected","reason":"too many connections from this address; retry later"\}$/);
    assert.notEqual(refused.closedAfterMs, undefined);

    const signed = await signedDelivery(port, "127.0.0.2", labEvent("evt_slow_other", "payment.approved", "ord_slow_other", "pay_slow_other", 700));
    assert.deepEqual([signed.status, JSON.parse(signed.body).outcome], [200, "applied"]);

    // 3 from 127.0.0.1 and 2 more from 127.0.0.3 fill the 5; a sixth from 127.0.0.4 is refused.
    const more = [1, 2].map(() => stalled(port, "127.0.0.3", STALLING_POST));
    await Promise.all(more.map((connection) => connection.opened));
    const sixth = stalled(port, "127.0.0.4", STALLING_POST);
    await sixth.opened;
    const full = await sixth.closed(3_000);
    assert.match(full.text, /\r\n\r\n\{"outcome":"rejected","reason":"too many connections; retry later"\}$/);
    // The held ones are still open: nothing but the bound refused them.
    assert.deepEqual((await Promise.all([...held, ...more].map((connection) => connection.closed(0)))).map((end) => end.closedAfterMs), [undefined, undefined, undefined, undefined, undefined]);
  });
});

test("an idle kept-alive connection holds its slot no longer than the read timeout (it held it 30 s)", async () => {
  const port = await listen({ maxConnectionsPerAddress: 3, maxConnections: 10, readTimeoutMs: 500 });
  const idle = stalled(port, "127.0.0.9", "GET /api/health/live HTTP/1.1\r\nhost: receiver\r\n\r\n");
  await idle.opened;
  const { text, closedAfterMs } = await idle.closed(5_000);
  assert.match(text, /^HTTP\/1\.1 200 OK/);
  assert.ok(closedAfterMs !== undefined && closedAfterMs < 2_500, `closed after ${closedAfterMs} ms`);
});
