import { TEST_LAB_SECRET } from "@/e2e/support/test-env";
// Hardening: body cap (413 before and while reading), wrong method (405), wrong content type
// (415). Every rejection stores nothing and leaves exactly one decision row.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import * as route from "@/app/api/webhooks/[endpoint]/route";
import { closeDb, db } from "@/lib/db/client";
import { flushRejectionCounts } from "@/lib/decisions/rejection-counter";
import { contentTypeProblem } from "@/lib/http/content-type";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";
import { createOrder, labEvent, readOrder } from "@/e2e/support/http";

const CAP = 1_048_576;
const now = () => Math.floor(Date.now() / 1000);
const context = (endpoint = "lab") => ({ params: Promise.resolve({ endpoint }) });

/** A signed lab approval padded with an ignored field to exactly `size` bytes. */
function paddedApproval(id: string, orderId: string, amount: number, size: number): string {
  const bare = JSON.stringify({ id, type: "payment.approved", created: 1760181330, data: { payment_id: `pay_${id}`, order_id: orderId, amount, currency: "ARS" }, padding: "" });
  const body = bare.replace('"padding":""', `"padding":"${"x".repeat(size - bare.length)}"`);
  assert.equal(Buffer.byteLength(body), size);
  return body;
}

async function post(body: BodyInit, headers: Record<string, string>, init: RequestInit = {}) {
  const request = new Request("http://127.0.0.1/api/webhooks/lab", { method: "POST", body, headers, duplex: "half", ...init } as RequestInit);
  const response = await route.POST(request, context());
  return { status: response.status, headers: response.headers, json: (await response.json()) as { outcome: string; reason: string } };
}

/** An endless body, one 64 KiB chunk per read, counting the bytes the receiver pulled. */
function endlessBody(): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let pulled = 0;
  const chunk = new Uint8Array(65_536).fill(0x20);
  const stream = new ReadableStream<Uint8Array>({ pull(controller) { pulled += chunk.byteLength; controller.enqueue(chunk); } }, { highWaterMark: 0 });
  return { stream, pulled: () => pulled };
}

async function tally() {
  const database = await db();
  const [decisions, events, ledger, deadLetters] = await Promise.all([database.decision.count(), database.webhookEvent.count(), database.ledgerEntry.count(), database.deadLetter.count()]);
  return { decisions, events, ledger, deadLetters };
}

async function lastDecision() {
  return (await db()).decision.findFirstOrThrow({ orderBy: [{ at: "desc" }, { id: "desc" }], select: { provider: true, endpoint: true, eventId: true, verified: true, outcome: true, httpStatus: true, reason: true } });
}

before(async () => {
  assert.equal((await createOrder("ord_big", 900, "ARS")).status, 201);
  assert.equal((await createOrder("ord_edge", 901, "ARS")).status, 201);
  assert.equal((await createOrder("ord_over", 902, "ARS")).status, 201);
  assert.equal((await createOrder("ord_ct", 903, "ARS")).status, 201);
  assert.equal((await createOrder("ord_ct2", 904, "ARS")).status, 201);
});
after(closeDb);

