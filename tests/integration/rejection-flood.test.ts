import { TEST_LAB_SECRET } from "@/e2e/support/test-env";
// Unauthenticated traffic cannot fill the disk: refusals before a valid signature are counted per
// endpoint, reason and UTC minute (RejectionCount), with only the first REJECTION_SAMPLE_PER_MINUTE
// (default 5) of each stored in full as decision rows; unknown endpoint names share one key. A
// real signed delivery in the middle of the flood is applied as usual, with its own decision row.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { closeDb, db } from "@/lib/db/client";
import { flushRejectionCounts, minuteOf, RejectionCounter, UNKNOWN_ENDPOINT } from "@/lib/decisions/rejection-counter";
import { rejectionSummary } from "@/lib/decisions/rejection-summary";
import { collectOperationalMetrics } from "@/lib/monitoring/operational-metrics";
import { renderPrometheus } from "@/lib/monitoring/prometheus";
import { receiveWebhookRequest } from "@/lib/ingest/receive-webhook-request";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";
import { createOrder, labEvent } from "@/e2e/support/http";

const SAMPLE = 5;
// Every request of the flood is received "at" one fixed instant, 10 s into the current UTC minute, so the
// counts cannot straddle a minute boundary.
const at = new Date(minuteOf(new Date()).getTime() + 10_000);
const nextMinute = new Date(at.getTime() + 60_000);

function post(endpoint: string, body: string, headers: Record<string, string>, now = at) {
  const request = new Request(`http://127.0.0.1/api/webhooks/${encodeURIComponent(endpoint)}`, { method: "POST", body, headers: { "content-type": "application/json", ...headers } });
  return receiveWebhookRequest(request, endpoint, { now });
}

const unsignedBody = (index: number) => JSON.stringify({ id: `evt_flood_${index}`, type: "payment.approved", data: { payment_id: `pay_flood_${index}`, order_id: "ord_flood", amount: 1, currency: "ARS" } });

async function counts() {
  await flushRejectionCounts();
  return (await db()).rejectionCount.findMany({ orderBy: [{ minute: "asc" }, { endpoint: "asc" }, { reason: "asc" }], select: { endpoint: true, provider: true, reason: true, httpStatus: true, minute: true, count: true } });
}

before(async () => {
  assert.equal((await createOrder("ord_real", 2_500, "ARS")).status, 201);
});
after(closeDb);

