import { TEST_DB } from "@/e2e/support/test-env";
// Decision retention: decision rows older than DECISION_RETENTION_DAYS (default 90) and per-minute refusal
// counts older than REJECTION_COUNT_RETENTION_DAYS (default 30) are deleted by the daily retention run and
// by `npm run retention`, which prints the periods with their defaults; newer rows stay.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { settingDefault } from "@/lib/config/settings";
import { closeDb, db } from "@/lib/db/client";
import { minuteOf } from "@/lib/decisions/rejection-counter";
import { formatDecisionRetentionReport, purgeExpiredDecisions } from "@/lib/retention/purge-decisions";
import { runRetentionIfDue } from "@/lib/retention/retention-schedule";
import { runMain } from "@/e2e/support/cli";
import { main as retentionCli } from "@/scripts/retention";

const DAY_MS = 86_400_000;
const now = new Date();
const daysAgo = (days: number) => new Date(now.getTime() - days * DAY_MS);

/** `npm run retention` in this process (its main; e2e/http/cli-smoke.test.ts runs the script once). */
async function cli(...args: string[]) {
  const result = await runMain(retentionCli, args, { ...process.env, DATABASE_URL: TEST_DB.url });
  return { code: result.code, stdout: result.stdout.trim(), stderr: result.stderr.trim() };
}

/** Decisions aged 120, 100, 91, 89 and 10 days (3 past 90 days), counts aged 45, 31, 29 and 1 day (2 past 30). */
async function seed(): Promise<void> {
  const database = await db();
  await database.decision.deleteMany();
  await database.rejectionCount.deleteMany();
  for (const [index, days] of [120, 100, 91, 89, 10].entries()) {
    await database.decision.create({ data: { at: daysAgo(days), provider: "lab", endpoint: "lab", eventId: `evt_old_${index}`, verified: true, outcome: "applied", httpStatus: 200, reason: "applied" } });
  }
  for (const days of [45, 31, 29, 1]) {
    const minute = minuteOf(daysAgo(days));
    await database.rejectionCount.create({ data: { endpoint: "lab", provider: "lab", reason: "signature_missing", httpStatus: 401, minute, count: 7, firstAt: minute, lastAt: minute } });
  }
}

const remaining = async () => {
  const database = await db();
  return { decisions: await database.decision.count(), counts: await database.rejectionCount.count() };
};

before(seed);
after(closeDb);