describe("body size cap (WEBHOOK_MAX_BODY_BYTES, default 1 MiB)", () => {
  test("a signed 900 KB payload is accepted and applied", async () => {
    const body = paddedApproval("evt_big", "ord_big", 900, 900_000);
    const answer = await post(body, { "content-type": "application/json", "Lab-Signature": signTimestamped(TEST_LAB_SECRET, now(), body) });
    assert.deepEqual([answer.status, answer.json.outcome], [200, "applied"]);
    assert.equal((await readOrder("ord_big")).credited, 900);
  });

  test("a body of exactly the cap is accepted; one byte more is 413 and stores nothing", async () => {
    const edge = paddedApproval("evt_edge", "ord_edge", 901, CAP);
    const accepted = await post(edge, { "content-type": "application/json", "Lab-Signature": signTimestamped(TEST_LAB_SECRET, now(), edge) });
    assert.deepEqual([accepted.status, accepted.json.outcome], [200, "applied"]);

    const before = await tally();
    const over = paddedApproval("evt_over", "ord_over", 902, CAP + 1);
    const signature = signTimestamped(TEST_LAB_SECRET, now(), over);
    // As a real client sends it (with its Content-Length), and as an in-process Request does (without one).
    const declared = await post(over, { "content-type": "application/json", "content-length": String(CAP + 1), "Lab-Signature": signature });
    assert.deepEqual([declared.status, declared.json], [413, { outcome: "rejected", reason: "body too large: Content-Length 1048577, limit 1048576 bytes" }]);
    const streamed = await post(over, { "content-type": "application/json", "Lab-Signature": signature });
    assert.deepEqual([streamed.status, streamed.json], [413, { outcome: "rejected", reason: "body too large: more than 1048576 bytes received, limit 1048576 bytes" }]);
    assert.deepEqual(await tally(), { ...before, decisions: before.decisions + 2 });
    assert.deepEqual(await lastDecision(), { provider: "lab", endpoint: "lab", eventId: null, verified: false, outcome: "rejected", httpStatus: 413, reason: streamed.json.reason });
    assert.deepEqual([(await readOrder("ord_over")).status, (await readOrder("ord_over")).credited], ["created", 0]);
  });

  test("a Content-Length above the cap is 413 before a single byte is read", async () => {
    const { stream, pulled } = endlessBody();
    const before = await tally();
    const answer = await post(stream, { "content-type": "application/json", "content-length": "5000000", "Lab-Signature": `t=${now()},v1=${"0".repeat(64)}` });
    assert.deepEqual([answer.status, answer.json.reason], [413, "body too large: Content-Length 5000000, limit 1048576 bytes"]);
    assert.equal(answer.headers.get("connection"), "close");
    assert.equal(pulled(), 0);
    assert.deepEqual(await tally(), { ...before, decisions: before.decisions + 1 });
  });

  test("a body that lies about its length is cut off while streaming, just past the cap", async () => {
    const { stream, pulled } = endlessBody();
    const before = await tally();
    const answer = await post(stream, { "content-type": "application/json", "content-length": "10", "Lab-Signature": `t=${now()},v1=${"0".repeat(64)}` });
    assert.deepEqual([answer.status, answer.json.reason], [413, "body too large: more than 1048576 bytes received, limit 1048576 bytes"]);
    // 16 chunks of 64 KiB reach the cap exactly; the 17th crosses it and reading stops there.
    assert.equal(pulled(), 17 * 65_536);
    assert.deepEqual(await tally(), { ...before, decisions: before.decisions + 1 });
  });

  test("a body that breaks off mid-stream is 400 and stores nothing", async () => {
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ === 2) controller.error(new Error("client went away"));
        else controller.enqueue(new TextEncoder().encode('{"id":"evt_cut",'));
      },
    });
    const before = await tally();
    const answer = await post(stream, { "content-type": "application/json" });
    assert.deepEqual([answer.status, answer.json], [400, { outcome: "rejected", reason: "request body could not be read" }]);
    assert.deepEqual(await tally(), { ...before, decisions: before.decisions + 1 });
  });
});