describe("a flood of 1,000 unsigned posts", () => {
  const names = Array.from({ length: 500 }, () => `nonexistent-${randomBytes(6).toString("hex")}`);

  test("500 to /lab and 500 to random unknown names leave exactly 10 decision rows and 2 counts summing to 1,000; a signed delivery meanwhile is applied", async () => {
    const realBody = labEvent("evt_real", "payment.approved", "ord_real", "pay_real", 2_500);
    const answers: Promise<{ status: number }>[] = [];
    let real: Promise<{ status: number; body: { outcome: string } }> | undefined;
    for (let index = 0; index < 500; index += 1) {
      answers.push(post("lab", unsignedBody(index), {}));
      answers.push(post(names[index], unsignedBody(index), {}));
      if (index === 250) real = post("lab", realBody, { "Lab-Signature": signTimestamped(TEST_LAB_SECRET, Math.floor(at.getTime() / 1000), realBody) });
    }
    const statuses = (await Promise.all(answers)).map((answer) => answer.status);
    assert.deepEqual([statuses.filter((status) => status === 401).length, statuses.filter((status) => status === 404).length], [500, 500]);
    const realAnswer = await real!;
    assert.deepEqual([realAnswer.status, realAnswer.body.outcome], [200, "applied"]);

    const database = await db();
    const ledger = await database.ledgerEntry.findMany({ where: { orderId: "ord_real" }, select: { kind: true, amount: true } });
    assert.deepEqual(ledger, [{ kind: "credit", amount: 2_500 }]);
    assert.equal(await database.decision.count({ where: { verified: true } }), 1);
    assert.equal((await database.decision.findFirstOrThrow({ where: { verified: true } })).outcome, "applied");

    const sampled = await database.decision.findMany({ where: { verified: false }, orderBy: { endpoint: "asc" }, select: { provider: true, endpoint: true, httpStatus: true, reason: true, eventId: true } });
    assert.equal(sampled.length, 2 * SAMPLE);
    const lab = sampled.filter((row) => row.endpoint === "lab");
    assert.deepEqual(new Set(lab.map((row) => `${row.provider} ${row.httpStatus} ${row.reason}`)), new Set(["lab 401 missing Lab-Signature header"]));
    assert.equal(lab.length, SAMPLE);
    // The sampled 404 rows keep the name as sent (the first five names, clipped to 100 characters).
    const unknown = sampled.filter((row) => row.endpoint !== "lab");
    assert.deepEqual(unknown.map((row) => row.endpoint).sort(), names.slice(0, SAMPLE).sort());
    assert.deepEqual(new Set(unknown.map((row) => `${row.provider} ${row.httpStatus} ${row.reason}`)), new Set(["unknown 404 unknown webhook endpoint"]));

    const rows = await counts();
    assert.deepEqual(rows, [
      { endpoint: UNKNOWN_ENDPOINT, provider: "unknown", reason: "unknown_endpoint", httpStatus: 404, minute: minuteOf(at), count: 500 },
      { endpoint: "lab", provider: "lab", reason: "signature_missing", httpStatus: 401, minute: minuteOf(at), count: 500 },
    ]);
    assert.equal(rows.reduce((sum, row) => sum + row.count, 0), 1_000);
    // No attacker-chosen name became a key.
    assert.equal(await database.rejectionCount.count({ where: { endpoint: { startsWith: "nonexistent-" } } }), 0);
  });

  test("the next minute samples 5 more of each and counts under a new row; the first minute's row grows in place", async () => {
    for (let index = 0; index < 20; index += 1) {
      assert.equal((await post("lab", unsignedBody(index), {}, nextMinute)).status, 401);
      assert.equal((await post(names[index], unsignedBody(index), {}, nextMinute)).status, 404);
    }
    assert.equal((await post("lab", unsignedBody(0), {})).status, 401);
    assert.equal(await (await db()).decision.count({ where: { verified: false } }), 4 * SAMPLE);
    assert.deepEqual(
      (await counts()).map((row) => [row.endpoint, row.reason, row.minute.getTime(), row.count]),
      [
        [UNKNOWN_ENDPOINT, "unknown_endpoint", minuteOf(at).getTime(), 500],
        ["lab", "signature_missing", minuteOf(at).getTime(), 501],
        [UNKNOWN_ENDPOINT, "unknown_endpoint", minuteOf(nextMinute).getTime(), 20],
        ["lab", "signature_missing", minuteOf(nextMinute).getTime(), 20],
      ],
    );
  });

  test("a sampled bad signature keeps its diagnosis; each refusal kind has its own key", async () => {
    const body = unsignedBody(1);
    const later = new Date(at.getTime() + 120_000);
    const signed = signTimestamped(TEST_LAB_SECRET, Math.floor(later.getTime() / 1000), body);
    // The signed bytes plus a trailing newline: the decision log's diagnosis says the body was re-serialised.
    assert.equal((await post("lab", `${body}\n`, { "Lab-Signature": signed }, later)).status, 401);
    assert.equal((await post("lab", body, { "Lab-Signature": "garbage" }, later)).status, 401);
    assert.equal((await post("lab", body, { "Lab-Signature": signTimestamped(TEST_LAB_SECRET, Math.floor(later.getTime() / 1000) - 3_600, body) }, later)).status, 401);
    assert.equal((await post("lab", body, { "content-type": "text/plain" }, later)).status, 415);
    const rows = (await counts()).filter((row) => row.minute.getTime() === minuteOf(later).getTime());
    assert.deepEqual(rows.map((row) => [row.reason, row.httpStatus, row.count]), [
      ["signature_malformed", 401, 1],
      ["signature_mismatch", 401, 1],
      ["timestamp_outside_tolerance", 401, 1],
      ["unsupported_media_type", 415, 1],
    ]);
    const mismatch = await (await db()).decision.findFirstOrThrow({ where: { reason: "signature does not match any configured signing secret" }, select: { diagnosis: true, eventId: true, verified: true } });
    assert.equal(mismatch.verified, false);
    assert.equal(mismatch.eventId, "evt_flood_1");
    assert.match(mismatch.diagnosis ?? "", /^signature matches LAB_WEBHOOK_SECRET\[0\] over compact JSON .*re-serialised/);
  });

  test("/api/metrics counts the last hour by reason, and Prometheus exposes a counter per endpoint and reason", async () => {
    await flushRejectionCounts();
    const metrics = await collectOperationalMetrics(await db(), new Date(at.getTime() + 180_000));
    assert.deepEqual(metrics.rejectionsLastHour, {
      total: 1_045,
      byReason: { signature_malformed: 1, signature_mismatch: 1, signature_missing: 521, timestamp_outside_tolerance: 1, unknown_endpoint: 520, unsupported_media_type: 1 },
    });
    const text = await renderPrometheus(metrics);
    assert.match(text, /# TYPE acredita_webhook_rejections_total counter/);
    assert.match(text, /acredita_webhook_rejections_total\{endpoint="lab",reason="signature_missing"\} 521/);
    assert.match(text, /acredita_webhook_rejections_total\{endpoint="\(unknown\)",reason="unknown_endpoint"\} 520/);
    // The decision log's summary (last 24 hours): per endpoint and reason, largest first.
    assert.deepEqual(await rejectionSummary(await db(), { now: new Date(at.getTime() + 180_000) }), {
      total: 1_045,
      rows: [
        { endpoint: "lab", reason: "signature_missing", httpStatus: 401, count: 521 },
        { endpoint: UNKNOWN_ENDPOINT, reason: "unknown_endpoint", httpStatus: 404, count: 520 },
        { endpoint: "lab", reason: "signature_malformed", httpStatus: 401, count: 1 },
        { endpoint: "lab", reason: "signature_mismatch", httpStatus: 401, count: 1 },
        { endpoint: "lab", reason: "timestamp_outside_tolerance", httpStatus: 401, count: 1 },
        { endpoint: "lab", reason: "unsupported_media_type", httpStatus: 415, count: 1 },
      ],
    });
    // An hour later the window is empty.
    assert.deepEqual((await collectOperationalMetrics(await db(), new Date(at.getTime() + 2 * 3_600_000))).rejectionsLastHour, { total: 0, byReason: {} });
  });
});

describe("the counter's writes", () => {
  test("two processes flushing the same key add up (one row, count 7)", async () => {
    const database = await db();
    const minute = new Date(at.getTime() + 3_600_000);
    const a = new RejectionCounter(() => Promise.resolve(database), { samplePerMinute: 0, flushIntervalMs: 60_000 });
    const b = new RejectionCounter(() => Promise.resolve(database), { samplePerMinute: 0, flushIntervalMs: 60_000 });
    const key = { endpoint: "stripe", provider: "stripe", reason: "signature_mismatch" as const, httpStatus: 401 };
    for (let index = 0; index < 3; index += 1) assert.equal(a.count(key, minute), false);
    for (let index = 0; index < 4; index += 1) assert.equal(b.count(key, minute), false);
    await Promise.all([a.flush(), b.flush()]);
    const row = await database.rejectionCount.findUniqueOrThrow({ where: { endpoint_reason_minute: { endpoint: "stripe", reason: "signature_mismatch", minute: minuteOf(minute) } } });
    assert.deepEqual([row.count, row.firstAt.getTime(), row.lastAt.getTime()], [7, minute.getTime(), minute.getTime()]);
  });

  test("a flush that fails keeps its counts for the next one", async () => {
    const database = await db();
    let calls = 0;
    const counter = new RejectionCounter(
      async () => {
        calls += 1;
        if (calls === 1) throw new Error("database unavailable");
        return database;
      },
      { samplePerMinute: 1, flushIntervalMs: 60_000 },
    );
    const minute = new Date(at.getTime() + 2 * 3_600_000);
    const key = { endpoint: "yolfi", provider: "yolfi", reason: "signature_missing" as const, httpStatus: 401 };
    assert.deepEqual([counter.count(key, minute), counter.count(key, minute)], [true, false]);
    await counter.flush();
    assert.equal(await database.rejectionCount.count({ where: { endpoint: "yolfi" } }), 0);
    counter.count(key, minute);
    await counter.flush();
    assert.equal((await database.rejectionCount.findFirstOrThrow({ where: { endpoint: "yolfi" } })).count, 3);
  });
});
