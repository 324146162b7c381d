import { TEST_DB, TEST_LAB_SECRET } from "@/e2e/support/test-env";
// PostgreSQL's statement timeout and Prisma's transaction timeout (DATABASE_STATEMENT_TIMEOUT_MS,
// DATABASE_TRANSACTION_TIMEOUT_MS): a delivery whose transaction runs out of time leaves nothing behind
// (no event mark, no ledger entry, no transition), answers 503 so the provider retries, and the retry
// applies once. The order row is held locked by another connection, so the delivery cannot finish in time.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { closeDb, db, type Db } from "@/lib/db/client";
import { openPostgres } from "@/lib/db/open-postgres";
import { receiveWebhook, type WebhookAnswer } from "@/lib/ingest/receive-webhook";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";
import { createOrder, deliverLab, labEvent, readOrder } from "@/e2e/support/http";
import { onPostgres } from "@/e2e/support/test-database";

const skip = onPostgres ? false : "PostgreSQL only (TEST_DATABASE=postgres)";
const DB_UNAVAILABLE = { status: 503, body: { outcome: "rejected", reason: "database unavailable, event not stored; retry later" } };

function deliverWith(client: Db, body: string): Promise<WebhookAnswer> {
  const headers = new Headers({ "Lab-Signature": signTimestamped(TEST_LAB_SECRET, Math.floor(Date.now() / 1000), body) });
  return receiveWebhook({ endpointName: "lab", headers, body: Buffer.from(body) }, { db: client });
}

/** Holds `SELECT ... FOR UPDATE` on one order from a separate connection until released. */
async function lockOrder(orderId: string): Promise<{ release: () => Promise<void>; client: pg.Client }> {
  const client = new pg.Client({ connectionString: TEST_DB.url });
  await client.connect();
  await client.query("BEGIN");
  await client.query(`SELECT id FROM "Order" WHERE id = $1 FOR UPDATE`, [orderId]);
  return {
    client,
    release: async () => {
      await client.query("ROLLBACK");
      await client.end();
    },
  };
}

async function traces(eventId: string, orderId: string) {
  const database = await db();
  return {
    events: await database.webhookEvent.count({ where: { eventId } }),
    ledger: await database.ledgerEntry.count({ where: { orderId } }),
    deliveries: await database.delivery.count({ where: { orderId } }),
    status: (await database.order.findUniqueOrThrow({ where: { organizationId_id: { organizationId: "org_default", id: orderId } } })).status,
    decisions503: await database.decision.count({ where: { eventId, httpStatus: 503 } }),
  };
}

before(async () => {
  if (!onPostgres) return;
  assert.equal((await createOrder("ord_stmt", 1000)).status, 201);
  assert.equal((await createOrder("ord_tx", 2000)).status, 201);
});
after(closeDb);

describe("PostgreSQL timeouts", { skip }, () => {
  test("a statement cancelled by statement_timeout rolls the delivery back and answers 503; the retry applies once", async () => {
    const slow = openPostgres(TEST_DB.url, { poolSize: 2, poolTimeoutMs: 5_000, statementTimeoutMs: 300, transactionTimeoutMs: 30_000 });
    const lock = await lockOrder("ord_stmt");
    const body = labEvent("evt_stmt", "payment.approved", "ord_stmt", "pay_stmt", 1000);
    try {
      assert.deepEqual(await deliverWith(slow, body), DB_UNAVAILABLE);
    } finally {
      await lock.release();
      await slow.$disconnect();
    }
    assert.deepEqual(await traces("evt_stmt", "ord_stmt"), { events: 0, ledger: 0, deliveries: 0, status: "created", decisions503: 1 });
    const retry = await deliverLab(body);
    assert.deepEqual([retry.status, retry.json.outcome], [200, "applied"]);
    assert.deepEqual({ ...(await traces("evt_stmt", "ord_stmt")), credited: (await readOrder("ord_stmt")).credited }, { events: 1, ledger: 1, deliveries: 1, status: "paid", decisions503: 1, credited: 1000 });
  });

  test("a transaction past DATABASE_TRANSACTION_TIMEOUT_MS is rolled back and answers 503; the retry applies once", async () => {
    const transactionTimeoutMs = 400;
    const slow = openPostgres(TEST_DB.url, { poolSize: 2, poolTimeoutMs: 5_000, statementTimeoutMs: 30_000, transactionTimeoutMs });
    const lock = await lockOrder("ord_tx");
    const body = labEvent("evt_tx", "payment.approved", "ord_tx", "pay_tx", 2000);
    let answer: Promise<WebhookAnswer>;
    try {
      answer = deliverWith(slow, body);
      // Wait until the delivery's transaction is blocked on the order row, then until its time is up
      // (the transaction started before it blocked), then let it go on: its next step finds it expired.
      for (;;) {
        // The lock holder is inside a transaction, where pg_stat_activity is a snapshot: clear it first.
        await lock.client.query("SELECT pg_stat_clear_snapshot()");
        const waiting = await lock.client.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND application_name = 'acredita'`);
        if (waiting.rows[0].n > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await new Promise((resolve) => setTimeout(resolve, transactionTimeoutMs + 200));
    } finally {
      await lock.release();
    }
    assert.deepEqual(await answer, DB_UNAVAILABLE);
    await slow.$disconnect();
    assert.deepEqual(await traces("evt_tx", "ord_tx"), { events: 0, ledger: 0, deliveries: 0, status: "created", decisions503: 1 });
    const retry = await deliverLab(body);
    assert.deepEqual([retry.status, retry.json.outcome], [200, "applied"]);
    assert.deepEqual({ ...(await traces("evt_tx", "ord_tx")), credited: (await readOrder("ord_tx")).credited }, { events: 1, ledger: 1, deliveries: 1, status: "paid", decisions503: 1, credited: 2000 });
  });
});
