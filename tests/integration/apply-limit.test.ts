import { TEST_DB } from "@/e2e/support/test-env";
// The bench's bare-SQL apply limit (bench/apply-limit.ts) must write exactly the rows Acredita's
// worker writes for the same inbox, or its events/s would not be a limit of the same work. Here the
// same filled inbox is applied twice, by the limit (on the drivers) and by Acredita's worker step
// (claimNextInboxEvent + applyClaimedEvent), and every row is compared except generated ids and times.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import Database from "better-sqlite3";
import pg from "pg";
import { fillPostgresInbox, fillSqliteInbox, pendingInboxRows, runPostgresLimit, runSqliteLimit, seedPostgresOrders, type LimitRun } from "@/bench/apply-limit";
import { seedOrders } from "@/bench/bench-data";
import { closeDb, db } from "@/lib/db/client";
import { applyClaimedEvent } from "@/lib/inbox/apply-claimed-events";
import { claimNextInboxEvent } from "@/lib/events/webhook-events";
import { newTestDatabase, TEST_DATABASE, type TestDatabase } from "@/e2e/support/test-database";

const EVENTS = 130;
const POLICY = { baseDelayMs: 1_000, maxDelayMs: 60_000, maxAttempts: 5, maxAgeSeconds: 86_400 };

after(closeDb);

/** Every row the apply writes, without generated ids and times, in a stable order. */
const SNAPSHOT = {
  events: `SELECT "eventId", "status", "attempts", "orderId", "paymentKey", "lastError", "nextAttemptAt", "dueAt", "leaseOwner", "leaseExpiresAt", "firstFailedAt", "processedAt" IS NOT NULL AS "processed" FROM "WebhookEvent" ORDER BY "eventId"`,
  ledger: `SELECT "businessKey", "orderId", "paymentKey", "kind", "amount", "currency", "provider", "account", "livemode", "eventId" FROM "LedgerEntry" ORDER BY "businessKey"`,
  orders: `SELECT "id", "status", "amount", "currency", "refundedAmount", "lastEventAt" IS NOT NULL AS "touched" FROM "Order" ORDER BY "id"`,
  deliveries: `SELECT "orderId", "paymentKey", "provider", "eventId" FROM "Delivery" ORDER BY "orderId"`,
  decisions: `SELECT "provider", "endpoint", "eventId", "verified", "eventType", "orderId", "outcome", "httpStatus", "reason", "secretLabel", "diagnosis", "source" FROM "Decision" ORDER BY "eventId"`,
  deadLetters: `SELECT "dedupeKey" FROM "DeadLetter" ORDER BY "dedupeKey"`,
  outbox: `SELECT "idempotencyKey" FROM "OutboxMessage" ORDER BY "idempotencyKey"`,
} as const;

type Snapshot = Record<keyof typeof SNAPSHOT, Record<string, unknown>[]>;

/** Booleans as true/false whichever database stored them (SQLite 0/1, PostgreSQL bool). */
function normalized(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([key, value]) => [key, typeof value === "bigint" ? Number(value) : ["livemode", "verified", "processed", "touched"].includes(key) ? Boolean(value) : value]));
}

async function snapshot(database: TestDatabase): Promise<Snapshot> {
  const out = {} as Snapshot;
  if (database.file) {
    const sqlite = new Database(database.file, { readonly: true });
    try {
      for (const [name, sql] of Object.entries(SNAPSHOT)) out[name as keyof Snapshot] = (sqlite.prepare(sql).all() as Record<string, unknown>[]).map(normalized);
    } finally {
      sqlite.close();
    }
    return out;
  }
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    for (const [name, sql] of Object.entries(SNAPSHOT)) out[name as keyof Snapshot] = (await client.query(sql)).rows.map(normalized);
  } finally {
    await client.end();
  }
  return out;
}

