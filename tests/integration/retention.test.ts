import { TEST_DB } from "@/e2e/support/test-env";
// Hardening: payload retention. Finished events' and resolved dead letters' payloads older than
// the retention period are emptied; unfinished events and open dead letters keep theirs; decisions,
// ledger and orders are untouched; the event keys keep deduplicating.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { closeDb, db } from "@/lib/db/client";
import { startBackgroundWorkers } from "@/lib/background/background-workers";
import { formatRetentionReport, purgeExpiredPayloads } from "@/lib/retention/purge-payloads";
import { formatDecisionRetentionReport } from "@/lib/retention/purge-decisions";
import { cliReasons } from "@/lib/reasons/cli-reasons";
import { runRetentionIfDue } from "@/lib/retention/retention-schedule";
import { createOrder, deliverLab, labEvent } from "@/e2e/support/http";
import { runMain } from "@/e2e/support/cli";
import { main as retentionCli } from "@/scripts/retention";

const DAY_MS = 86_400_000;
const now = new Date();
const daysAgo = (days: number) => new Date(now.getTime() - days * DAY_MS);

async function snapshot() {
  const database = await db();
  const [decisions, ledger, orders] = await Promise.all([
    database.decision.findMany({ orderBy: { id: "asc" } }),
    database.ledgerEntry.findMany({ orderBy: { id: "asc" } }),
    database.order.findMany({ orderBy: { id: "asc" } }),
  ]);
  return { decisions, ledger, orders };
}

/** `npm run retention` in this process (its main; e2e/http/cli-smoke.test.ts runs the script once). */
async function cli(...args: string[]) {
  const result = await runMain(retentionCli, args, { ...process.env, DATABASE_URL: TEST_DB.url });
  return { code: result.code, stdout: result.stdout.trim(), stderr: result.stderr.trim() };
}

before(async () => {
  for (const [id, amount] of [["ord_r1", 100], ["ord_r2", 200], ["ord_r4", 400], ["ord_r5", 500], ["ord_r6", 600]] as const) {
    assert.equal((await createOrder(id, amount)).status, 201);
  }
  const answers = [
    await deliverLab(labEvent("evt_r1", "payment.approved", "ord_r1", "pay_r1", 100)),
    await deliverLab(labEvent("evt_r2", "payment.approved", "ord_r2", "pay_r2", 200)),
    await deliverLab(JSON.stringify({ id: "evt_r3", type: "payment.pending", data: { payment_id: "pay_r3", order_id: "ord_r2", amount: 200, currency: "ARS" } })),
    await deliverLab(labEvent("evt_r4", "payment.refunded", "ord_r4", "pay_r4", 400)),
    await deliverLab(labEvent("evt_r5", "payment.refunded", "ord_r5", "pay_r5", 500)),
    await deliverLab(labEvent("evt_r5a", "payment.approved", "ord_r5", "pay_r5", 500)),
    await deliverLab(labEvent("evt_r5", "payment.refunded", "ord_r5", "pay_r5", 500)),
    await deliverLab(labEvent("evt_r6", "payment.approved", "ord_r6", "pay_r6", 600)),
  ];
  assert.deepEqual(
    answers.map((answer) => `${answer.status} ${answer.json.outcome}`),
    ["200 applied", "200 applied", "200 ignored", "409 dead_lettered", "409 dead_lettered", "200 applied", "200 applied", "200 applied"],
  );
  const database = await db();
  // Age everything but evt_r6 by 40 days; an inbox event that keeps failing is just as old.
  await database.webhookEvent.updateMany({ where: { eventId: { not: "evt_r6" } }, data: { receivedAt: daysAgo(40) } });
  await database.deadLetter.updateMany({ data: { firstFailedAt: daysAgo(41), lastFailedAt: daysAgo(40) } });
  await database.deadLetter.updateMany({ where: { status: "resolved" }, data: { resolvedAt: daysAgo(40) } });
  await database.webhookEvent.create({
    data: { provider: "lab", endpoint: "lab", account: "lab", livemode: true, eventId: "evt_r7", type: "payment.approved", bodyHash: "0".repeat(64), status: "failed", payload: '{"eventId":"evt_r7"}', attempts: 3, receivedAt: daysAgo(40) },
  });
});
after(closeDb);

