import { TEST_DB } from "@/e2e/support/test-env";
// The claim statement, on the database under test: SQLite's guarded UPDATE, PostgreSQL's
// FOR UPDATE SKIP LOCKED (lib/events/webhook-events.ts, lib/outbox/outbox-store.ts). Many
// claimers at once, each with its own owner, must take every due event exactly once.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { closeDb, db } from "@/lib/db/client";
import { databaseKind } from "@/lib/db/database-kind";
import { claimNextInboxEvent } from "@/lib/events/webhook-events";
import { claimNextOutboxMessage } from "@/lib/outbox/outbox-store";
import { inboxRow, INBOX_T0 } from "@/e2e/support/inbox-rows";
import { onPostgres, TEST_DATABASE } from "@/e2e/support/test-database";

const T0 = INBOX_T0;
const LEASE_MS = 60_000;
const seconds = (n: number) => new Date(T0.getTime() + n * 1000);


async function clearQueues() {
  const database = await db();
  await database.webhookEvent.deleteMany({});
  await database.outboxMessage.deleteMany({});
}

/** `claimers` loops claim at once until nothing is due; returns [owner, claimed id] pairs. */
async function claimAll(claimers: number, claim: (owner: string) => Promise<{ id: string } | null>): Promise<[string, string][]> {
  const claims: [string, string][] = [];
  await Promise.all(
    Array.from({ length: claimers }, async (_, index) => {
      const owner = `worker-${index}`;
      for (let got = await claim(owner); got; got = await claim(owner)) claims.push([owner, got.id]);
    }),
  );
  return claims;
}

before(clearQueues);
after(closeDb);

describe(`claiming work on ${TEST_DATABASE}`, () => {
  test("the client reports the database it runs on, which picks the claim statement", async () => {
    assert.equal(databaseKind(await db()), onPostgres ? "postgresql" : "sqlite");
    await (await db()).$transaction(async (tx) => assert.equal(databaseKind(tx), onPostgres ? "postgresql" : "sqlite"));
  });

  test("12 concurrent claimers take each of 300 due inbox events exactly once, in due order per claimer", async () => {
    await clearQueues();
    const database = await db();
    await database.webhookEvent.createMany({ data: Array.from({ length: 300 }, (_, i) => inboxRow(`evt_claim_${i}`, { nextAttemptAt: seconds(-300 + i) })) });
    await database.webhookEvent.createMany({ data: [inboxRow("evt_not_due", { nextAttemptAt: seconds(30) }), inboxRow("evt_done", { status: "processed" })] });
    const claims = await claimAll(12, (owner) => claimNextInboxEvent(database, owner, T0, LEASE_MS));
    assert.equal(claims.length, 300);
    assert.equal(new Set(claims.map(([, id]) => id)).size, 300);
    const rows = await database.webhookEvent.findMany({ where: { eventId: { startsWith: "evt_claim_" } } });
    const claimedBy = new Map(claims.map(([owner, id]) => [id, owner]));
    assert.deepEqual(
      rows.filter((row) => row.status !== "processing" || row.attempts !== 1 || row.leaseOwner !== claimedBy.get(row.id) || row.leaseExpiresAt?.getTime() !== T0.getTime() + LEASE_MS).map((row) => row.eventId),
      [],
    );
    assert.ok(new Set(claims.map(([owner]) => owner)).size > 1, "more than one claimer got work");
    assert.deepEqual(
      (await database.webhookEvent.findMany({ where: { eventId: { in: ["evt_not_due", "evt_done"] } }, orderBy: { eventId: "asc" } })).map((row) => [row.eventId, row.status, row.attempts]),
      [["evt_done", "processed", 0], ["evt_not_due", "received", 0]],
    );
  });

  test("an event whose worker died is claimed again once its lease expires, with the attempt counted", async () => {
    await clearQueues();
    const database = await db();
    await database.webhookEvent.create({ data: inboxRow("evt_orphan", { status: "processing", attempts: 1, leaseOwner: "dead-worker", leaseExpiresAt: seconds(10) }) });
    assert.equal(await claimNextInboxEvent(database, "worker-a", seconds(9), LEASE_MS), null);
    const claimed = await claimNextInboxEvent(database, "worker-a", seconds(10), LEASE_MS);
    assert.deepEqual([claimed?.eventId, claimed?.attempts, claimed?.leaseExpiresAt.getTime()], ["evt_orphan", 2, seconds(10).getTime() + LEASE_MS]);
    const row = await database.webhookEvent.findFirstOrThrow({ where: { eventId: "evt_orphan" } });
    assert.deepEqual([row.status, row.leaseOwner, row.attempts], ["processing", "worker-a", 2]);
  });

  test("8 concurrent dispatchers take each of 120 due outbox messages exactly once", async () => {
    await clearQueues();
    const database = await db();
    await database.order.upsert({ where: { organizationId_id: { organizationId: "org_default", id: "ord_outbox_claim" } }, create: { id: "ord_outbox_claim", amount: 1, currency: "ARS" }, update: {} });
    await database.outboxMessage.createMany({
      data: Array.from({ length: 120 }, (_, i) => ({ idempotencyKey: `claim-${i}`, orderId: "ord_outbox_claim", target: "http://127.0.0.1:9/", body: "{}", nextAttemptAt: seconds(-i) })),
    });
    await database.outboxMessage.create({ data: { idempotencyKey: "claim-later", orderId: "ord_outbox_claim", target: "http://127.0.0.1:9/", body: "{}", nextAttemptAt: seconds(60) } });
    const claims = await claimAll(8, (owner) => claimNextOutboxMessage(database, owner, T0, LEASE_MS));
    assert.equal(claims.length, 120);
    assert.equal(new Set(claims.map(([, id]) => id)).size, 120);
    assert.deepEqual(
      (await database.outboxMessage.groupBy({ by: ["status", "attempts"], _count: { _all: true }, orderBy: { status: "asc" } })).map((group) => [group.status, group.attempts, group._count._all]),
      [["pending", 0, 1], ["sending", 1, 120]],
    );
  });

  test("PostgreSQL: a due event locked by another transaction is skipped, not waited for", { skip: onPostgres ? false : "PostgreSQL only" }, async () => {
    await clearQueues();
    const database = await db();
    await database.webhookEvent.createMany({ data: [inboxRow("evt_locked", { nextAttemptAt: seconds(-2) }), inboxRow("evt_free", { nextAttemptAt: seconds(-1) })] });
    const other = new pg.Client({ connectionString: TEST_DB.url });
    await other.connect();
    try {
      await other.query("BEGIN");
      await other.query(`SELECT id FROM "WebhookEvent" WHERE "eventId" = 'evt_locked' FOR UPDATE`);
      const first = await claimNextInboxEvent(database, "worker-a", T0, LEASE_MS);
      assert.equal(first?.eventId, "evt_free");
      assert.equal(await claimNextInboxEvent(database, "worker-b", T0, LEASE_MS), null);
    } finally {
      await other.query("ROLLBACK");
      await other.end();
    }
    assert.equal((await claimNextInboxEvent(database, "worker-b", T0, LEASE_MS))?.eventId, "evt_locked");
  });
});
