import "@/e2e/support/test-env";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { GET as getMetrics } from "@/app/api/metrics/route";
import { GET as getPrometheus } from "@/app/api/metrics/prometheus/route";
import { POST as postWebhook } from "@/app/api/webhooks/[endpoint]/route";
import { closeDb, db } from "@/lib/db/client";
import { flushRejectionCounts } from "@/lib/decisions/rejection-counter";
import { InboxWorker } from "@/lib/inbox/inbox-worker";
import { collectOperationalMetrics } from "@/lib/monitoring/operational-metrics";
import { claimNextOutboxMessage, markAbandonedSendsUncertain } from "@/lib/outbox/outbox-store";
import { createOrder, deliverLab, labEvent } from "@/e2e/support/http";
import { closedPort } from "@/e2e/support/merchant";
import { TEST_API_TOKEN } from "@/e2e/support/test-env";

const auth = { authorization: `Bearer ${TEST_API_TOKEN}` };

before(async () => {
  process.env.FULFILMENT_WEBHOOK_URL = `http://127.0.0.1:${await closedPort()}/fulfil`;
  for (const [id, amount] of [["ord_m1", 1000], ["ord_m2", 2000], ["ord_m3", 3000], ["ord_m4", 4000], ["ord_m5", 5000]] as const) {
    assert.equal((await createOrder(id, amount)).status, 201);
  }
  // Inline: two paid orders (two fulfilment messages), one amount mismatch (one open dead letter).
  process.env.LAB_PROCESSING_MODE = "inline";
  assert.equal((await deliverLab(labEvent("evt_m1", "payment.approved", "ord_m1", "pay_m1", 1000))).status, 200);
  assert.equal((await deliverLab(labEvent("evt_m2", "payment.approved", "ord_m2", "pay_m2", 2000))).status, 200);
  assert.equal((await deliverLab(labEvent("evt_m3", "payment.approved", "ord_m3", "pay_m3", 1))).status, 422);
  // Inbox: a refund the worker parks (one failed attempt), then two events nobody applied yet.
  process.env.LAB_PROCESSING_MODE = "inbox";
  assert.equal((await deliverLab(labEvent("evt_m4r", "payment.refunded", "ord_m4", "pay_m4", 4000))).status, 200);
  assert.equal((await new InboxWorker(db, { policy: { baseDelayMs: 600_000, maxDelayMs: 600_000, maxAttempts: 5, maxAgeSeconds: 86_400 } }).runOnce())?.kind, "retry_scheduled");
  assert.equal((await deliverLab(labEvent("evt_m5", "payment.approved", "ord_m5", "pay_m5", 5000))).status, 200);
  assert.equal((await deliverLab(labEvent("evt_m4", "payment.approved", "ord_m4", "pay_m4", 4000))).status, 200);
  // A dispatcher that died mid-send: its message becomes uncertain when the lease expires.
  const now = new Date();
  assert.ok(await claimNextOutboxMessage(await db(), "dead-dispatcher", now, 1_000));
  assert.equal(await markAbandonedSendsUncertain(await db(), new Date(now.getTime() + 1_001)), 1);
});
after(closeDb);

describe("operational metrics", () => {
  test("the counts an operator alerts on, exactly", async () => {
    const database = await db();
    const oldest = await database.webhookEvent.findFirstOrThrow({ where: { eventId: "evt_m4r" } });
    const at = new Date(oldest.receivedAt.getTime() + 90_000);
    assert.deepEqual(await collectOperationalMetrics(database, at), {
      generatedAt: at.toISOString(),
      inbox: { pending: 3, received: 2, processing: 0, parked: 1, oldestPendingAgeSeconds: 90 },
      failedAttemptsLastHour: 2,
      unavailableAnswersLastHour: 0,
      unboundAccountEventsLastHour: 0,
      deadLetters: { open: 1 },
      outbox: { pending: 1, sending: 0, uncertain: 1, failed: 0, sent: 0 },
      confirmedPaymentsWithoutDeliveryResult: 2,
      rejectionsLastHour: { total: 0, byReason: {} },
      rejectionTotals: [],
      books: null,
      gapChecks: [],
    });
  });

  test("GET /api/metrics needs the bearer token and answers the same counts as JSON, refusals before a signature included", async () => {
    // Two unsigned posts to /lab and one to an unknown name: counted (written within REJECTION_FLUSH_INTERVAL_MS).
    for (const endpoint of ["lab", "lab", "no-such-endpoint"]) {
      await postWebhook(new Request(`http://127.0.0.1/api/webhooks/${endpoint}`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } }), { params: Promise.resolve({ endpoint }) });
    }
    await flushRejectionCounts();
    assert.equal((await getMetrics(new Request("http://127.0.0.1/api/metrics"))).status, 401);
    assert.equal((await getMetrics(new Request("http://127.0.0.1/api/metrics", { headers: { authorization: "Bearer wrong-token" } }))).status, 401);
    const response = await getMetrics(new Request("http://127.0.0.1/api/metrics", { headers: auth }));
    assert.equal(response.status, 200);
    const json = await response.json();
    assert.deepEqual(json.inbox.pending, 3);
    assert.deepEqual(json.deadLetters, { open: 1 });
    assert.equal(json.outbox.uncertain, 1);
    assert.equal(json.confirmedPaymentsWithoutDeliveryResult, 2);
    assert.deepEqual(json.rejectionsLastHour, { total: 3, byReason: { signature_missing: 2, unknown_endpoint: 1 } });
    assert.deepEqual(json.rejectionTotals, [
      { endpoint: "(unknown)", reason: "unknown_endpoint", count: 1 },
      { endpoint: "lab", reason: "signature_missing", count: 2 },
    ]);
  });

  test("GET /api/metrics/prometheus serves the same counts in Prometheus text format", async () => {
    assert.equal((await getPrometheus(new Request("http://127.0.0.1/api/metrics/prometheus"))).status, 401);
    const response = await getPrometheus(new Request("http://127.0.0.1/api/metrics/prometheus", { headers: auth }));
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
    const lines = (await response.text()).split("\n").filter((line) => line && !line.startsWith("#"));
    for (const expected of [
      'acredita_inbox_events_pending{status="received"} 2',
      'acredita_inbox_events_pending{status="processing"} 0',
      'acredita_inbox_events_pending{status="parked"} 1',
      "acredita_failed_attempts_last_hour 2",
      "acredita_unavailable_answers_last_hour 0",
      "acredita_connect_events_unbound_last_hour 0",
      "acredita_dead_letters_open 1",
      'acredita_outbox_messages{status="uncertain"} 1',
      'acredita_outbox_messages{status="pending"} 1',
      "acredita_outbox_uncertain 1",
      "acredita_confirmed_payments_without_delivery_result 2",
      'acredita_webhook_rejections_total{endpoint="(unknown)",reason="unknown_endpoint"} 1',
      'acredita_webhook_rejections_total{endpoint="lab",reason="signature_missing"} 2',
      'acredita_webhook_rejections_last_hour{reason="signature_missing"} 2',
    ]) {
      assert.ok(lines.includes(expected), `missing line: ${expected}`);
    }
    assert.equal(lines.filter((line) => line.startsWith("acredita_inbox_oldest_pending_age_seconds ")).length, 1);
  });
});
