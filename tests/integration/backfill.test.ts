import { TEST_DB } from "@/e2e/support/test-env";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startFakeStripeApi, type FakeStripeApi } from "@/e2e/support/fake-stripe-api";
import { createOrder, deliver, readOrder } from "@/e2e/support/http";
import { paymentIntent, stripeEvent, stripeHeader } from "@/e2e/support/providers";
import { backfillEvents } from "@/lib/backfill/backfill";
import { GAP_CHECK_WINDOW_MS, GapCheckScheduler, runGapCheck } from "@/lib/backfill/gap-check";
import { endpointsHealth } from "@/lib/endpoints/endpoint-health";
import { collectOperationalMetrics } from "@/lib/monitoring/operational-metrics";
import { renderPrometheus } from "@/lib/monitoring/prometheus";
import { closeDb, db } from "@/lib/db/client";
import { resolveEndpoint } from "@/lib/endpoints/endpoints";
import { InboxWorker } from "@/lib/inbox/inbox-worker";
import { inboxRetryPolicy } from "@/lib/jobs/retry-policy";
import { listStripeEvents, ProviderApiError } from "@/lib/provider-api/stripe-api";
import { runMain } from "@/e2e/support/cli";
import { main } from "@/scripts/backfill";

const USAGE_LINE = "usage: npm run backfill -- --endpoint <id or name> --since <72h | 30m | 2d | ISO time> [--dry-run]";

void TEST_DB;
const SECRET = "whsec_backfill_tests_0001";
const ACCOUNT = "acct_backfill_tests";
const API_KEY = "rk_live_backfill_tests_0001";
process.env.STRIPE_WEBHOOK_SECRET = SECRET;
process.env.STRIPE_ACCOUNT_ID = ACCOUNT;
delete process.env.WEBHOOK_PROCESSING_MODE;

let api: FakeStripeApi;
const worker = () => new InboxWorker(db, { policy: inboxRetryPolicy(), leaseMs: 30_000, random: () => 0.5 });
const access = () => ({ apiKey: API_KEY, livemode: true, apiBase: api.url, keyLabel: "STRIPE_API_KEY", sleep: async () => undefined });
const SINCE = new Date(1_764_300_000 * 1000);

/** A payment_intent.succeeded event for `orderId` created at `created` (unix s), as Stripe's API lists it. */
function succeeded(index: number, orderId: string, amount: number, created = 1_764_400_000 + index): Record<string, unknown> {
  return stripeEvent(`evt_bf_${index}`, "payment_intent.succeeded", paymentIntent({ id: `pi_bf_${index}`, orderId, amount, currency: "usd" }), { created });
}

/** Delivers `event` signed, as Stripe's webhook would (its bytes differ from the API's: pending_webhooks). */
function deliverLive(event: Record<string, unknown>) {
  const body = JSON.stringify({ ...event, pending_webhooks: 2 });
  return deliver("stripe", body, { "Stripe-Signature": stripeHeader(body, SECRET) });
}

async function storedRows(prefix: string) {
  return (await db()).webhookEvent.findMany({ where: { eventId: { startsWith: prefix } }, select: { eventId: true, status: true, bodyHash: true }, orderBy: { eventId: "asc" } });
}

before(async () => {
  api = await startFakeStripeApi(API_KEY);
});
after(async () => {
  await api.close();
  await closeDb();
});

