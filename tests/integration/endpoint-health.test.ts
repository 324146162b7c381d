import "@/e2e/support/test-env";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { closeDb, db } from "@/lib/db/client";
import { flushRejectionCounts } from "@/lib/decisions/rejection-counter";
import { endpointsHealth, type EndpointHealth } from "@/lib/endpoints/endpoint-health";
import { createOrder, deliverLab, labEvent } from "@/e2e/support/http";
import { TEST_DB, TEST_LAB_SECRET, TEST_LAB_SECRET_NEXT } from "@/e2e/support/test-env";
import { onPostgres, storedText } from "@/e2e/support/test-database";

const RETIRED = "lab_retired_secret_0000";
const DAY = 86_400_000;
let now: Date;
let lab: EndpointHealth;

function zero() {
  return { applied: 0, accepted: 0, duplicate: 0, ignored: 0, retry_scheduled: 0, dead_lettered: 0, conflict: 0, rejected: 0 };
}

before(async () => {
  process.env.LAB_WEBHOOK_RETIRED_SECRETS = RETIRED;
  assert.equal((await createOrder("eh_1", 1000)).status, 201);
  // LAB_WEBHOOK_SECRET[0] matches: applied, then the same delivery again (duplicate).
  assert.equal((await deliverLab(labEvent("evt_eh_1", "payment.approved", "eh_1", "pay_eh_1", 1000))).json.outcome, "applied");
  assert.equal((await deliverLab(labEvent("evt_eh_1", "payment.approved", "eh_1", "pay_eh_1", 1000))).json.outcome, "duplicate");
  // An unknown order: dead letter.
  assert.equal((await deliverLab(labEvent("evt_eh_2", "payment.approved", "eh_missing", "pay_eh_2", 500))).status, 409);
  // Signed with the retired secret, and twice with a secret nobody configured: three refusals (401).
  assert.equal((await deliverLab(labEvent("evt_eh_3", "payment.approved", "eh_1", "pay_eh_3", 1000), { secret: RETIRED })).status, 401);
  for (const n of [4, 5]) assert.equal((await deliverLab(labEvent(`evt_eh_${n}`, "payment.approved", "eh_1", `pay_eh_${n}`, 1000), { secret: "nobody_knows_this_0000" })).status, 401);
  await flushRejectionCounts();
  now = new Date(Date.now() + 1_000);

  const client = await db();
  const decision = { provider: "lab", endpoint: "lab", verified: true, outcome: "applied", reason: "seeded" };
  // LAB_WEBHOOK_SECRET[1], the old one, last matched 3 days and 1 hour ago; a worker's later decision
  // carrying its label (applying an old event) is not a match at the receiver.
  await client.decision.create({ data: { ...decision, at: new Date(now.getTime() - 3 * DAY - 3_600_000), secretLabel: "LAB_WEBHOOK_SECRET[1]", eventId: "evt_old_1" } });
  await client.decision.create({ data: { ...decision, at: new Date(now.getTime() - 3_600_000), secretLabel: "LAB_WEBHOOK_SECRET[1]", eventId: "evt_old_1", source: "worker" } });
  // Ten days ago: outside every window.
  await client.decision.create({ data: { ...decision, at: new Date(now.getTime() - 10 * DAY), secretLabel: "LAB_WEBHOOK_SECRET[0]", eventId: "evt_older" } });
  // Two events waiting in the inbox, the oldest received 2 hours ago; one finished event is not pending.
  const event = { provider: "lab", endpoint: "lab", account: "lab", livemode: true, type: "payment.approved", bodyHash: "0".repeat(64), payload: "{}" };
  await client.webhookEvent.create({ data: { ...event, eventId: "evt_wait_1", status: "received", receivedAt: new Date(now.getTime() - 7_200_000) } });
  await client.webhookEvent.create({ data: { ...event, eventId: "evt_wait_2", status: "failed", attempts: 1, receivedAt: new Date(now.getTime() - 600_000) } });
  await client.webhookEvent.create({ data: { ...event, eventId: "evt_done", status: "processed", receivedAt: new Date(now.getTime() - 9 * 3_600_000) } });

  lab = (await endpointsHealth(client, { now })).endpoints.find((endpoint) => endpoint.name === "lab")!;
});
after(async () => {
  delete process.env.LAB_WEBHOOK_RETIRED_SECRETS;
  await closeDb();
});

