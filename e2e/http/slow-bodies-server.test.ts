// slow-test: starts npm run receiver, npm start and next start, and waits out read timeouts
// Slow bodies against the real processes: 300 connections from one address that each send all but the
// last byte of a 1 MiB body and stall. `npm run receiver` keeps 10 of them (RECEIVER_MAX_CONNECTIONS_PER_ADDRESS,
// 10 here so the bodies it holds leave room under the bound on a loaded machine), answers the other 290
// with 503 at once and the 10 with 408 within the read timeout (2 s here), its RSS grows by less than
// 32 MB, and a signed delivery from another address is answered meanwhile. `npm start`'s server
// (scripts/server.mjs, the same settings) does the same. A bare `next start` has no connection bounds,
// but its webhook route answers such a body 408 within its read timeout and closes the connection.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { after, test } from "node:test";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";
import { freePort } from "@/lib/net/free-port";
import { serverProcessesOf, trackedProcesses } from "../support/npm-start";
import { baseEnv, E2E_LAB_SECRET, newDatabase, postLab, startReceiver, waitFor, type Child } from "../support/real-server";
import { startServer, type RunningServer } from "../support/server";

// One Buffer written to every connection (a string would be encoded again for each of the 300).
const STALLING_POST = Buffer.from(`POST /api/webhooks/lab HTTP/1.1\r\nhost: acredita\r\ncontent-type: application/json\r\ncontent-length: 1048576\r\n\r\n${" ".repeat(1_048_575)}`, "latin1");

const sockets: Socket[] = [];
const { start } = trackedProcesses();
let receiver: { child: Child; url: string } | undefined;
let server: RunningServer | undefined;
after(async () => {
  for (const socket of sockets) socket.destroy();
  await receiver?.child.kill("SIGKILL");
  await server?.stop("SIGKILL");
});

/** A connection that sends {@link STALLING_POST} and stalls: what it read, and when the server closed it (ms after opening). */
function stall(port: number, localAddress = "127.0.0.1"): Promise<{ text: string; closedAfterMs: number }> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port, localAddress });
    sockets.push(socket);
    const started = Date.now();
    let text = "";
    socket.on("data", (chunk) => (text += chunk.toString("latin1")));
    socket.on("error", () => undefined);
    socket.on("close", () => resolve({ text, closedAfterMs: Date.now() - started }));
    socket.once("connect", () => socket.write(STALLING_POST));
  });
}

/**
 * `count` connections from `localAddress` opened at once, each then sending {@link STALLING_POST} and
 * stalling: the posts go out once the server has answered all but `held` of them (its refusals past the
 * per-address bound), the unanswered ones first, so how many the server holds does not depend on how
 * fast this process writes 300 MiB on a loaded machine (the server accepts the queued connections as
 * slots free). Resolves with each one's answer and how long after the posts went out the server closed
 * it (below 0: before they went out).
 */
async function stallAll(port: number, localAddress: string, count: number, held: number): Promise<{ text: string; closedAfterMs: number }[]> {
  const connections = Array.from({ length: count }, () => {
    const socket = connect({ host: "127.0.0.1", port, localAddress });
    sockets.push(socket);
    const connection = { socket, text: "", closed: new Promise<number>((resolve) => socket.once("close", () => resolve(Date.now()))) };
    socket.on("data", (chunk: Buffer) => (connection.text += chunk.toString("latin1")));
    socket.on("error", () => undefined);
    return connection;
  });
  await waitFor(`${count - held} refusals`, () => connections.filter((connection) => connection.text !== "").length >= count - held, { timeoutMs: 30_000, intervalMs: 20 });
  const sentAt = Date.now();
  for (const connection of [...connections.filter((c) => c.text === ""), ...connections.filter((c) => c.text !== "")]) {
    if (!connection.socket.destroyed) connection.socket.write(STALLING_POST);
  }
  return Promise.all(connections.map(async (connection) => ({ closedAfterMs: (await connection.closed) - sentAt, text: connection.text })));
}

