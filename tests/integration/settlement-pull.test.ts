import { TEST_DB } from "@/e2e/support/test-env";
// Scheduled settlement pulls against a local fake of Stripe's Reporting API: the day's report run asked
// for with the exact interval and columns, polled, downloaded with the key, reconciled by the normal
// worker (origin scheduled); a failed run retried; once a day per endpoint; a refused key reported once.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { runMain } from "@/e2e/support/cli";
import { startFakeStripeApi, type FakeStripeApi } from "@/e2e/support/fake-stripe-api";
import { stripeReport } from "@/e2e/support/stripe-report-csv";
import { closeDb, db } from "@/lib/db/client";
import { ReconciliationWorker } from "@/lib/reconciliation/reconciliation-worker";
import { allMismatches, runSummary } from "@/lib/reconciliation/run-report";
import { PULL_RETRY_FIRST_MS, SettlementPullScheduler } from "@/lib/settlement-pull/settlement-pull";
import { main } from "@/scripts/settlement-pull";

void TEST_DB;
const SECRET = "whsec_settlement_pull_tests_0001";
const ACCOUNT = "acct_pull_tests";
const API_KEY = "rk_live_settlement_pull_0001";
process.env.STRIPE_WEBHOOK_SECRET = SECRET;
process.env.STRIPE_ACCOUNT_ID = ACCOUNT;
process.env.RECONCILIATION_SPOOL_DIR = mkdtempSync(path.join(tmpdir(), "acredita-pull-spool-"));
delete process.env.STRIPE_API_KEY;

/** Exactly the columns reconciliation reads (lib/reconciliation/settlement-entries.ts), in the order asked. */
const COLUMNS = ["balance_transaction_id", "created_utc", "currency", "gross", "fee", "net", "reporting_category", "payment_intent_id", "charge_id", "source_id", "payment_metadata[order_id]"];
const MINUTE = 60_000;

let api: FakeStripeApi;
const env = (key = API_KEY) => ({ ...process.env, STRIPE_API_KEY: key, STRIPE_API_BASE: api.url });
let clock = 0;
const scheduler = (key = API_KEY) => new SettlementPullScheduler(db, { pullMinutes: 6 * 60, apiBase: api.url, env: env(key), now: () => new Date(clock), sleep: async () => undefined });

/** Ledger rows of the scope stripe:acct_pull_tests:live as the apply step books them. */
async function book(rows: { payment: string; order: string; amount: number; at: string }[]): Promise<void> {
  const database = await db();
  await database.order.createMany({ data: rows.map((row) => ({ id: row.order, amount: row.amount, currency: "USD", status: "paid" })) });
  await database.ledgerEntry.createMany({
    data: rows.map((row) => ({ orderId: row.order, paymentKey: row.payment, currency: "USD", provider: "stripe", account: ACCOUNT, livemode: true, createdAt: new Date(row.at), businessKey: `credit:stripe:${ACCOUNT}:live:${row.payment}`, kind: "credit", amount: row.amount, eventId: `evt_c_${row.payment}` })),
  });
}

async function pullsOf(day: string) {
  return (await db()).settlementPull.findMany({ where: { day }, orderBy: { id: "asc" }, select: { endpoint: true, trigger: true, status: true, attempts: true, error: true, reportRunId: true, runId: true, nextAttemptAt: true } });
}

before(async () => {
  api = await startFakeStripeApi(API_KEY);
});
after(async () => {
  await api.close();
  await closeDb();
});