describe("payload retention", () => {
  test("a dry run counts exactly what a run would purge and changes nothing", async () => {
    const report = await purgeExpiredPayloads(await db(), { retentionDays: 30, now, dryRun: true });
    assert.deepEqual(report, { cutoff: daysAgo(30).toISOString(), retentionDays: 30, dryRun: true, eventsPurged: 5, deadLettersPurged: 1, eventsKeptUnfinished: 1, deadLettersKeptOpen: 1 });
    assert.equal(await (await db()).webhookEvent.count({ where: { purgedAt: { not: null } } }), 0);
    const cliDry = await cli("--days", "30", "--dry-run", "--json");
    assert.equal(cliDry.code, 0, cliDry.stderr);
    const parsed = JSON.parse(cliDry.stdout);
    assert.deepEqual([parsed.eventsPurged, parsed.deadLettersPurged, parsed.eventsKeptUnfinished, parsed.deadLettersKeptOpen, parsed.dryRun], [5, 1, 1, 1, true]);
  });

  test("a run empties 5 finished events' and 1 resolved dead letter's payloads, keeps the rest, touches no decision, ledger entry or order", async () => {
    const before = await snapshot();
    const report = await purgeExpiredPayloads(await db(), { retentionDays: 30, now });
    assert.deepEqual([report.eventsPurged, report.deadLettersPurged, report.eventsKeptUnfinished, report.deadLettersKeptOpen], [5, 1, 1, 1]);
    assert.equal(
      formatRetentionReport(report),
      `Payload retention (30 days, cutoff ${daysAgo(30).toISOString()}): purged 5 event payload(s) and 1 dead-letter payload(s); kept 1 unfinished event(s) and 1 open dead letter(s) older than the cutoff. Ledger and orders are never purged.`,
    );
    const database = await db();
    const events = await database.webhookEvent.findMany({ orderBy: { eventId: "asc" }, select: { eventId: true, status: true, payload: true, purgedAt: true } });
    assert.deepEqual(
      events.map((event) => [event.eventId, event.status, event.payload === "" ? "purged" : "kept", event.purgedAt?.getTime() ?? null]),
      [
        ["evt_r1", "processed", "purged", now.getTime()],
        ["evt_r2", "processed", "purged", now.getTime()],
        ["evt_r3", "ignored", "purged", now.getTime()],
        ["evt_r5", "processed", "purged", now.getTime()],
        ["evt_r5a", "processed", "purged", now.getTime()],
        ["evt_r6", "processed", "kept", null],
        ["evt_r7", "failed", "kept", null],
      ],
    );
    const letters = await database.deadLetter.findMany({ orderBy: { eventId: "asc" }, select: { eventId: true, status: true, payload: true } });
    assert.deepEqual(letters.map((letter) => [letter.eventId, letter.status, letter.payload === "" ? "purged" : "kept"]), [["evt_r4", "open", "kept"], ["evt_r5", "resolved", "purged"]]);
    assert.deepEqual(await snapshot(), before);
  });

  test("after the purge a redelivery is still a duplicate and a tampered one still a conflict", async () => {
    const duplicate = await deliverLab(labEvent("evt_r1", "payment.approved", "ord_r1", "pay_r1", 100));
    assert.deepEqual([duplicate.status, duplicate.json.outcome], [200, "duplicate"]);
    const conflict = await deliverLab(labEvent("evt_r2", "payment.refunded", "ord_r2", "pay_r2", 200));
    assert.deepEqual([conflict.status, conflict.json.outcome], [409, "dead_lettered"]);
    assert.deepEqual((await (await db()).ledgerEntry.findMany({ where: { orderId: { in: ["ord_r1", "ord_r2"] } }, orderBy: { orderId: "asc" } })).map((entry) => [entry.businessKey, entry.amount]), [["credit:lab:lab:live:pay_r1", 100], ["credit:lab:lab:live:pay_r2", 200]]);
  });

  test("a second run purges nothing; npm run retention prints the same, and refuses a bad --days with exit 2", async () => {
    const again = await purgeExpiredPayloads(await db(), { retentionDays: 30, now });
    assert.deepEqual([again.eventsPurged, again.deadLettersPurged], [0, 0]);
    const run = await cli("--days", "30");
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /: purged 0 event payload\(s\) and 0 dead-letter payload\(s\); kept 1 unfinished event\(s\) and 1 open dead letter\(s\) older than the cutoff\./);
    const bad = await cli("--days", "0");
    assert.deepEqual([bad.code, bad.stderr], [2, "retention: --days must be a whole number from 1 to 3650"]);
    await assert.rejects(purgeExpiredPayloads(await db(), { retentionDays: 0 }), /retentionDays must be a whole number of days >= 1/);
  });
});