describe("backfill of a Stripe endpoint from the API", () => {
  test("3 missed events among 10: exactly 3 stored (source backfill) and applied once; a second run stores none", async () => {
    for (let index = 0; index < 10; index++) assert.equal((await createOrder(`ord_bf_${index}`, 1000 + index, "USD")).status, 201);
    api.events = Array.from({ length: 10 }, (_, index) => succeeded(index, `ord_bf_${index}`, 1000 + index));
    // Seven were delivered; 3, 5 and 8 were missed (an outage).
    for (const index of [0, 1, 2, 4, 6, 7, 9]) assert.equal((await deliverLive(api.events[index])).status, 200);
    assert.equal((await worker().drain()).length, 7);

    const endpoint = resolveEndpoint("stripe")!;
    const report = await backfillEvents(await db(), endpoint, listStripeEvents(access(), SINCE));
    assert.deepEqual(report, { listed: 10, alreadyStored: 7, stored: 3, skipped: 0 });
    const backfilled = (await storedRows("evt_bf_")).filter((row) => row.bodyHash.startsWith("api:")).map((row) => [row.eventId, row.status]);
    assert.deepEqual(backfilled, [["evt_bf_3", "received"], ["evt_bf_5", "received"], ["evt_bf_8", "received"]]);
    const decisions = await (await db()).decision.findMany({ where: { eventId: { in: ["evt_bf_3", "evt_bf_5", "evt_bf_8"] } }, select: { eventId: true, outcome: true, source: true, verified: true }, orderBy: { eventId: "asc" } });
    assert.deepEqual(decisions, ["evt_bf_3", "evt_bf_5", "evt_bf_8"].map((eventId) => ({ eventId, outcome: "accepted", source: "backfill", verified: true })));

    assert.deepEqual((await worker().drain()).map((result) => result.kind), ["applied", "applied", "applied"]);
    for (const index of [3, 5, 8]) assert.deepEqual([(await readOrder(`ord_bf_${index}`)).status], ["paid"]);
    assert.equal(await (await db()).ledgerEntry.count({ where: { orderId: { startsWith: "ord_bf_" }, kind: "credit" } }), 10);

    // Again: nothing new.
    assert.deepEqual(await backfillEvents(await db(), endpoint, listStripeEvents(access(), SINCE)), { listed: 10, alreadyStored: 10, stored: 0, skipped: 0 });
    assert.equal((await storedRows("evt_bf_")).length, 10);
    // Pages of 100 through starting_after: one request per run here, each with the key, never another account.
    assert.ok(api.requests.every((request) => request.keyStart === API_KEY.slice(0, 8) && request.stripeAccount === undefined));
  });

  test("a late live delivery of a backfilled event is a duplicate, not a conflict; a dry run stores nothing", async () => {
    assert.equal((await createOrder("ord_bf_late", 700, "USD")).status, 201);
    const late = stripeEvent("evt_bf_late", "payment_intent.succeeded", paymentIntent({ id: "pi_bf_late", orderId: "ord_bf_late", amount: 700, currency: "usd" }), { created: 1_764_400_500 });
    api.events = [late];
    const endpoint = resolveEndpoint("stripe")!;
    assert.deepEqual(await backfillEvents(await db(), endpoint, listStripeEvents(access(), SINCE), { dryRun: true }), { listed: 1, alreadyStored: 0, stored: 1, skipped: 0 });
    assert.equal((await storedRows("evt_bf_late")).length, 0);

    assert.deepEqual(await backfillEvents(await db(), endpoint, listStripeEvents(access(), SINCE)), { listed: 1, alreadyStored: 0, stored: 1, skipped: 0 });
    const live = await deliverLive(late);
    assert.deepEqual([live.status, live.json.outcome], [200, "duplicate"]);
    assert.equal(await (await db()).deadLetter.count({ where: { eventId: "evt_bf_late" } }), 0);
    await worker().drain();
    assert.equal((await readOrder("ord_bf_late")).status, "paid");
    assert.equal(await (await db()).ledgerEntry.count({ where: { orderId: "ord_bf_late" } }), 1);
  });

  test("concurrent with live deliveries of the same events: each stored once, credited once", async () => {
    const events = Array.from({ length: 6 }, (_, index) => stripeEvent(`evt_bf_race_${index}`, "payment_intent.succeeded", paymentIntent({ id: `pi_bf_race_${index}`, orderId: `ord_bf_race_${index}`, amount: 500, currency: "usd" }), { created: 1_764_400_600 + index }));
    for (let index = 0; index < 6; index++) assert.equal((await createOrder(`ord_bf_race_${index}`, 500, "USD")).status, 201);
    api.events = events;
    const endpoint = resolveEndpoint("stripe")!;
    const [report, ...answers] = await Promise.all([backfillEvents(await db(), endpoint, listStripeEvents(access(), SINCE)), ...events.map((event) => deliverLive(event))]);
    assert.equal(report.listed, 6);
    assert.equal(report.stored + report.alreadyStored, 6);
    assert.ok(answers.every((answer) => answer.status === 200 && ["accepted", "duplicate"].includes(answer.json.outcome)), JSON.stringify(answers));
    assert.equal((await storedRows("evt_bf_race_")).length, 6);
    await worker().drain();
    assert.equal(await (await db()).ledgerEntry.count({ where: { orderId: { startsWith: "ord_bf_race_" } } }), 6);
    assert.equal(await (await db()).deadLetter.count({ where: { eventId: { startsWith: "evt_bf_race_" } } }), 0);
  });

  test("rate limits are waited out; a wrong key is one clear error naming the variable, never the key; a test key for a live endpoint is refused before any call", async () => {
    api.events = [];
    api.rateLimitNext = 3;
    const endpoint = resolveEndpoint("stripe")!;
    assert.deepEqual(await backfillEvents(await db(), endpoint, listStripeEvents(access(), SINCE)), { listed: 0, alreadyStored: 0, stored: 0, skipped: 0 });
    assert.equal(api.rateLimitNext, 0);

    const calls = api.requests.length;
    await assert.rejects(backfillEvents(await db(), endpoint, listStripeEvents({ ...access(), apiKey: "rk_live_wrong_key_000" }, SINCE)), (error: unknown) => {
      assert.ok(error instanceof ProviderApiError);
      assert.equal(error.code, "bad_key");
      assert.equal(error.message, "Stripe refused STRIPE_API_KEY (401): the key is wrong, expired or revoked");
      return true;
    });
    assert.equal(api.requests.length, calls + 1);
    await assert.rejects(backfillEvents(await db(), endpoint, listStripeEvents({ ...access(), apiKey: "rk_test_other_mode_01" }, SINCE)), {
      name: "ProviderApiError",
      message: "STRIPE_API_KEY is a test-mode key, but the endpoint is live: it can only list the other mode's events",
    });
    assert.equal(api.requests.length, calls + 1);
  });
});

