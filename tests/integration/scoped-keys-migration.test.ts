// The migration that scopes ledger and extra-charge keys by provider, account and live/test, run on a
// database that holds rows written before it (old keys `credit:<payment>`, `refund:<payment>[:<total>]`),
// on the database under test (SQLite file, or a PostgreSQL database on the test cluster).
import assert from "node:assert/strict";
import { test } from "node:test";
import { withConnection } from "@/lib/db/postgres-database";
import { withDatabaseMigratedFrom } from "@/e2e/support/database-before-migration";

const MIGRATION = "20261201102158_scoped_ledger_keys";

// Rows as the previous schema held them: a lab credit and partial refund, a Stripe test-mode credit whose
// event was stored on the test endpoint, an extra charge, and a ledger entry whose event row is gone
// (its scope then comes from its order).
const OLD_ROWS = [
  `INSERT INTO "Order" ("id", "account", "livemode", "amount", "currency", "status", "refundedAmount", "updatedAt") VALUES ('ord_m1', 'default', true, 1000, 'ARS', 'paid', 300, CURRENT_TIMESTAMP)`,
  `INSERT INTO "Order" ("id", "account", "livemode", "amount", "currency", "status", "updatedAt") VALUES ('ord_m2', 'default', false, 500, 'USD', 'paid', CURRENT_TIMESTAMP)`,
  `INSERT INTO "Order" ("id", "account", "livemode", "amount", "currency", "status", "updatedAt") VALUES ('ord_m3', 'acct_orders', true, 700, 'USD', 'paid', CURRENT_TIMESTAMP)`,
  `INSERT INTO "WebhookEvent" ("id", "provider", "endpoint", "account", "livemode", "eventId", "type", "bodyHash", "status", "payload") VALUES ('we1', 'lab', 'lab', 'lab', true, 'evt_m1', 'payment.approved', 'h1', 'processed', '{}')`,
  `INSERT INTO "WebhookEvent" ("id", "provider", "endpoint", "account", "livemode", "eventId", "type", "bodyHash", "status", "payload") VALUES ('we2', 'lab', 'lab', 'lab', true, 'evt_m1r', 'payment.refunded', 'h2', 'processed', '{}')`,
  `INSERT INTO "WebhookEvent" ("id", "provider", "endpoint", "account", "livemode", "eventId", "type", "bodyHash", "status", "payload") VALUES ('we3', 'stripe', 'stripe-test', 'acct_m', false, 'evt_m2', 'payment_intent.succeeded', 'h3', 'processed', '{}')`,
  `INSERT INTO "WebhookEvent" ("id", "provider", "endpoint", "account", "livemode", "eventId", "type", "bodyHash", "status", "payload") VALUES ('we4', 'stripe', 'stripe-test', 'acct_m', false, 'evt_m2x', 'payment_intent.succeeded', 'h4', 'processed', '{}')`,
  `INSERT INTO "LedgerEntry" ("id", "businessKey", "orderId", "paymentKey", "kind", "amount", "currency", "provider", "eventId") VALUES ('l1', 'credit:pay_m1', 'ord_m1', 'pay_m1', 'credit', 1000, 'ARS', 'lab', 'evt_m1')`,
  `INSERT INTO "LedgerEntry" ("id", "businessKey", "orderId", "paymentKey", "kind", "amount", "currency", "provider", "eventId") VALUES ('l2', 'refund:pay_m1:300', 'ord_m1', 'pay_m1', 'refund', -300, 'ARS', 'lab', 'evt_m1r')`,
  `INSERT INTO "LedgerEntry" ("id", "businessKey", "orderId", "paymentKey", "kind", "amount", "currency", "provider", "eventId") VALUES ('l3', 'credit:pi_m2', 'ord_m2', 'pi_m2', 'credit', 500, 'USD', 'stripe', 'evt_m2')`,
  `INSERT INTO "LedgerEntry" ("id", "businessKey", "orderId", "paymentKey", "kind", "amount", "currency", "provider", "eventId") VALUES ('l4', 'credit:pi_m3', 'ord_m3', 'pi_m3', 'credit', 700, 'USD', 'stripe', 'evt_gone')`,
  `INSERT INTO "ExtraCharge" ("id", "orderId", "paymentKey", "amount", "currency", "provider", "eventId") VALUES ('x1', 'ord_m2', 'pi_m2x', 500, 'USD', 'stripe', 'evt_m2x')`,
];

const EXPECTED_LEDGER = [
  ["l1", "credit:lab:lab:live:pay_m1", "lab", true],
  ["l2", "refund:lab:lab:live:pay_m1:300", "lab", true],
  ["l3", "credit:stripe:acct_m:test:pi_m2", "acct_m", false],
  ["l4", "credit:stripe:acct_orders:live:pi_m3", "acct_orders", true],
];

test("old ledger keys and extra charges get the scope of the event that booked them (else their order's), on the database under test", async () => {
  await withDatabaseMigratedFrom(MIGRATION, OLD_ROWS, async (migrated) => {
    if (migrated.kind === "sqlite") {
      const { database } = migrated;
      const ledger = database.prepare(`SELECT id, businessKey, account, livemode FROM LedgerEntry ORDER BY id`).all() as { id: string; businessKey: string; account: string; livemode: number }[];
      assert.deepEqual(ledger.map((row) => [row.id, row.businessKey, row.account, row.livemode === 1]), EXPECTED_LEDGER);
      assert.deepEqual(database.prepare(`SELECT provider, account, livemode, paymentKey FROM ExtraCharge`).all(), [{ provider: "stripe", account: "acct_m", livemode: 0, paymentKey: "pi_m2x" }]);
      assert.throws(() => database.exec(`INSERT INTO "ExtraCharge" ("id", "orderId", "paymentKey", "amount", "currency", "provider", "account", "livemode", "eventId") VALUES ('x2', 'ord_m2', 'pi_m2x', 1, 'USD', 'stripe', 'acct_m', 0, 'e')`), /UNIQUE/);
      return;
    }
    await withConnection(migrated.url, async (client) => {
      const ledger = await client.query<{ id: string; businessKey: string; account: string; livemode: boolean }>(`SELECT "id", "businessKey", "account", "livemode" FROM "LedgerEntry" ORDER BY "id"`);
      assert.deepEqual(ledger.rows.map((row) => [row.id, row.businessKey, row.account, row.livemode]), EXPECTED_LEDGER);
      const extra = await client.query(`SELECT "provider", "account", "livemode", "paymentKey" FROM "ExtraCharge"`);
      assert.deepEqual(extra.rows, [{ provider: "stripe", account: "acct_m", livemode: false, paymentKey: "pi_m2x" }]);
      await assert.rejects(client.query(`INSERT INTO "ExtraCharge" ("id", "orderId", "paymentKey", "amount", "currency", "provider", "account", "livemode", "eventId") VALUES ('x2', 'ord_m2', 'pi_m2x', 1, 'USD', 'stripe', 'acct_m', false, 'e')`), /duplicate key/);
    });
  });
});