describe("the scheduled settlement pull", () => {
  test("at 06:00 UTC on 2026-12-02 it asks for 2026-12-01's itemized balance report, polls it, downloads it with the key and the worker reconciles it: exactly the planted mismatch, origin scheduled", async () => {
    await book([
      { payment: "pi_pull_ok", order: "ord_pull_ok", amount: 2500, at: "2026-12-01T12:00:05Z" },
      // Planted: booked 30.00, Stripe settled 25.00.
      { payment: "pi_pull_amount", order: "ord_pull_amount", amount: 3000, at: "2026-12-01T13:00:05Z" },
    ]);
    api.reportCsv = stripeReport([
      { txn: "txn_pull_ok", at: "2026-12-01 12:00:00", currency: "usd", gross: "25.00", fee: "1.03", category: "charge", paymentIntent: "pi_pull_ok", orderId: "ord_pull_ok" },
      { txn: "txn_pull_amount", at: "2026-12-01 13:00:00", currency: "usd", gross: "25.00", fee: "1.03", category: "charge", paymentIntent: "pi_pull_amount", orderId: "ord_pull_amount" },
    ]);
    api.pendingPolls = 2;
    const schedule = scheduler();
    clock = Date.parse("2026-12-02T05:59:00Z");
    await schedule.runDue();
    // 05:59: the latest moment was 2026-12-01 06:00, whose day (2026-11-30) is pulled; 2026-12-01 is not yet.
    assert.deepEqual(await pullsOf("2026-12-01"), []);
    await (await db()).settlementPull.deleteMany({ where: { day: "2026-11-30" } });
    const before = api.reportRuns.length;

    clock = Date.parse("2026-12-02T06:00:00Z");
    await schedule.runDue();
    assert.equal(api.reportRuns.length, before + 1);
    const asked = api.reportRuns[before];
    assert.deepEqual([asked.report_type, asked.parameters], ["balance_change_from_activity.itemized.3", { interval_start: 1_796_083_200, interval_end: 1_796_169_600, columns: COLUMNS }]);
    assert.equal(new Date(asked.parameters.interval_start * 1000).toISOString(), "2026-12-01T00:00:00.000Z");
    assert.deepEqual((await pullsOf("2026-12-01")).map((pull) => [pull.status, pull.attempts, pull.reportRunId]), [["requested", 1, asked.id]]);

    // Polled a minute apart: pending, pending, then succeeded, downloaded and queued.
    clock += MINUTE;
    await schedule.runDue();
    assert.equal((await pullsOf("2026-12-01"))[0].status, "requested");
    clock += MINUTE;
    await schedule.runDue();
    clock += MINUTE;
    await schedule.runDue();
    const [pull] = await pullsOf("2026-12-01");
    assert.deepEqual([pull.status, pull.trigger, pull.error, pull.nextAttemptAt], ["queued", "scheduled", null, null]);
    assert.ok(pull.runId);
    const calls = api.requests.slice(-4).map((request) => `${request.method} ${request.path}`);
    assert.deepEqual(calls, [`GET /v1/reporting/report_runs/${asked.id}`, `GET /v1/reporting/report_runs/${asked.id}`, `GET /v1/reporting/report_runs/${asked.id}`, `GET /v1/files/file_fake_${asked.id.slice(9)}/contents`]);
    assert.ok(api.requests.every((request) => request.keyStart === API_KEY.slice(0, 8)));

    // The background reconciliation worker takes it like any upload.
    const steps = await new ReconciliationWorker(db).drain();
    assert.deepEqual(steps.map((step) => step.runId), [pull.runId]);
    const summary = (await runSummary(await db(), "org_default", pull.runId!))!;
    assert.deepEqual(
      [summary.origin, summary.status, summary.format, summary.scope, summary.period, summary.progress.rows, summary.mismatchCount, summary.actor],
      ["scheduled", "done", "stripe-balance-change", { provider: "stripe", account: ACCOUNT, livemode: true }, { from: "2026-12-01T00:00:00.000Z", to: "2026-12-02T00:00:00.000Z" }, 2, 1, "scheduled:stripe"],
    );
    assert.equal(summary.source, `stripe 2026-12-01 (${asked.id})`);
    const mismatches = [];
    for await (const mismatch of allMismatches(await db(), pull.runId!)) mismatches.push(mismatch);
    assert.deepEqual(
      mismatches.map(({ nextAction, ...rest }) => rest),
      [{ code: "amount_mismatch", paymentId: "pi_pull_amount", orderId: "ord_pull_amount", currency: "USD", settled: 2500, booked: 3000, line: 3, lines: [3] }],
    );
    assert.deepEqual(summary.totals.USD, { gross: 5000, fees: 206, net: 4794, credited: 5500, refunded: 0, overCredited: 500, underCredited: 0 });
    // The runs list shows it with its origin.
    assert.equal((await (await db()).reconciliationRun.findUnique({ where: { id: pull.runId! }, select: { origin: true } }))?.origin, "scheduled");
  });

  test("a failed report run is recorded with its reason and retried after the back-off, to success", async () => {
    api.pendingPolls = 0;
    api.failRuns = ["The report run could not be completed."];
    api.reportCsv = stripeReport([]);
    const schedule = scheduler();
    clock = Date.parse("2026-12-03T06:00:00Z");
    await schedule.runDue();
    const first = api.reportRuns.at(-1)!;
    clock += MINUTE;
    await schedule.runDue();
    const [failed] = await pullsOf("2026-12-02");
    assert.deepEqual(
      [failed.status, failed.attempts, failed.error, failed.nextAttemptAt?.toISOString()],
      ["retrying", 1, `Stripe's report run ${first.id} failed: The report run could not be completed.`, new Date(clock + PULL_RETRY_FIRST_MS).toISOString()],
    );
    // Not before the back-off.
    const runs = api.reportRuns.length;
    clock += PULL_RETRY_FIRST_MS - MINUTE;
    await schedule.runDue();
    assert.equal(api.reportRuns.length, runs);
    clock += MINUTE;
    await schedule.runDue();
    assert.equal(api.reportRuns.length, runs + 1);
    clock += MINUTE;
    await schedule.runDue();
    const [done] = await pullsOf("2026-12-02");
    // The first attempt's reason stays on the pull beside its success.
    assert.deepEqual([done.status, done.attempts, done.error, done.reportRunId], ["queued", 2, failed.error, api.reportRuns.at(-1)!.id]);
    assert.equal((await (await db()).reconciliationRun.findUnique({ where: { id: done.runId! }, select: { origin: true, status: true } }))?.origin, "scheduled");
  });

  test("once a day per endpoint at SETTLEMENT_PULL_TIME across two processes, never twice; after downtime only the latest missed day, once", async () => {
    api.pendingPolls = 100;
    const [one, two] = [scheduler(), scheduler()];
    const asked = (day: string) => api.reportRuns.filter((run) => run.parameters.interval_start === Date.parse(`${day}T00:00:00Z`) / 1000).length;
    clock = Date.parse("2026-12-04T05:59:59Z");
    await Promise.all([one.runDue(), two.runDue()]);
    assert.equal(asked("2026-12-03"), 0);
    clock = Date.parse("2026-12-04T06:00:00Z");
    await Promise.all([one.runDue(), two.runDue()]);
    for (const at of ["2026-12-04T06:30:00Z", "2026-12-04T12:00:00Z", "2026-12-04T23:59:00Z"]) {
      clock = Date.parse(at);
      await Promise.all([one.runDue(), two.runDue()]);
    }
    assert.equal(asked("2026-12-03"), 1);
    assert.deepEqual((await pullsOf("2026-12-03")).map((pull) => [pull.endpoint, pull.trigger]), [["stripe", "scheduled"]]);

    // Down from 12-05 to 12-08 10:00: 12-07 is pulled at the next start, the days before are not.
    clock = Date.parse("2026-12-08T10:00:00Z");
    await Promise.all([one.runDue(), two.runDue()]);
    assert.deepEqual([asked("2026-12-04"), asked("2026-12-05"), asked("2026-12-06"), asked("2026-12-07")], [0, 0, 0, 1]);
    await (await db()).settlementPull.updateMany({ where: { status: "requested" }, data: { status: "failed", nextAttemptAt: null } });
  });

  test("a refused key is reported once, naming the variable and never the key, and not retried", async () => {
    const wrong = "rk_live_refused_key_00001";
    const schedule = scheduler(wrong);
    clock = Date.parse("2026-12-10T06:00:00Z");
    const requests = api.requests.length;
    await schedule.runDue();
    const [pull] = await pullsOf("2026-12-09");
    assert.deepEqual([pull.status, pull.attempts, pull.error, pull.nextAttemptAt], ["failed", 1, "Stripe refused STRIPE_API_KEY (401): the key is wrong, expired or revoked", null]);
    for (const later of [MINUTE, PULL_RETRY_FIRST_MS, 5 * 3_600_000]) {
      clock += later;
      await schedule.runDue();
    }
    assert.equal(api.requests.length, requests + 1);
    assert.ok(!readFileSync(process.env.LOG_FILE!, "utf8").includes(wrong.slice(8)));
    assert.ok(!readFileSync(process.env.LOG_FILE!, "utf8").includes(API_KEY.slice(8)));
  });
});

