// `npm run receiver`, the dedicated webhook receiver process, as a provider meets it: over real HTTP,
// the same contract as the route handler (statuses, bodies, body cap, decision rows), then a worker
// process applies what it stored. Its refusals at start are tests/integration/cli-schema.test.ts (its main, in process).
import assert from "node:assert/strict";
import { Agent, request as httpRequest } from "node:http";
import { after, before, test } from "node:test";
import { closeDb, openDb, type Db } from "@/lib/db/client";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";
import { baseEnv, E2E_LAB_SECRET, newDatabase, postLab, startReceiver, startWorker, waitFor, type Child } from "../support/real-server";
import { sqlReader } from "../support/sql-reader";
import { postStreaming } from "../support/streaming-post";

const database = newDatabase();
let receiver: { child: Child; url: string };
let client: Db;

before(async () => {
  receiver = await startReceiver(baseEnv(database.url, { LOG_LEVEL: "warn" }));
  client = await openDb(database.url);
  for (let i = 0; i < 100; i++) await client.order.create({ data: { id: `ord_rp_${i}`, amount: 1000 + i, currency: "ARS" } });
});
after(async () => {
  await receiver?.child.kill("SIGKILL");
  await client?.$disconnect();
  await closeDb();
});

const approval = (i: number, amount = 1000 + i) => JSON.stringify({ id: `evt_rp_${i}`, type: "payment.approved", created: 1760181330, data: { payment_id: `pay_rp_${i}`, order_id: `ord_rp_${i}`, amount, currency: "ARS" } });

/** Posts raw bytes to the receiver with {@link postStreaming} (the answer may come before the body is sent). */
function post(path: string, headers: Record<string, string>, chunk: Buffer, chunks = 1) {
  return postStreaming(`${receiver.url}${path}`, headers, chunk, chunks);
}

/** A POST with `target` sent as is (fetch would normalise it first), an empty JSON object as its body. */
function rawRequest(target: string): Promise<{ status: number }> {
  const { port } = new URL(receiver.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, method: "POST", path: target, headers: { "content-type": "application/json", "content-length": "2" } }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode! }));
    });
    req.on("error", reject);
    req.end("{}");
  });
}

test("a signed delivery is stored and answered 200 accepted; the same again is a duplicate; the id with another body is a 409 conflict; a forgery is 401", async () => {
  const accepted = await postLab(receiver.url, approval(0));
  assert.deepEqual(accepted, { status: 200, json: { outcome: "accepted", reason: "event evt_rp_0 stored in the inbox; a worker applies it" } });
  const again = await postLab(receiver.url, approval(0));
  assert.deepEqual(again, { status: 200, json: { outcome: "duplicate", reason: "event evt_rp_0 already stored (status received); nothing changed" } });
  const conflict = await postLab(receiver.url, approval(0, 999_999));
  assert.deepEqual([conflict.status, conflict.json.outcome], [409, "dead_lettered"]);
  const body = approval(1);
  const forged = await fetch(`${receiver.url}/api/webhooks/lab`, { method: "POST", body, headers: { "content-type": "application/json", "Lab-Signature": signTimestamped("attacker-key-0001", Math.floor(Date.now() / 1000), body) } });
  assert.equal(forged.status, 401);
  assert.equal(((await forged.json()) as { outcome: string }).outcome, "rejected");
  assert.equal(forged.headers.get("content-type"), "application/json");

  const reader = sqlReader(database);
  assert.equal(reader.count("SELECT COUNT(*) AS n FROM WebhookEvent WHERE eventId LIKE 'evt_rp_%'"), 1);
  assert.deepEqual(
    reader.all("SELECT outcome, httpStatus FROM Decision WHERE eventId IN ('evt_rp_0', 'evt_rp_1') ORDER BY at, outcome"),
    [
      { outcome: "accepted", httpStatus: 200 },
      { outcome: "duplicate", httpStatus: 200 },
      { outcome: "dead_lettered", httpStatus: 409 },
      { outcome: "rejected", httpStatus: 401 },
    ],
  );
  reader.close();
});

