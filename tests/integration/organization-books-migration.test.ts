import "@/e2e/support/test-env";
// The migration that gives the books an organization (prisma/migrations/*_organization_books), on a
// database as the previous release left it with a row in every table it changes: every row lands in the
// default organization, nothing is lost or unlinked, and afterwards another organization may hold an
// order of the same id (with its own delivery and ledger entry) beside the default one's. Both databases.
import assert from "node:assert/strict";
import { test } from "node:test";
import pg from "pg";
import { withDatabaseMigratedFrom, type MigratedDatabase } from "@/e2e/support/database-before-migration";

const MIGRATION = "20261203032505_organization_books";

/** The tables the migration gives an organizationId, each with one row written below. */
const TABLES = ["Order", "WebhookEvent", "LedgerEntry", "Dispute", "Delivery", "ExtraCharge", "Decision", "DeadLetter", "OutboxMessage", "ReconciliationRun", "Replay", "BooksCheck", "GapCheck", "AuditEntry"] as const;

// Rows as the previous release wrote them (PostgreSQL syntax; the helper turns true/false into 1/0 on SQLite).
const OLD_ROWS = [
  `INSERT INTO "Order" ("id", "account", "livemode", "amount", "currency", "status", "refundedAmount", "checkoutSessionId", "updatedAt") VALUES ('A-1001', 'acct_m', true, 10000, 'USD', 'paid', 0, 'cs_m_1', CURRENT_TIMESTAMP)`,
  `INSERT INTO "WebhookEvent" ("id", "provider", "endpoint", "account", "livemode", "eventId", "type", "bodyHash", "orderId", "status", "payload") VALUES ('we_m_1', 'stripe', 'stripe', 'acct_m', true, 'evt_m_1', 'payment_intent.succeeded', 'h1', 'A-1001', 'processed', '{}')`,
  `INSERT INTO "LedgerEntry" ("id", "businessKey", "orderId", "paymentKey", "kind", "amount", "currency", "provider", "account", "livemode", "eventId") VALUES ('le_m_1', 'credit:stripe:acct_m:live:pi_m_1', 'A-1001', 'pi_m_1', 'credit', 10000, 'USD', 'stripe', 'acct_m', true, 'evt_m_1')`,
  `INSERT INTO "Dispute" ("id", "provider", "account", "livemode", "paymentKey", "disputeId", "orderId", "status", "amount", "currency", "updatedAt") VALUES ('dp_m_1', 'stripe', 'acct_m', true, 'pi_m_1', 'dp_1', 'A-1001', 'open', 10000, 'USD', CURRENT_TIMESTAMP)`,
  `INSERT INTO "Delivery" ("id", "orderId", "paymentKey", "provider", "eventId") VALUES ('dl_m_1', 'A-1001', 'pi_m_1', 'stripe', 'evt_m_1')`,
  `INSERT INTO "ExtraCharge" ("id", "orderId", "paymentKey", "amount", "currency", "provider", "account", "livemode", "eventId") VALUES ('xc_m_1', 'A-1001', 'pi_m_2', 10000, 'USD', 'stripe', 'acct_m', true, 'evt_m_2')`,
  `INSERT INTO "Decision" ("id", "provider", "endpoint", "eventId", "verified", "orderId", "outcome", "reason") VALUES ('de_m_1', 'stripe', 'stripe', 'evt_m_1', true, 'A-1001', 'applied', 'credited')`,
  `INSERT INTO "DeadLetter" ("id", "dedupeKey", "provider", "endpoint", "account", "livemode", "eventId", "eventType", "orderId", "bodyHash", "payload", "category", "reason", "retryable", "nextAction") VALUES ('dlt_m_1', 'stripe:acct_m:live:evt_m_3:h3', 'stripe', 'stripe', 'acct_m', true, 'evt_m_3', 'charge.refunded', 'A-1001', 'h3', '{}', 'transition', 'not yet', true, 'retry')`,
  `INSERT INTO "OutboxMessage" ("id", "idempotencyKey", "orderId", "target", "body", "updatedAt") VALUES ('ob_m_1', 'fulfilment:A-1001', 'A-1001', 'https://shop.example/hook', '{}', CURRENT_TIMESTAMP)`,
  `INSERT INTO "ReconciliationRun" ("id", "source") VALUES ('rr_m_1', 'upload.csv')`,
  `INSERT INTO "Replay" ("id", "createdBy", "filter", "status", "eventCount", "orderCount", "preview") VALUES ('rp_m_1', 'ana@shop.test', '{}', 'previewed', 1, 1, '{}')`,
  `INSERT INTO "BooksCheck" ("id", "startedAt", "trigger", "status") VALUES ('bc_m_1', CURRENT_TIMESTAMP, 'daily', 'done')`,
  `INSERT INTO "GapCheck" ("id", "endpoint", "trigger", "status", "startedAt", "since") VALUES ('gc_m_1', 'stripe', 'scheduled', 'done', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)`,
  `INSERT INTO "AuditEntry" ("id", "actorId", "actorEmail", "action", "targetType", "targetId") VALUES ('au_m_1', 'u_1', 'ana@shop.test', 'dead_letter.retry', 'dead_letter', 'dlt_m_1')`,
];