describe("the daily run in the worker", () => {
  const runs = async () => (await db()).auditEntry.findMany({ where: { action: "retention.purge" }, orderBy: { at: "asc" }, select: { at: true, actorEmail: true, note: true } });

  test("runs when no run is recorded, then not again within 24 hours, then again after them", async () => {
    const database = await db();
    const first = await runRetentionIfDue(database, { now, retentionDays: 30 });
    assert.deepEqual([first?.eventsPurged, first?.deadLettersPurged], [0, 0]);
    assert.equal(await runRetentionIfDue(database, { now: new Date(now.getTime() + 23 * 3_600_000), retentionDays: 30 }), null);
    // A day later evt_r6 (received "now") is still young; at 31 days it goes.
    const later = new Date(now.getTime() + 31 * DAY_MS);
    const second = await runRetentionIfDue(database, { now: later, retentionDays: 30 });
    assert.deepEqual([second?.eventsPurged, second?.cutoff], [1, new Date(later.getTime() - 30 * DAY_MS).toISOString()]);
    assert.deepEqual((await runs()).map((run) => [run.at.getTime(), run.actorEmail]), [[now.getTime(), "system"], [later.getTime(), "system"]]);
    assert.match((await runs())[1].note ?? "", /^Payload retention \(30 days, cutoff .*\): purged 1 event payload\(s\)/);
    // The coded note's English is the CLI's report word for word; es-AR renders it from the code.
    const stored = (await database.auditEntry.findMany({ where: { action: "retention.purge" }, orderBy: { at: "asc" } }))[1];
    assert.equal(stored.note, `${formatRetentionReport(second!)} ${formatDecisionRetentionReport(second!.decisions)}`);
    assert.equal(stored.noteCode, "audit_retention");
    const spanish = cliReasons("es-AR").describe({ reason: stored.note, reasonCode: stored.noteCode, reasonParams: stored.noteParams });
    assert.match(spanish, /^Retención de contenidos \(30 días, corte \d{1,2} de [a-z]{3} de \d{4}, \d{2}:\d{2}:\d{2} UTC\): se borraron 1 contenidos de eventos y 0 de eventos retenidos;/);
  });

  test("the background workers schedule it: started, they run it once it is due, and stop cleanly", async () => {
    const database = await db();
    await database.auditEntry.deleteMany({ where: { action: "retention.purge" } });
    const workers = startBackgroundWorkers({ database: db, where: "retention test" });
    try {
      for (let waited = 0; (await runs()).length === 0; waited += 50) {
        assert.ok(waited < 30_000, "no retention run recorded after 30 s");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await workers.stop();
    }
    assert.equal((await runs()).length, 1);
  });
});