describe("npm run settlement-pull", () => {
  test("--date 2026-12-12 pulls 2026-12-11 now and queues it (origin scheduled); refusals exit 2; a refused key exits 1 naming the variable", async () => {
    api.pendingPolls = 1;
    api.reportCsv = stripeReport([]);
    const run = await runMain(main, ["--endpoint", "stripe", "--date", "2026-12-12"], { ...env(), LOG_LEVEL: "silent" });
    assert.equal(run.code, 0, run.stderr);
    const printed = JSON.parse(run.stdout);
    const asked = api.reportRuns.at(-1)!;
    assert.deepEqual(asked.parameters, { interval_start: Date.parse("2026-12-11T00:00:00Z") / 1000, interval_end: Date.parse("2026-12-12T00:00:00Z") / 1000, columns: COLUMNS });
    assert.deepEqual({ ...printed, pullId: undefined, runId: undefined }, { pullId: undefined, endpoint: "stripe", day: "2026-12-11", status: "queued", reportRun: asked.id, runId: undefined, attempts: 1, error: null });
    const stored = await (await db()).reconciliationRun.findUnique({ where: { id: printed.runId }, select: { origin: true, status: true, periodFrom: true } });
    assert.deepEqual(stored, { origin: "scheduled", status: "queued", periodFrom: new Date("2026-12-11T00:00:00Z") });
    assert.deepEqual((await pullsOf("2026-12-11")).map((pull) => pull.trigger), ["cli"]);

    const usage = "usage: npm run settlement-pull -- --endpoint <id or name> [--date YYYY-MM-DD (the pull's date: it reports the previous UTC day; default today)]\n";
    assert.deepEqual(await runMain(main, ["--date", "2026-12-12"], env()), { code: 2, stdout: "", stderr: usage });
    assert.deepEqual(await runMain(main, ["--endpoint", "stripe", "--date", "2026-02-30"], env()), { code: 2, stdout: "", stderr: `settlement-pull: --date 2026-02-30: not a calendar date YYYY-MM-DD\n${usage}` });
    assert.deepEqual(await runMain(main, ["--endpoint", "lab"], env()), { code: 2, stdout: "", stderr: "settlement-pull: endpoint lab receives lab events; a settlement pull reads Stripe's Reporting API only\n" });
    assert.deepEqual(await runMain(main, ["--endpoint", "stripe"], { ...env(), STRIPE_API_KEY: undefined }), {
      code: 2,
      stdout: "",
      stderr: "settlement-pull: endpoint stripe has no API key: set STRIPE_API_KEY to a restricted key with read access to report runs, report types and files\n",
    });
    const refused = await runMain(main, ["--endpoint", "stripe", "--date", "2026-12-13"], { ...env("rk_live_not_the_key_123"), LOG_LEVEL: "silent" });
    assert.deepEqual([refused.code, refused.stderr], [1, "settlement-pull: Stripe refused STRIPE_API_KEY (401): the key is wrong, expired or revoked\n"]);
    assert.equal(JSON.parse(refused.stdout).status, "failed");
  });
});