describe("npm run backfill", () => {
  const env = (extra: Record<string, string | undefined> = {}) => ({ ...process.env, LOG_LEVEL: "silent", STRIPE_API_KEY: API_KEY, STRIPE_API_BASE: api.url, ...extra });

  test("--dry-run counts what it would store and stores nothing; then it stores them and prints the same JSON shape", async () => {
    assert.equal((await createOrder("ord_bf_cli", 4200, "USD")).status, 201);
    api.events = [stripeEvent("evt_bf_cli", "payment_intent.succeeded", paymentIntent({ id: "pi_bf_cli", orderId: "ord_bf_cli", amount: 4200, currency: "usd" }), { created: Math.floor(Date.now() / 1000) - 3600 })];
    const dry = await runMain(main, ["--endpoint", "stripe", "--since", "72h", "--dry-run"], env());
    assert.deepEqual([dry.code, dry.stdout, dry.stderr], [0, '{"listed":1,"alreadyStored":0,"stored":1,"skipped":0}\n', ""]);
    assert.equal((await storedRows("evt_bf_cli")).length, 0);
    const run = await runMain(main, ["--endpoint", "stripe", "--since", new Date(Date.now() - 7_200_000).toISOString()], env());
    assert.deepEqual([run.code, run.stdout, run.stderr], [0, '{"listed":1,"alreadyStored":0,"stored":1,"skipped":0}\n', ""]);
    assert.deepEqual((await storedRows("evt_bf_cli")).map((row) => row.status), ["received"]);
    // The run is recorded (the dry run is not).
    assert.deepEqual(await (await db()).gapCheck.findMany({ where: { trigger: "cli" }, select: { endpoint: true, status: true, listed: true, stored: true } }), [{ endpoint: "stripe", status: "done", listed: 1, stored: 1 }]);
    // Stripe was asked from 72 h and from 2 h back (created[gte] in unix seconds).
    const gtes = api.requests.slice(-2).map((request) => Number(new URL(request.path, api.url).searchParams.get("created[gte]")));
    assert.ok(Math.abs(Date.now() / 1000 - 72 * 3600 - gtes[0]) < 60 && Math.abs(Date.now() / 1000 - 2 * 3600 - gtes[1]) < 60, JSON.stringify(gtes));
  });

  test("refusals: usage and a bad --since exit 2; an endpoint without a key, of another provider or unknown exit 2; a refused key exits 1 naming the variable, never the key", async () => {
    assert.deepEqual(await runMain(main, ["--endpoint", "stripe"], env()), { code: 2, stdout: "", stderr: `${USAGE_LINE}\n` });
    assert.deepEqual(await runMain(main, ["--endpoint", "stripe", "--since", "yesterday"], env()), {
      code: 2,
      stdout: "",
      stderr: `backfill: --since yesterday: not a duration (72h, 30m, 2d) or a past ISO time with its zone (2026-12-01T09:00:00Z)\n${USAGE_LINE}\n`,
    });
    assert.deepEqual(await runMain(main, ["--endpoint", "stripe", "--since", "1h"], env({ STRIPE_API_KEY: undefined })), {
      code: 2,
      stdout: "",
      stderr: "backfill: endpoint stripe has no API key: set STRIPE_API_KEY to a restricted key with read access to events\n",
    });
    assert.deepEqual(await runMain(main, ["--endpoint", "lab", "--since", "1h"], env()), { code: 2, stdout: "", stderr: "backfill: endpoint lab receives lab events; a backfill reads Stripe's API only\n" });
    assert.deepEqual(await runMain(main, ["--endpoint", "nowhere", "--since", "1h"], env()), {
      code: 2,
      stdout: "",
      stderr: "backfill: no endpoint named nowhere is served here (its signing secret is not set, or the name is unknown)\n",
    });
    const refused = await runMain(main, ["--endpoint", "stripe", "--since", "1h"], env({ STRIPE_API_KEY: "rk_live_not_the_key_123" }));
    assert.deepEqual(refused, { code: 1, stdout: "", stderr: "backfill: Stripe refused STRIPE_API_KEY (401): the key is wrong, expired or revoked\n" });
  });
});