describe("method and content type", () => {
  test("every method but POST is 405 with Allow: POST, all 6 counted and the first 5 stored as decision rows", async () => {
    const before = await tally();
    const methods = [
      ["GET", route.GET],
      ["HEAD", route.HEAD],
      ["PUT", route.PUT],
      ["PATCH", route.PATCH],
      ["DELETE", route.DELETE],
      ["OPTIONS", route.OPTIONS],
    ] as const;
    for (const [method, handler] of methods) {
      const withBody = method === "GET" || method === "HEAD" ? {} : { body: labEvent("evt_method", "payment.approved", "ord_ct", "pay_m", 903) };
      const response = await handler(new Request("http://127.0.0.1/api/webhooks/lab", { method, headers: { "content-type": "application/json" }, ...withBody }), context());
      assert.equal(response.status, 405, method);
      assert.equal(response.headers.get("allow"), "POST", method);
      assert.deepEqual(await response.json(), { outcome: "rejected", reason: `method ${method} not allowed: webhooks are POST` });
    }
    // REJECTION_SAMPLE_PER_MINUTE (5) per endpoint, reason and minute are stored in full; the sixth is only counted
    // (unless the six straddled a minute boundary: then each minute sampled its own).
    await flushRejectionCounts();
    const counted = await (await db()).rejectionCount.findMany({ where: { reason: "method_not_allowed" }, select: { endpoint: true, httpStatus: true, count: true } });
    assert.deepEqual([counted.reduce((sum, row) => sum + row.count, 0), new Set(counted.map((row) => `${row.endpoint} ${row.httpStatus}`))], [6, new Set(["lab 405"])]);
    const sampled = counted.reduce((sum, row) => sum + Math.min(5, row.count), 0);
    assert.deepEqual(await tally(), { ...before, decisions: before.decisions + sampled });
    const rows = await (await db()).decision.findMany({ where: { httpStatus: 405 }, select: { verified: true, eventId: true, outcome: true } });
    assert.deepEqual(rows, Array(sampled).fill({ verified: false, eventId: null, outcome: "rejected" }));
  });

  test("a wrong or missing content type is 415 with the reason, even when the signature is valid", async () => {
    const body = labEvent("evt_ct", "payment.approved", "ord_ct", "pay_ct", 903);
    const signature = signTimestamped(TEST_LAB_SECRET, now(), body);
    const before = await tally();
    const cases: [string | undefined, string][] = [
      ["text/plain", "unsupported Content-Type text/plain: expected application/json"],
      ["application/x-www-form-urlencoded", "unsupported Content-Type application/x-www-form-urlencoded: expected application/json"],
      ["application/json; charset=iso-8859-1", "unsupported Content-Type charset: expected utf-8"],
      ["application/json, application/json", "unsupported Content-Type an unreadable media type: expected application/json"],
      [undefined, "missing Content-Type: expected application/json"],
    ];
    for (const [contentType, reason] of cases) {
      // A string body gets text/plain from fetch unless a type is given: send bytes when the header is absent.
      const answer = await post(contentType === undefined ? new TextEncoder().encode(body) : body, { ...(contentType ? { "content-type": contentType } : {}), "Lab-Signature": signature });
      assert.deepEqual([answer.status, answer.json], [415, { outcome: "rejected", reason }], String(contentType));
    }
    assert.deepEqual(await tally(), { ...before, decisions: before.decisions + 5 });
    assert.equal((await readOrder("ord_ct")).credited, 0);
  });

  test("application/json with charset=utf-8, in any case and quoted, is accepted", async () => {
    const body = labEvent("evt_ct2", "payment.approved", "ord_ct2", "pay_ct2", 904);
    const answer = await post(body, { "content-type": 'Application/JSON;Charset="UTF-8"', "Lab-Signature": signTimestamped(TEST_LAB_SECRET, now(), body) });
    assert.deepEqual([answer.status, answer.json.outcome], [200, "applied"]);
    assert.equal(contentTypeProblem("application/json; charset=utf-8"), undefined);
    assert.equal(contentTypeProblem("application/json"), undefined);
    assert.equal(contentTypeProblem("application/json;charset=utf8"), undefined);
  });

  test("an unknown endpoint is 404 without reading the body, with one decision row", async () => {
    const { stream, pulled } = endlessBody();
    const before = await tally();
    const response = await route.POST(new Request("http://127.0.0.1/api/webhooks/nope", { method: "POST", body: stream, duplex: "half", headers: { "content-type": "application/json" } } as RequestInit), context("nope"));
    assert.deepEqual([response.status, await response.json()], [404, { outcome: "rejected", reason: "unknown webhook endpoint" }]);
    assert.equal(pulled(), 0);
    assert.deepEqual(await tally(), { ...before, decisions: before.decisions + 1 });
  });
});