test("refusals before the body is trusted: 404 unknown endpoint, 405 with Allow, 415, 413 announced and streamed; one decision row each; other paths 404", async () => {
  const unknown = await fetch(`${receiver.url}/api/webhooks/nope`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
  assert.deepEqual([unknown.status, await unknown.json()], [404, { outcome: "rejected", reason: "unknown webhook endpoint" }]);
  const malformed = await fetch(`${receiver.url}/api/webhooks/%ZZ`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
  assert.deepEqual([malformed.status, await malformed.json()], [404, { outcome: "rejected", reason: "unknown webhook endpoint" }]);
  const wrongMethod = await fetch(`${receiver.url}/api/webhooks/lab`);
  assert.deepEqual([wrongMethod.status, wrongMethod.headers.get("allow"), await wrongMethod.json()], [405, "POST", { outcome: "rejected", reason: "method GET not allowed: webhooks are POST" }]);
  const text = await fetch(`${receiver.url}/api/webhooks/lab`, { method: "POST", body: "hello", headers: { "content-type": "text/plain" } });
  assert.deepEqual([text.status, await text.json()], [415, { outcome: "rejected", reason: "unsupported Content-Type text/plain: expected application/json" }]);
  const announced = await post("/api/webhooks/lab", { "content-type": "application/json", "content-length": "5000000" }, Buffer.from('{"id":"x",'));
  assert.deepEqual([announced.status, announced.json], [413, { outcome: "rejected", reason: "body too large: Content-Length 5000000, limit 1048576 bytes" }]);
  // 17 chunks of 64 KiB: the cap (1 MiB) is passed by the last one, so the server has read all it was sent.
  const streamed = await post("/api/webhooks/lab", { "content-type": "application/json" }, Buffer.alloc(65_536, 0x20), 17);
  assert.deepEqual([streamed.status, streamed.json, streamed.headers.connection], [413, { outcome: "rejected", reason: "body too large: more than 1048576 bytes received, limit 1048576 bytes" }, "close"]);
  const elsewhere = await fetch(`${receiver.url}/api/orders`);
  assert.equal(elsewhere.status, 404);
  // Dot segments are resolved and a fragment dropped, as Next.js's router does: this is the lab endpoint (401 unsigned).
  for (const target of ["/api/x/../webhooks/lab", "/api/webhooks/./lab", "/api/webhooks/lab#frag", `http://example.invalid/api/webhooks/lab`]) {
    const answer = await rawRequest(target);
    assert.equal(answer.status, 401, target);
  }

  const reader = sqlReader(database);
  assert.deepEqual(
    reader.all("SELECT httpStatus, verified, eventId FROM Decision WHERE httpStatus IN (404, 405, 413, 415) ORDER BY httpStatus"),
    [
      { httpStatus: 404, verified: database.file ? 0 : false, eventId: null },
      { httpStatus: 404, verified: database.file ? 0 : false, eventId: null },
      { httpStatus: 405, verified: database.file ? 0 : false, eventId: null },
      { httpStatus: 413, verified: database.file ? 0 : false, eventId: null },
      { httpStatus: 413, verified: database.file ? 0 : false, eventId: null },
      { httpStatus: 415, verified: database.file ? 0 : false, eventId: null },
    ],
  );
  reader.close();
});

test("200 concurrent deliveries (99 new events twice each, 2 copies of a stored one) are 99 accepted + 101 duplicates, stored once; a worker then credits each order once", async () => {
  const sends = [];
  for (let copy = 0; copy < 2; copy++) for (let i = 1; i < 100; i++) sends.push(postLab(receiver.url, approval(i)));
  sends.push(postLab(receiver.url, approval(0)), postLab(receiver.url, approval(0)));
  const answers = await Promise.all(sends);
  const tally = (outcome: string) => answers.filter((answer) => answer.status === 200 && answer.json.outcome === outcome).length;
  assert.deepEqual([tally("accepted"), tally("duplicate"), answers.length], [99, 101, 200]);

  const worker = startWorker(baseEnv(database.url));
  try {
    const reader = sqlReader(database);
    await waitFor("the worker to apply 100 events", () => reader.count("SELECT COUNT(*) AS n FROM WebhookEvent WHERE eventId LIKE 'evt_rp_%' AND status = 'processed'") === 100, { timeoutMs: 60_000 });
    assert.equal(reader.count("SELECT COUNT(*) AS n FROM LedgerEntry WHERE paymentKey LIKE 'pay_rp_%'"), 100);
    assert.equal(reader.count("SELECT COALESCE(SUM(amount), 0) AS n FROM LedgerEntry WHERE paymentKey LIKE 'pay_rp_%'"), 100 * 1000 + (99 * 100) / 2);
    assert.equal(reader.count("SELECT COUNT(*) AS n FROM \"Order\" WHERE id LIKE 'ord_rp_%' AND status = 'paid'"), 100);
    reader.close();
  } finally {
    await worker.kill("SIGTERM");
  }
});

test("answers carry the dashboard's security headers; a trailing slash is a 308 to the path without it, as Next.js answers", async () => {
  const live = await fetch(`${receiver.url}/api/health/live?probe=1`);
  assert.deepEqual([live.status, live.headers.get("x-frame-options"), live.headers.get("x-content-type-options"), live.headers.get("referrer-policy")], [200, "DENY", "nosniff", "same-origin"]);
  assert.match(live.headers.get("content-security-policy") ?? "", /frame-ancestors 'none'/);
  // The server's liveness contract: the mode, which `npm run lab` checks before playing.
  assert.deepEqual(await live.json(), { ok: true, mode: "production" });
  const slash = await fetch(`${receiver.url}/api/webhooks/lab/?x=1`, { method: "POST", body: "{}", headers: { "content-type": "application/json" }, redirect: "manual" });
  assert.deepEqual([slash.status, slash.headers.get("location")], [308, "/api/webhooks/lab?x=1"]);
});

test("SIGTERM while a delivery is being sent: that delivery is still answered (Connection: close), then the receiver exits 0", async () => {
  const body = approval(50);
  const signature = signTimestamped(E2E_LAB_SECRET, Math.floor(Date.now() / 1000), body);
  const answer = new Promise<{ status: number; connection: string | undefined; json: { outcome: string } }>((resolve, reject) => {
    const req = httpRequest(`${receiver.url}/api/webhooks/lab`, { method: "POST", agent: new Agent({ keepAlive: true }), headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)), "lab-signature": signature } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (part) => (text += part));
      res.on("end", () => resolve({ status: res.statusCode!, connection: res.headers.connection, json: JSON.parse(text) }));
    });
    req.on("error", reject);
    req.write(body.slice(0, 10));
    setTimeout(() => {
      receiver.child.process.kill("SIGTERM");
      setTimeout(() => req.end(body.slice(10)), 300);
    }, 200);
  });
  const answered = await answer;
  assert.deepEqual([answered.status, answered.connection, answered.json.outcome], [200, "close", "duplicate"]);
  assert.deepEqual(await receiver.child.exited, { code: 0, signal: null });
});