describe("the gap check", () => {
  test("every served Stripe endpoint with a key, the last three days, source gap-check, recorded; one endpoint's refused key is recorded failed and the others go on; the metrics and the Endpoints page's data show it", async () => {
    const nowMs = Date.now();
    assert.equal((await createOrder("ord_bf_gap", 990, "USD")).status, 201);
    api.events = [
      stripeEvent("evt_bf_gap_old", "payment_intent.succeeded", paymentIntent({ id: "pi_bf_gap_old", orderId: "ord_bf_gap", amount: 990, currency: "usd" }), { created: Math.floor(nowMs / 1000) - 4 * 86_400 }),
      stripeEvent("evt_bf_gap", "payment_intent.succeeded", paymentIntent({ id: "pi_bf_gap", orderId: "ord_bf_gap", amount: 990, currency: "usd" }), { created: Math.floor(nowMs / 1000) - 86_400 }),
    ];
    const env = { ...process.env, STRIPE_API_KEY: API_KEY, STRIPE_TEST_WEBHOOK_SECRET: "whsec_backfill_tests_test_0001", STRIPE_TEST_API_KEY: "rk_test_refused_0000001" };
    const results = await runGapCheck(await db(), { env, apiBase: api.url, sleep: async () => undefined });
    assert.deepEqual(results, [
      { endpoint: "stripe", report: { listed: 1, alreadyStored: 0, stored: 1, skipped: 0 } },
      { endpoint: "stripe-test", error: "Stripe refused STRIPE_TEST_API_KEY (401): the key is wrong, expired or revoked" },
    ]);
    // Three days back: the four-day-old event was not listed.
    assert.equal((await storedRows("evt_bf_gap_old")).length, 0);
    assert.deepEqual(await (await db()).decision.findMany({ where: { eventId: "evt_bf_gap" }, select: { outcome: true, source: true } }), [{ outcome: "accepted", source: "gap-check" }]);

    const checks = await (await db()).gapCheck.findMany({ where: { trigger: "scheduled" }, orderBy: { endpoint: "asc" }, select: { endpoint: true, status: true, listed: true, stored: true, error: true, since: true } });
    assert.deepEqual(
      checks.map(({ since, ...check }) => check),
      [
        { endpoint: "stripe", status: "done", listed: 1, stored: 1, error: null },
        { endpoint: "stripe-test", status: "failed", listed: 0, stored: 0, error: "Stripe refused STRIPE_TEST_API_KEY (401): the key is wrong, expired or revoked" },
      ],
    );
    assert.ok(Math.abs(checks[0].since.getTime() - (nowMs - GAP_CHECK_WINDOW_MS)) < 60_000);

    const metrics = await collectOperationalMetrics(await db());
    assert.deepEqual(
      metrics.gapChecks.map(({ checkedAt, ...check }) => check),
      [
        { endpoint: "stripe", status: "done", listed: 1, missing: 1, error: null },
        { endpoint: "stripe-test", status: "failed", listed: 0, missing: 0, error: "Stripe refused STRIPE_TEST_API_KEY (401): the key is wrong, expired or revoked" },
      ],
    );
    const prometheus = await renderPrometheus(metrics);
    assert.match(prometheus, /^acredita_gap_check_missing_events\{endpoint="stripe"\} 1$/m);
    assert.match(prometheus, /^acredita_gap_check_failed\{endpoint="stripe-test"\} 1$/m);

    const health = await endpointsHealth(await db(), { env });
    const apiOf = (name: string) => health.endpoints.find((endpoint) => endpoint.name === name)!.api;
    assert.deepEqual([apiOf("stripe")?.keyEnv, apiOf("stripe")?.keySet, apiOf("stripe")?.lastGapCheck?.stored], ["STRIPE_API_KEY", true, 1]);
    assert.deepEqual([apiOf("stripe-test")?.lastGapCheck?.status], ["failed"]);
    assert.equal(apiOf("lab"), null);
  });

  test("the scheduler runs one interval after its start, then once an interval across processes", async () => {
    let clock = Date.now() + 30 * 86_400_000;
    process.env.STRIPE_API_KEY = API_KEY;
    api.events = [];
    const before = api.requests.length;
    const intervalMs = 6_000;
    const first = new GapCheckScheduler(db, { intervalMs, apiBase: api.url, now: () => new Date(clock) });
    const second = new GapCheckScheduler(db, { intervalMs, apiBase: api.url, now: () => new Date(clock) });
    try {
      first.start();
      // Another process, half a second apart (two looking at the very same moment may both run, which is harmless).
      await new Promise((resolve) => setTimeout(resolve, 500));
      second.start();
      // Looks every second (an interval / 6); none runs before an interval has passed since its start.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      assert.equal(api.requests.length, before);
      clock += intervalMs;
      await waitUntil(() => api.requests.length > before);
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      // One run for both processes: the second saw the first's recorded start within the interval.
      const runs = await (await db()).gapCheck.count({ where: { trigger: "scheduled", startedAt: { gte: new Date(clock - 1_000) } } });
      assert.equal(runs, 1);
    } finally {
      delete process.env.STRIPE_API_KEY;
      await Promise.all([first.stop(), second.stop()]);
    }
  });
});

/** Waits (polling every 50 ms, at most 10 s) until `condition` holds. */
async function waitUntil(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met within 10 s");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