async function fill(database: TestDatabase, rows: ReturnType<typeof pendingInboxRows>, orders: number): Promise<void> {
  if (database.file) {
    seedOrders(database.file, "ord_lim_", orders, 2_500);
    fillSqliteInbox(database.file, rows);
  } else {
    await seedPostgresOrders(database.url, "ord_lim_", orders, 2_500);
    await fillPostgresInbox(database.url, rows);
  }
}

function runLimit(database: TestDatabase, batch: number): Promise<LimitRun> | LimitRun {
  return database.file ? runSqliteLimit(database.file, batch) : runPostgresLimit(database.url, batch);
}

describe(`the bench's bare-SQL apply limit on ${TEST_DATABASE}`, () => {
  // Filled once, applied three ways: Acredita's worker (the test database), the limit per event, and batched.
  const rows = pendingInboxRows("evt_lim_", "ord_lim_", EVENTS, 2_500, new Date(Date.now() - 1_000));
  const perEvent = newTestDatabase("limit_per_event");
  const batched = newTestDatabase("limit_batched");
  let acredita: Snapshot;

  test(`Acredita's worker applies the ${EVENTS} filled events (the reference rows)`, async () => {
    await fill(TEST_DB, rows, EVENTS);
    const database = await db();
    let applied = 0;
    for (let claimed = await claimNextInboxEvent(database, "limit", new Date(), 30_000); claimed; claimed = await claimNextInboxEvent(database, "limit", new Date(), 30_000)) {
      const result = await applyClaimedEvent(database, claimed, { owner: "limit", policy: POLICY });
      assert.equal(result.kind, "applied");
      applied++;
    }
    assert.equal(applied, EVENTS);
    acredita = await snapshot(TEST_DB);
    assert.deepEqual(
      Object.fromEntries(Object.entries(acredita).map(([name, table]) => [name, table.length])),
      { events: EVENTS, ledger: EVENTS, orders: EVENTS, deliveries: EVENTS, decisions: EVENTS, deadLetters: 0, outbox: 0 },
    );
    assert.deepEqual(acredita.orders.filter((order) => order.status !== "paid" || order.touched !== true), []);
    assert.deepEqual(acredita.decisions[0], {
      provider: "lab",
      endpoint: "lab",
      eventId: "evt_lim_0",
      verified: true,
      eventType: "payment.approved",
      orderId: "ord_lim_0",
      outcome: "applied",
      httpStatus: null,
      reason: "credited 2500 ARS; order ord_lim_0 created -> paid",
      secretLabel: "LAB_WEBHOOK_SECRET[0]",
      diagnosis: null,
      source: "worker",
    });
    assert.equal(acredita.ledger[0].businessKey, "credit:lab:lab:live:pay_evt_lim_0");
  });

  test("the limit, one transaction per event, writes exactly the same rows", async () => {
    await fill(perEvent, rows, EVENTS);
    const run = await runLimit(perEvent, 1);
    assert.deepEqual([run.shape, run.events, run.failed], ["per-event", EVENTS, 0]);
    assert.deepEqual(await snapshot(perEvent), acredita);
  });

  test("the limit, 64 events a transaction with a savepoint each, writes the same rows; an event that fails rolls back alone", async () => {
    // One more event, for an order that does not exist: its savepoint is rolled back, its batch commits.
    const orphan = pendingInboxRows("evt_lim_orphan_", "ord_lim_missing_", 1, 2_500, new Date(Date.now() - 1_000));
    await fill(batched, [...rows, ...orphan], EVENTS);
    const run = await runLimit(batched, 64);
    assert.deepEqual([run.shape, run.batch, run.events, run.failed], ["batched", 64, EVENTS, 1]);
    const after = await snapshot(batched);
    const orphanRow = after.events.find((row) => row.eventId === "evt_lim_orphan_0")!;
    assert.deepEqual([orphanRow.status, orphanRow.attempts, orphanRow.leaseOwner, orphanRow.processed], ["processing", 1, "limit", false]);
    assert.deepEqual({ ...after, events: after.events.filter((row) => row.eventId !== "evt_lim_orphan_0") }, acredita);
  });
});