/** Runs SQL on the migrated database (either kind); returns the rows. */
async function query(migrated: MigratedDatabase, sql: string): Promise<Record<string, unknown>[]> {
  if (migrated.kind === "sqlite") {
    const statement = migrated.database.prepare(sql);
    if (statement.reader) return statement.all() as Record<string, unknown>[];
    statement.run();
    return [];
  }
  const client = new pg.Client({ connectionString: migrated.url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}

/** Runs a statement expected to fail on a unique key; returns true when it did. */
async function refused(migrated: MigratedDatabase, sql: string): Promise<boolean> {
  try {
    await query(migrated, sql);
    return false;
  } catch {
    return true;
  }
}

test("every row of the previous release lands in the default organization, linked as before; another organization's order may then share its id", async () => {
  await withDatabaseMigratedFrom(MIGRATION, OLD_ROWS, async (migrated) => {
    // As the application's connections run (Prisma and the driver turn SQLite's foreign keys on).
    if (migrated.kind === "sqlite") migrated.database.pragma("foreign_keys = ON");
    for (const table of TABLES) {
      const rows = await query(migrated, `SELECT "organizationId" FROM "${table}"`);
      assert.deepEqual(rows.map((row) => row.organizationId), ["org_default"], table);
    }
    // The order's children still join it by (organizationId, orderId).
    const joined = await query(
      migrated,
      `SELECT o."id", o."checkoutSessionId", l."amount", d."paymentKey", x."paymentKey" AS "extra", s."disputeId" FROM "Order" o
       JOIN "LedgerEntry" l ON l."organizationId" = o."organizationId" AND l."orderId" = o."id"
       JOIN "Delivery" d ON d."organizationId" = o."organizationId" AND d."orderId" = o."id"
       JOIN "ExtraCharge" x ON x."organizationId" = o."organizationId" AND x."orderId" = o."id"
       JOIN "Dispute" s ON s."organizationId" = o."organizationId" AND s."orderId" = o."id"`,
    );
    assert.deepEqual(joined.map((row) => ({ ...row, amount: Number(row.amount) })), [{ id: "A-1001", checkoutSessionId: "cs_m_1", amount: 10000, paymentKey: "pi_m_1", extra: "pi_m_2", disputeId: "dp_1" }]);

    // Another organization: the same order id and checkout session, its own delivery; the default
    // organization's keys still refuse a second order, delivery or checkout session of its own.
    await query(migrated, `INSERT INTO "Organization" ("id", "slug", "name") VALUES ('org_m_other', 'm-other', 'Other')`);
    await query(migrated, `INSERT INTO "Order" ("organizationId", "id", "account", "livemode", "amount", "currency", "status", "checkoutSessionId", "updatedAt") VALUES ('org_m_other', 'A-1001', 'acct_o', true, 500, 'USD', 'paid', 'cs_m_1', CURRENT_TIMESTAMP)`);
    await query(migrated, `INSERT INTO "Delivery" ("id", "organizationId", "orderId", "paymentKey", "provider", "eventId") VALUES ('dl_o_1', 'org_m_other', 'A-1001', 'pi_o_1', 'stripe', 'evt_o_1')`);
    assert.equal(await refused(migrated, `INSERT INTO "Order" ("id", "account", "livemode", "amount", "currency", "status", "updatedAt") VALUES ('A-1001', 'acct_m', true, 1, 'USD', 'created', CURRENT_TIMESTAMP)`), true, "a second A-1001 in the default organization");
    assert.equal(await refused(migrated, `INSERT INTO "Delivery" ("id", "orderId", "paymentKey", "provider", "eventId") VALUES ('dl_m_2', 'A-1001', 'pi_m_9', 'stripe', 'evt_m_9')`), true, "a second delivery of the default organization's A-1001");
    // A ledger entry must name an order of its own organization.
    assert.equal(await refused(migrated, `INSERT INTO "LedgerEntry" ("id", "organizationId", "businessKey", "orderId", "paymentKey", "kind", "amount", "currency", "provider", "account", "livemode", "eventId") VALUES ('le_x', 'org_m_nowhere', 'credit:x', 'A-1001', 'pi_x', 'credit', 1, 'USD', 'stripe', 'acct_x', true, 'evt_x')`), true, "an entry of an order no organization of that id has");
    const orders = await query(migrated, `SELECT "organizationId", "amount" FROM "Order" WHERE "id" = 'A-1001' ORDER BY "organizationId"`);
    assert.deepEqual(orders.map((row) => [row.organizationId, Number(row.amount)]), [["org_default", 10000], ["org_m_other", 500]]);
  });
});