describe("endpoint health", () => {
  test("every defined endpoint is listed; in production those without secrets are disabled, naming the variable", async () => {
    const health = await endpointsHealth(await db(), { now });
    assert.deepEqual(
      health.endpoints.map((endpoint) => [endpoint.name, endpoint.provider, endpoint.livemode, endpoint.mode, endpoint.state, endpoint.stateDetail, endpoint.publicDemoSecret]),
      [
        ["lab", "lab", true, "inline", "enabled", null, false],
        ["stripe", "stripe", true, "inbox", "disabled", "disabled: STRIPE_WEBHOOK_SECRET is not set", false],
        ["stripe-test", "stripe", false, "inbox", "disabled", "disabled: STRIPE_TEST_WEBHOOK_SECRET is not set", false],
        ["yolfi", "yolfi", true, "inbox", "disabled", "disabled: YOLFI_WEBHOOK_SECRET is not set", false],
        ["yolfi-test", "yolfi", false, "inbox", "disabled", "disabled: YOLFI_TEST_WEBHOOK_SECRET is not set", false],
        ["standard-webhooks", "standard-webhooks", true, "inbox", "disabled", "disabled: STANDARD_WEBHOOKS_SECRET is not set", false],
      ],
    );
    assert.equal(health.endpoints[1].lastDelivery, null);
    assert.deepEqual(health.endpoints[1].last7d, zero());
  });

  test("counts per outcome: the last 24 h, the 7 days, one slice per day; refusals exactly once, from their counter", () => {
    assert.deepEqual(lab.last24h, { ...zero(), applied: 2, duplicate: 1, dead_lettered: 1, rejected: 3 });
    assert.deepEqual(lab.last7d, { ...zero(), applied: 3, duplicate: 1, dead_lettered: 1, rejected: 3 });
    assert.deepEqual(
      lab.slices.map((slice) => slice.total),
      [0, 0, 0, 1, 0, 0, 7],
    );
    assert.equal(lab.slices[6].end, now.toISOString());
    assert.equal(lab.slices[0].start, new Date(now.getTime() - 7 * DAY).toISOString());
  });

  test("the last delivery is the newest decision, and the pending inbox events with the oldest one's arrival", () => {
    assert.deepEqual(lab.lastDelivery && [lab.lastDelivery.outcome, lab.lastDelivery.httpStatus, lab.lastDelivery.verified], ["rejected", 401, false]);
    assert.deepEqual(lab.pending, { count: 2, oldestReceivedAt: new Date(now.getTime() - 7_200_000).toISOString() });
  });

  test("a dashboard or CLI retry is not a delivery: the last delivery stays the provider's newest one", async () => {
    const client = await db();
    const newest = await client.decision.findFirst({ where: { endpoint: "lab", source: "receiver" }, orderBy: { at: "desc" }, select: { at: true } });
    const retries = await Promise.all(
      (["retry", "cli"] as const).map((source, index) =>
        client.decision.create({ data: { provider: "lab", endpoint: "lab", verified: true, outcome: "applied", httpStatus: 200, reason: "retried", source, eventId: "evt_eh_2", at: new Date(now.getTime() - 100 + index) } }),
      ),
    );
    try {
      const health = (await endpointsHealth(client, { now })).endpoints.find((endpoint) => endpoint.name === "lab")!;
      assert.deepEqual(health.lastDelivery, { at: newest!.at.toISOString(), outcome: "rejected", httpStatus: 401, verified: false });
    } finally {
      await client.decision.deleteMany({ where: { id: { in: retries.map((row) => row.id) } } });
    }
  });

  test("rotation: the current secret in use, the old one quiet for 3 days safe to retire, the retired one still tried", () => {
    assert.deepEqual(
      lab.secrets.map((secret) => [secret.label, secret.kind, secret.status]),
      [
        ["LAB_WEBHOOK_SECRET[0]", "active", "in_use"],
        ["LAB_WEBHOOK_SECRET[1]", "active", "safe_to_retire"],
        ["LAB_WEBHOOK_RETIRED_SECRETS[0]", "retired", "still_tried"],
      ],
    );
    assert.equal(lab.secrets[1].lastSeenAt, new Date(now.getTime() - 3 * DAY - 3_600_000).toISOString());
  });

  test("the refusal signed with a retired secret stores that secret's label on its decision row, never a value", async () => {
    const rows = await (await db()).decision.findMany({ where: { endpoint: "lab", outcome: "rejected" }, orderBy: { at: "asc" }, select: { eventId: true, verified: true, secretLabel: true, diagnosis: true } });
    assert.deepEqual(
      rows.map((row) => [row.eventId, row.verified, row.secretLabel]),
      [
        ["evt_eh_3", false, "LAB_WEBHOOK_RETIRED_SECRETS[0]"],
        ["evt_eh_4", false, null],
        ["evt_eh_5", false, null],
      ],
    );
    assert.match(rows[0].diagnosis!, /^signed with a retired secret \(LAB_WEBHOOK_RETIRED_SECRETS\[0\]\)/);
  });

  test("no secret value in the answer, the database or the log; the retired secret by label only", async () => {
    const answer = JSON.stringify(await endpointsHealth(await db(), { now }));
    assert.match(answer, /LAB_WEBHOOK_RETIRED_SECRETS\[0\]/);
    if (!onPostgres) await (await db()).$executeRawUnsafe("PRAGMA wal_checkpoint(FULL)");
    const log = existsSync(process.env.LOG_FILE!) ? readFileSync(process.env.LOG_FILE!, "latin1") : "";
    const stored = await storedText(TEST_DB);
    for (const value of [TEST_LAB_SECRET, TEST_LAB_SECRET_NEXT, RETIRED]) {
      for (const form of [value, Buffer.from(value).toString("base64").slice(0, 16), Buffer.from(value).toString("base64url").slice(0, 16)]) {
        assert.equal(answer.includes(form), false, "a secret value in the answer");
        assert.equal(stored.includes(form), false, "a secret value in the database");
        assert.equal(log.includes(form), false, "a secret value in the log");
      }
    }
  });

  test("demo mode: an endpoint without its variable uses the public demo secret, flagged", async () => {
    const health = await endpointsHealth(await db(), { now, env: { ...process.env, ACREDITA_MODE: "demo" } });
    const stripe = health.endpoints.find((endpoint) => endpoint.name === "stripe")!;
    assert.deepEqual([stripe.state, stripe.publicDemoSecret], ["enabled", true]);
    assert.deepEqual(stripe.secrets, [{ label: "STRIPE_WEBHOOK_SECRET[demo]", kind: "demo", lastSeenAt: null, status: "public_demo" }]);
    // The lab's own variable is set: its real secrets, not the demo one.
    assert.equal(health.endpoints.find((endpoint) => endpoint.name === "lab")!.publicDemoSecret, false);
  });

  test("on SQLite the slice counts read the covering index only, and the seeks use their indexes", { skip: onPostgres }, async () => {
    const plan = async (sql: string) => ((await (await db()).$queryRawUnsafe(`EXPLAIN QUERY PLAN ${sql}`, ...[now.toISOString(), now.toISOString()].slice(0, (sql.match(/\?/g) ?? []).length))) as { detail: string }[]).map((row) => row.detail).join(" | ");
    assert.match(await plan(`SELECT "endpoint", "outcome", "verified", COUNT(*) FROM "Decision" WHERE "at" >= ? AND "at" < ? GROUP BY "endpoint", "outcome", "verified"`), /USING COVERING INDEX Decision_at_endpoint_outcome_verified_idx/);
    assert.match(await plan(`SELECT "at" FROM "Decision" WHERE "endpoint" = 'lab' AND "source" = 'receiver' ORDER BY "at" DESC LIMIT 1`), /USING (COVERING )?INDEX Decision_endpoint_at_idx/);
    assert.match(await plan(`SELECT "at" FROM "Decision" WHERE "endpoint" = 'lab' AND "secretLabel" = 'X[0]' AND "source" = 'receiver' ORDER BY "at" DESC LIMIT 1`), /USING COVERING INDEX Decision_endpoint_secretLabel_source_at_idx/);
  });

  test("a misconfigured endpoint is listed as such, naming the label and never the value", async () => {
    const health = await endpointsHealth(await db(), { now, env: { ...process.env, YOLFI_WEBHOOK_SECRET: "short" } });
    const yolfi = health.endpoints.find((endpoint) => endpoint.name === "yolfi")!;
    assert.equal(yolfi.state, "misconfigured");
    assert.match(yolfi.stateDetail!, /^endpoint yolfi: YOLFI_WEBHOOK_SECRET\[0\] needs at least 8 characters/);
    assert.equal(JSON.stringify(yolfi).includes('"short"'), false);
  });
});