/** A signed lab delivery on a raw connection from `localAddress` (fetch always connects from 127.0.0.1): the whole answer as text. */
function signedFrom(localAddress: string, port: number, eventId = "evt_sb_other"): Promise<string> {
  const body = JSON.stringify({ id: eventId, type: "payment.approved", created: 1760181330, data: { payment_id: `pay_${eventId}`, order_id: "ord_sb_other", amount: 1, currency: "ARS" } });
  const signature = signTimestamped(E2E_LAB_SECRET, Math.floor(Date.now() / 1000), body);
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port, localAddress });
    sockets.push(socket);
    let text = "";
    socket.on("data", (chunk) => (text += chunk.toString("utf8")));
    socket.on("error", () => undefined);
    socket.on("close", () => resolve(text));
    socket.once("connect", () => socket.write(`POST /api/webhooks/lab HTTP/1.1\r\nhost: acredita\r\ncontent-type: application/json\r\nconnection: close\r\nlab-signature: ${signature}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`));
  });
}

function rssBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((entry) => entry.startsWith("VmRSS:"))!;
  return Number(line.split(/\s+/)[1]) * 1024;
}

test("npm run receiver: 300 stalled 1 MiB bodies from one address are 10 x 408 within the read timeout and 290 x 503, RSS +<32 MB; another address is answered meanwhile", { timeout: 120_000 }, async (t) => {
  receiver = await startReceiver(baseEnv(newDatabase().url, { WEBHOOK_BODY_READ_TIMEOUT_MS: "2000", RECEIVER_MAX_CONNECTIONS_PER_ADDRESS: "10", LOG_LEVEL: "error" }));
  const pid = receiver.child.process.pid!;
  const port = Number(new URL(receiver.url).port);
  // Idle, after a first delivery has loaded every module a delivery uses.
  assert.equal((await postLab(receiver.url, JSON.stringify({ id: "evt_sb_warm", type: "payment.approved", created: 1760181330, data: { payment_id: "pay_sb_warm", order_id: "ord_sb_warm", amount: 1, currency: "ARS" } }))).status, 200);
  const idle = rssBytes(pid);
  let peak = idle;
  const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 50);
  // From 127.0.0.3: the test's own fetches (the start's health check, the warm-up) keep pooled connections from 127.0.0.1.
  // The bodies go out once the receiver has refused all but the 10 it holds (stallAll): with each
  // connection writing its 1 MiB as soon as it connected, a loaded machine saw 214 of 300 closed
  // before either answer (this process still writing when the receiver gave up on them).
  const ends = stallAll(port, "127.0.0.3", 300, 10);
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  // From another address, while the 10 stall: fetch connects from 127.0.0.1 too, so a raw request from 127.0.0.2 instead.
  const other = await signedFrom("127.0.0.2", port);
  const results = await ends;
  clearInterval(sampler);
  const elapsed = Math.max(...results.map((result) => result.closedAfterMs));
  const statuses = results.map((result) => result.text.slice(0, 12));
  assert.deepEqual([statuses.filter((status) => status === "HTTP/1.1 408").length, statuses.filter((status) => status === "HTTP/1.1 503").length], [10, 290], receiver.child.log());
  // The read timeout (2 s) plus the once-a-second check, with room for a loaded machine.
  assert.ok(elapsed < 8_000, `all 300 closed ${elapsed} ms after their bodies went out`);
  assert.match(other, /^HTTP\/1\.1 200 OK\r\n[\s\S]*\{"outcome":"accepted","reason":"event evt_sb_other stored in the inbox; a worker applies it"\}$/);
  t.diagnostic(`receiver RSS idle ${(idle / 1_048_576).toFixed(1)} MB, peak ${(peak / 1_048_576).toFixed(1)} MB under 300 stalled connections; all closed ${elapsed} ms after their bodies went out`);
  assert.ok(peak - idle < 32 * 1_048_576, `RSS grew by ${((peak - idle) / 1_048_576).toFixed(1)} MB (idle ${(idle / 1_048_576).toFixed(1)} MB)`);
});

