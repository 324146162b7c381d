import { TEST_DB } from "@/e2e/support/test-env";
// The batch claim (lib/events/webhook-events.ts claimDueInboxEvents) on the database under test:
// which events it takes, that concurrent claimers of batches never take one event twice, and that the
// very statement the worker runs reads the due index in order (no scan of the backlog, no sort).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import Database from "better-sqlite3";
import pg from "pg";
import { closeDb, db } from "@/lib/db/client";
import { sqliteDate } from "@/lib/db/driver";
import { claimDueInboxEvents, claimStatement } from "@/lib/events/webhook-events";
import { inboxRow, INBOX_T0 } from "@/e2e/support/inbox-rows";
import { onPostgres, TEST_DATABASE } from "@/e2e/support/test-database";

const T0 = INBOX_T0;
const LEASE_MS = 60_000;
const DUE_INDEX = "WebhookEvent_dueAt_receivedAt_idx";
const seconds = (n: number) => new Date(T0.getTime() + n * 1000);


async function clearInbox() {
  await (await db()).webhookEvent.deleteMany({});
}

async function insertRows(rows: ReturnType<typeof inboxRow>[]) {
  const database = await db();
  for (let i = 0; i < rows.length; i += 500) await database.webhookEvent.createMany({ data: rows.slice(i, i + 500) });
}

before(clearInbox);
after(closeDb);