describe("decision and refusal-count retention", () => {
  test("defaults are 90 and 30 days", () => {
    assert.deepEqual([settingDefault("DECISION_RETENTION_DAYS"), settingDefault("REJECTION_COUNT_RETENTION_DAYS"), settingDefault("REJECTION_SAMPLE_PER_MINUTE"), settingDefault("REJECTION_FLUSH_INTERVAL_MS")], [90, 30, 5, 1_000]);
  });

  test("a dry run counts 3 decisions and 2 counts and deletes nothing; a run deletes exactly those", async () => {
    const options = { decisionRetentionDays: 90, rejectionCountRetentionDays: 30, now };
    const dry = await purgeExpiredDecisions(await db(), { ...options, dryRun: true });
    assert.deepEqual([dry.decisionsDeleted, dry.rejectionCountsDeleted, dry.dryRun], [3, 2, true]);
    assert.deepEqual(await remaining(), { decisions: 5, counts: 4 });
    const run = await purgeExpiredDecisions(await db(), options);
    assert.deepEqual(run, {
      decisionRetentionDays: 90,
      decisionCutoff: daysAgo(90).toISOString(),
      decisionsDeleted: 3,
      rejectionCountRetentionDays: 30,
      rejectionCountCutoff: daysAgo(30).toISOString(),
      rejectionCountsDeleted: 2,
      dryRun: false,
    });
    assert.equal(
      formatDecisionRetentionReport(run),
      `Decision retention (90 days, cutoff ${daysAgo(90).toISOString()}): deleted 3 decision row(s). Rejection count retention (30 days, cutoff ${daysAgo(30).toISOString()}): deleted 2 per-minute count(s).`,
    );
    const database = await db();
    assert.deepEqual((await database.decision.findMany({ orderBy: { at: "asc" }, select: { eventId: true } })).map((row) => row.eventId), ["evt_old_3", "evt_old_4"]);
    assert.deepEqual(await remaining(), { decisions: 2, counts: 2 });
    assert.deepEqual([(await purgeExpiredDecisions(database, options)).decisionsDeleted, (await purgeExpiredDecisions(database, options)).rejectionCountsDeleted], [0, 0]);
    await assert.rejects(purgeExpiredDecisions(database, { ...options, decisionRetentionDays: 0 }), /decisionRetentionDays must be a whole number of days >= 1/);
  });

  test("npm run retention prints the periods with their defaults and deletes by the given ones", async () => {
    await seed();
    const dry = await cli("--dry-run");
    assert.equal(dry.code, 0, dry.stderr);
    const lines = dry.stdout.split("\n");
    assert.equal(lines[0], "Retention periods (days): PAYLOAD_RETENTION_DAYS=30 (default 30), DECISION_RETENTION_DAYS=90 (default 90), REJECTION_COUNT_RETENTION_DAYS=30 (default 30)");
    assert.match(lines[2], /^Decision retention \(90 days, cutoff .*\): would delete 3 decision row\(s\)\. Rejection count retention \(30 days, cutoff .*\): would delete 2 per-minute count\(s\)\.$/);
    assert.deepEqual(await remaining(), { decisions: 5, counts: 4 });
    const run = await cli("--decision-days", "95", "--rejection-count-days", "40", "--json");
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout);
    assert.deepEqual([report.decisions.decisionsDeleted, report.decisions.rejectionCountsDeleted, report.decisions.decisionRetentionDays], [2, 1, 95]);
    assert.deepEqual(await remaining(), { decisions: 3, counts: 3 });
    const bad = await cli("--decision-days", "0");
    assert.deepEqual([bad.code, bad.stderr], [2, "retention: --decision-days must be a whole number from 1 to 3650"]);
  });

  test("the daily run deletes by the settings and records both in its audit note", async () => {
    await seed();
    const database = await db();
    await database.auditEntry.deleteMany({ where: { action: "retention.purge" } });
    const report = await runRetentionIfDue(database, { now });
    assert.deepEqual([report?.decisions.decisionsDeleted, report?.decisions.rejectionCountsDeleted], [3, 2]);
    assert.deepEqual(await remaining(), { decisions: 2, counts: 2 });
    const note = (await database.auditEntry.findFirstOrThrow({ where: { action: "retention.purge" } })).note ?? "";
    assert.match(note, /^Payload retention \(30 days, .*Decision retention \(90 days, cutoff .*\): deleted 3 decision row\(s\)\. Rejection count retention \(30 days, cutoff .*\): deleted 2 per-minute count\(s\)\.$/);
  });

  test("the daily run deletes the finished gap checks, backfills and settlement pulls past the decisions' cutoff, keeping each endpoint's latest and anything unfinished", async () => {
    const database = await db();
    await database.gapCheck.deleteMany();
    await database.settlementPull.deleteMany();
    await database.auditEntry.deleteMany({ where: { action: "retention.purge" } });
    const run = (id: string, endpoint: string, trigger: string, status: string, days: number) =>
      database.gapCheck.create({ data: { id, endpoint, trigger, status, startedAt: daysAgo(days), since: daysAgo(days + 3), ...(status === "done" || status === "failed" ? { finishedAt: daysAgo(days) } : {}) } });
    await run("gc_old_done", "stripe", "scheduled", "done", 120);
    await run("gc_old_failed", "stripe", "scheduled", "failed", 110);
    await run("gc_recent", "stripe", "scheduled", "done", 1);
    await run("gc_only_old", "ep_retentiononly00000", "cli", "done", 100);
    await run("gc_old_queued", "ep_retentionqueued000", "dashboard", "queued", 100);
    const pull = (id: string, status: string, days: number) => database.settlementPull.create({ data: { id, endpoint: "stripe", day: daysAgo(days).toISOString().slice(0, 10), trigger: "cli", status, startedAt: daysAgo(days) } });
    await pull("sp_old_queued", "queued", 100);
    await pull("sp_old_failed", "failed", 95);
    await pull("sp_old_retrying", "retrying", 100);
    await pull("sp_recent", "queued", 2);

    const report = await runRetentionIfDue(database, { now });
    assert.deepEqual(report?.jobRuns, { gapChecksDeleted: 2, settlementPullsDeleted: 2 });
    assert.deepEqual((await database.gapCheck.findMany({ select: { id: true }, orderBy: { id: "asc" } })).map((row) => row.id), ["gc_old_queued", "gc_only_old", "gc_recent"]);
    assert.deepEqual((await database.settlementPull.findMany({ select: { id: true }, orderBy: { id: "asc" } })).map((row) => row.id), ["sp_old_retrying", "sp_recent"]);
  });
});