test("npm start: 300 stalled 1 MiB bodies from one address are 10 x 408 within the read timeout (3 s) and 290 x 503, the server's RSS +<32 MB; another address is answered meanwhile", { timeout: 180_000 }, async (t) => {
  // Already migrated: the subject is the stalled bodies, not npm start migrating an empty database.
  const database = newDatabase();
  const { server: started, url } = await start(baseEnv(database.url, { WEBHOOK_BODY_READ_TIMEOUT_MS: "3000", RECEIVER_MAX_CONNECTIONS_PER_ADDRESS: "10", INBOX_POLL_INTERVAL_MS: "500", LOG_LEVEL: "warn" }), await freePort());
  const [pid] = serverProcessesOf(started.process.pid!);
  assert.ok(pid, "npm start has its server process");
  const port = Number(new URL(url).port);
  // Idle, after two deliveries (one through fetch, one on a raw connection) have loaded every module a delivery uses.
  assert.equal((await postLab(url, JSON.stringify({ id: "evt_sb_warm", type: "payment.approved", created: 1760181330, data: { payment_id: "pay_sb_warm", order_id: "ord_sb_warm", amount: 1, currency: "ARS" } }))).status, 200);
  assert.match(await signedFrom("127.0.0.2", port, "evt_sb_warm2"), /^HTTP\/1\.1 200 OK\r\n/);
  const idle = rssBytes(pid);
  let peak = idle;
  const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 50);
  const ends = stallAll(port, "127.0.0.3", 300, 10);
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const other = await signedFrom("127.0.0.2", port);
  const results = await ends;
  clearInterval(sampler);
  const elapsed = Math.max(...results.map((result) => result.closedAfterMs));
  const statuses = results.map((result) => result.text.slice(0, 12));
  assert.deepEqual([statuses.filter((status) => status === "HTTP/1.1 408").length, statuses.filter((status) => status === "HTTP/1.1 503").length], [10, 290], started.log());
  // The held ones: the webhook route's own 408 (sent chunked by Next.js).
  assert.equal(results.filter((result) => result.text.endsWith('{"outcome":"rejected","reason":"request body not received within 3 s"}\r\n0\r\n\r\n')).length, 10);
  assert.equal(results.filter((result) => result.text.endsWith('{"outcome":"rejected","reason":"too many connections from this address; retry later"}')).length, 290);
  // The read timeout (3 s) with room for a loaded machine.
  assert.ok(elapsed < 8_000, `all 300 closed ${elapsed} ms after their bodies went out`);
  assert.match(other, /^HTTP\/1\.1 200 OK\r\n[\s\S]*\{"outcome":"accepted","reason":"event evt_sb_other stored in the inbox; a worker applies it"\}(\r\n0\r\n\r\n)?$/);
  t.diagnostic(`npm start's server RSS idle ${(idle / 1_048_576).toFixed(1)} MB, peak ${(peak / 1_048_576).toFixed(1)} MB under 300 stalled connections; all closed ${elapsed} ms after their bodies went out`);
  assert.ok(peak - idle < 32 * 1_048_576, `RSS grew by ${((peak - idle) / 1_048_576).toFixed(1)} MB (idle ${(idle / 1_048_576).toFixed(1)} MB)`);
  assert.match(started.log(), /"address":"127\.0\.0\.3".*"limit":"per_address".*"msg":"server connections refused: too many open"/);
});

test("a bare `next start` answers a stalled body 408 within WEBHOOK_BODY_READ_TIMEOUT_MS and closes the connection", { timeout: 120_000 }, async () => {
  server = await startServer({ WEBHOOK_BODY_READ_TIMEOUT_MS: "1000", LAB_WEBHOOK_SECRET: "slow_bodies_lab_secret_0001" });
  const end = await stall(server.port);
  assert.match(end.text, /^HTTP\/1\.1 408 /);
  // Next.js sends the answer chunked.
  assert.match(end.text, /\{"outcome":"rejected","reason":"request body not received within 1 s"\}\r\n0\r\n\r\n$/);
  assert.ok(end.closedAfterMs < 4_000, `closed after ${end.closedAfterMs} ms`);
});