describe(`claiming inbox events in batches on ${TEST_DATABASE}`, () => {
  test("a batch takes the due events in due order, up to its limit, and leaves not-due and finished ones", async () => {
    await clearInbox();
    await insertRows([
      ...Array.from({ length: 10 }, (_, i) => inboxRow(`evt_due_${i}`, { nextAttemptAt: seconds(-100 + i), receivedAt: seconds(-200 + i) })),
      inboxRow("evt_parked_due", { status: "failed", attempts: 2, nextAttemptAt: seconds(-150), firstFailedAt: seconds(-190), receivedAt: seconds(-300) }),
      inboxRow("evt_orphan", { status: "processing", attempts: 1, leaseOwner: "dead-worker", nextAttemptAt: null, leaseExpiresAt: seconds(-120), receivedAt: seconds(-400) }),
      inboxRow("evt_held", { status: "processing", attempts: 1, leaseOwner: "live-worker", nextAttemptAt: null, leaseExpiresAt: seconds(30) }),
      inboxRow("evt_parked_later", { status: "failed", attempts: 1, nextAttemptAt: seconds(5) }),
      inboxRow("evt_done", { status: "processed", nextAttemptAt: null }),
      inboxRow("evt_dead", { status: "dead", nextAttemptAt: null }),
    ]);
    const database = await db();
    const first = await claimDueInboxEvents(database, "worker-a", T0, LEASE_MS, 5);
    // Due order: parked (-150), orphan (-120), then the received ones from -100; returned in arrival order.
    assert.deepEqual(first.map((event) => event.eventId), ["evt_orphan", "evt_parked_due", "evt_due_0", "evt_due_1", "evt_due_2"]);
    assert.deepEqual(first.map((event) => event.attempts), [2, 3, 1, 1, 1]);
    assert.deepEqual(first.map((event) => [event.livemode, event.receivedAt.toISOString(), event.leaseExpiresAt.getTime()])[3], [true, seconds(-199).toISOString(), T0.getTime() + LEASE_MS]);
    assert.equal(first.find((event) => event.eventId === "evt_parked_due")?.firstFailedAt?.toISOString(), seconds(-190).toISOString());
    const second = await claimDueInboxEvents(database, "worker-b", T0, LEASE_MS, 64);
    assert.deepEqual(second.map((event) => event.eventId), ["evt_due_3", "evt_due_4", "evt_due_5", "evt_due_6", "evt_due_7", "evt_due_8", "evt_due_9"]);
    assert.deepEqual(await claimDueInboxEvents(database, "worker-c", T0, LEASE_MS, 64), []);
    const rows = await database.webhookEvent.findMany({ orderBy: { eventId: "asc" }, select: { eventId: true, status: true, leaseOwner: true, dueAt: true } });
    assert.deepEqual(
      rows.map((row) => [row.eventId, row.status, row.leaseOwner, row.dueAt?.toISOString() ?? null]),
      [
        ["evt_dead", "dead", null, null],
        ["evt_done", "processed", null, null],
        ...Array.from({ length: 10 }, (_, i) => [`evt_due_${i}`, "processing", i < 3 ? "worker-a" : "worker-b", seconds(60).toISOString()]),
        ["evt_held", "processing", "live-worker", seconds(30).toISOString()],
        ["evt_orphan", "processing", "worker-a", seconds(60).toISOString()],
        ["evt_parked_due", "processing", "worker-a", seconds(60).toISOString()],
        ["evt_parked_later", "failed", null, seconds(5).toISOString()],
      ],
    );
    await assert.rejects(claimDueInboxEvents(database, "worker-a", T0, LEASE_MS, 0), RangeError);
  });

  test("6 claimers taking batches of 64 at once claim each of 2,000 due events exactly once", async () => {
    await clearInbox();
    await insertRows(Array.from({ length: 2000 }, (_, i) => inboxRow(`evt_race_${i}`, { nextAttemptAt: seconds(-2000 + i) })));
    const database = await db();
    const claims: { owner: string; id: string }[] = [];
    const batches: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, async (_, index) => {
        const owner = `worker-${index}`;
        for (;;) {
          const batch = await claimDueInboxEvents(database, owner, T0, LEASE_MS, 64);
          if (batch.length === 0) return;
          batches.push(batch.length);
          claims.push(...batch.map((event) => ({ owner, id: event.id })));
        }
      }),
    );
    assert.equal(claims.length, 2000);
    assert.equal(new Set(claims.map((claim) => claim.id)).size, 2000);
    assert.ok(batches.every((size) => size <= 64));
    assert.ok(new Set(claims.map((claim) => claim.owner)).size > 1, "more than one claimer got work");
    // The rows agree: every event processing once (attempts 1), leased to the claimer that got it.
    const claimedBy = new Map(claims.map((claim) => [claim.id, claim.owner]));
    const rows = await database.webhookEvent.findMany({ select: { id: true, status: true, attempts: true, leaseOwner: true } });
    assert.equal(rows.length, 2000);
    assert.deepEqual(rows.filter((row) => row.status !== "processing" || row.attempts !== 1 || row.leaseOwner !== claimedBy.get(row.id)), []);
  });

  test("SQLite: the claim reads the due index in order, without a scan of the table or a sort", { skip: onPostgres ? "SQLite only" : false }, async () => {
    await clearInbox();
    await insertRows(Array.from({ length: 2000 }, (_, i) => inboxRow(`evt_plan_${i}`, i % 2 ? { nextAttemptAt: seconds(-i) } : { status: "processed", nextAttemptAt: null })));
    const file = TEST_DB.file!;
    const sqlite = new Database(file);
    try {
      // With statistics, so the planner weighs a scan of the table against the index on real numbers.
      sqlite.exec("ANALYZE");
      const statement = claimStatement("sqlite", "worker-a", T0, seconds(60), 64);
      const values = statement.params.map((value) => (value instanceof Date ? sqliteDate(value) : value));
      const plan = (sqlite.prepare(`EXPLAIN QUERY PLAN ${statement.sql}`).all(...(values as never[])) as { detail: string }[]).map((row) => row.detail);
      if (process.env.SHOW_PLAN) console.log(plan.join("\n"));
      assert.ok(plan.some((line) => line.includes(`USING INDEX ${DUE_INDEX} (dueAt<?)`) || line.includes(`USING COVERING INDEX ${DUE_INDEX} (dueAt<?)`)), plan.join("\n"));
      assert.deepEqual(plan.filter((line) => /TEMP B-TREE|SCAN WebhookEvent\b(?! USING)/.test(line)), [], plan.join("\n"));
    } finally {
      sqlite.close();
    }
  });

  test("PostgreSQL: the claim is an ordered scan of the due index under a limit, without a sort, at 20,000 rows", { skip: onPostgres ? false : "PostgreSQL only" }, async () => {
    await clearInbox();
    const client = new pg.Client({ connectionString: TEST_DB.url });
    await client.connect();
    try {
      // 20,000 events: half finished (dueAt null), half due over the past hours; then fresh statistics.
      await client.query(`
        INSERT INTO "WebhookEvent" ("id", "provider", "endpoint", "account", "livemode", "eventId", "type", "bodyHash", "status", "payload", "attempts", "nextAttemptAt", "dueAt", "receivedAt")
        SELECT 'we_plan_' || n, 'lab', 'lab', 'default', true, 'evt_plan_' || n, 'payment.approved', 'h', CASE WHEN n % 2 = 0 THEN 'processed' ELSE 'received' END, '{}', 0,
          CASE WHEN n % 2 = 0 THEN NULL ELSE TIMESTAMP '2026-11-29 12:00:00' - n * INTERVAL '1 second' END,
          CASE WHEN n % 2 = 0 THEN NULL ELSE TIMESTAMP '2026-11-29 12:00:00' - n * INTERVAL '1 second' END,
          TIMESTAMP '2026-11-29 11:00:00'
        FROM generate_series(1, 20000) AS n`);
      await client.query(`ANALYZE "WebhookEvent"`);
      const statement = claimStatement("postgresql", "worker-a", T0, seconds(60), 64);
      let n = 0;
      const numbered = statement.sql.replace(/\?/g, () => `$${++n}`);
      const plan = (await client.query<{ "QUERY PLAN": string }>(`EXPLAIN ${numbered}`, statement.params.map((value) => (value instanceof Date ? value.toISOString() : value)))).rows.map((row) => row["QUERY PLAN"]);
      const text = plan.join("\n");
      if (process.env.SHOW_PLAN) console.log(text);
      assert.match(text, new RegExp(`Index Scan using "${DUE_INDEX}" on "WebhookEvent"`), text);
      assert.match(text, /LockRows/, text);
      assert.match(text, /Limit/, text);
      assert.doesNotMatch(text, /\bSort\b|Seq Scan on "WebhookEvent"/, text);
    } finally {
      await client.end();
    }
  });
});
