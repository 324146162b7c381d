// The migration that keeps refunds' and disputes' own facts (LedgerEntry.occurredAt, RefundSnapshot,
// Dispute), run on a database holding the books as the previous version wrote them (refund keys by
// running total, `refund:<scope>:<payment>[:<total>]`), then applying new events to those books: the old
// entries keep their keys and count as booked, and new refunds book only what they add.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Pool } from "pg";
import { applyEffect } from "@/lib/apply/apply-effect";
import { postgresDriver, sqliteDriver, type DriverDb } from "@/lib/db/driver";
import { withDatabaseMigratedFrom } from "@/e2e/support/database-before-migration";

const MIGRATION = "20261202142346_refund_and_dispute_facts";

// Books as the previous version left them: a partial refund booked by its running total, a full refund,
// and a failed refund booked back.
const OLD_ROWS = [
  `INSERT INTO "Order" ("id", "account", "livemode", "amount", "currency", "status", "refundedAmount", "updatedAt") VALUES ('ord_f1', 'default', true, 10000, 'USD', 'paid', 3000, CURRENT_TIMESTAMP)`,
  `INSERT INTO "Order" ("id", "account", "livemode", "amount", "currency", "status", "refundedAmount", "updatedAt") VALUES ('ord_f2', 'default', true, 1500, 'USD', 'paid', 0, CURRENT_TIMESTAMP)`,
  `INSERT INTO "LedgerEntry" ("id", "businessKey", "orderId", "paymentKey", "kind", "amount", "currency", "provider", "account", "livemode", "eventId") VALUES ('l1', 'credit:stripe:acct_m:live:pi_f1', 'ord_f1', 'pi_f1', 'credit', 10000, 'USD', 'stripe', 'acct_m', true, 'evt_1')`,
  `INSERT INTO "LedgerEntry" ("id", "businessKey", "orderId", "paymentKey", "kind", "amount", "currency", "provider", "account", "livemode", "eventId") VALUES ('l2', 'refund:stripe:acct_m:live:pi_f1:3000', 'ord_f1', 'pi_f1', 'refund', -3000, 'USD', 'stripe', 'acct_m', true, 'evt_2')`,
  `INSERT INTO "LedgerEntry" ("id", "businessKey", "orderId", "paymentKey", "kind", "amount", "currency", "provider", "account", "livemode", "eventId") VALUES ('l3', 'credit:stripe:acct_m:live:pi_f2', 'ord_f2', 'pi_f2', 'credit', 1500, 'USD', 'stripe', 'acct_m', true, 'evt_3')`,
  `INSERT INTO "LedgerEntry" ("id", "businessKey", "orderId", "paymentKey", "kind", "amount", "currency", "provider", "account", "livemode", "eventId") VALUES ('l4', 'refund:stripe:acct_m:live:pi_f2', 'ord_f2', 'pi_f2', 'refund', -1500, 'USD', 'stripe', 'acct_m', true, 'evt_4')`,
  `INSERT INTO "LedgerEntry" ("id", "businessKey", "orderId", "paymentKey", "kind", "amount", "currency", "provider", "account", "livemode", "eventId") VALUES ('l5', 'refund_failed:stripe:acct_m:live:pi_f2:re_f2', 'ord_f2', 'pi_f2', 'refund_failed', 1500, 'USD', 'stripe', 'acct_m', true, 'evt_5')`,
];

const source = (eventId: string) => ({ organizationId: "org_default", provider: "stripe" as const, account: "acct_m", livemode: true, eventId, eventType: "charge.refunded" });

/** New events on the old books, through the apply the worker runs; returns what each did and the books after. */
async function applyOnOldBooks(driver: DriverDb) {
  const outcomes: string[] = [];
  const apply = async (eventId: string, effect: Parameters<typeof applyEffect>[2]) => outcomes.push((await driver.transaction((session) => applyEffect(session, source(eventId), effect, new Date("2026-12-02T12:00:00Z")))).reason);
  // A new partial refund: the running total goes 3000 -> 5000.
  await apply("evt_new_1", { kind: "refund", paymentKey: "pi_f1", orderRef: {}, currency: "usd", refundedTotal: 5_000, at: 1_764_400_000 });
  // A replay of the old partial refund: already booked.
  await apply("evt_new_2", { kind: "refund", paymentKey: "pi_f1", orderRef: {}, currency: "usd", refundedTotal: 3_000, at: 1_764_300_000 });
  // The refund that failed before the upgrade, reported again: already booked back.
  await apply("evt_new_3", { kind: "refund", paymentKey: "pi_f2", orderRef: {}, currency: "usd", refunds: [{ refundId: "re_f2", amount: 1_500, status: "failed", createdAt: 1_764_300_000 }], at: 1_764_400_000 });
  // A dispute lost, by its balance transactions.
  await apply("evt_new_4", { kind: "dispute", paymentKey: "pi_f1", orderRef: {}, disputeId: "dp_f1", status: "lost", amount: 10_000, currency: "usd", movements: [{ id: "txn_w", amount: -10_000 }, { id: "txn_r", amount: 5_000 }], fallback: null });
  const books = await driver.transaction(async (session) => ({
    ledger: (await session.all<{ businessKey: string; amount: number | string }>(`SELECT "businessKey", "amount" FROM "LedgerEntry" ORDER BY "businessKey"`)).map((row) => [row.businessKey, Number(row.amount)]),
    orders: (await session.all<{ id: string; status: string; refundedAmount: number | string; disputedAmount: number | string }>(`SELECT "id", "status", "refundedAmount", "disputedAmount" FROM "Order" ORDER BY "id"`)).map((row) => [row.id, row.status, Number(row.refundedAmount), Number(row.disputedAmount)]),
    disputes: await session.all(`SELECT "disputeId", "status" FROM "Dispute"`),
    oldTimes: (await session.all<{ n: number | string }>(`SELECT COUNT(*) AS "n" FROM "LedgerEntry" WHERE "occurredAt" IS NULL AND "id" IN ('l1', 'l2', 'l3', 'l4', 'l5')`)).map((row) => Number(row.n)),
  }));
  return { outcomes, books };
}

const EXPECTED = {
  outcomes: [
    "refunded 2000 USD (total 5000); order ord_f1 paid -> paid",
    "refund total 3000 of payment pi_f1 already recorded (refunded 5000)",
    "refunds of payment pi_f2 already booked (refunded 0)",
    "dispute dp_f1 lost; dispute dp_f1: 10000 USD withdrawn; dispute dp_f1: 5000 USD reinstated; order ord_f1 paid -> dispute_lost (refunded 5000, disputed 5000)",
  ],
  books: {
    ledger: [
      ["credit:stripe:acct_m:live:pi_f1", 10_000],
      ["credit:stripe:acct_m:live:pi_f2", 1_500],
      ["dispute:stripe:acct_m:live:pi_f1:dp_f1:txn:txn_r", 5_000],
      ["dispute:stripe:acct_m:live:pi_f1:dp_f1:txn:txn_w", -10_000],
      ["refund:stripe:acct_m:live:pi_f1:3000", -3_000],
      ["refund:stripe:acct_m:live:pi_f1:total:5000:at:1764400000", -2_000],
      ["refund:stripe:acct_m:live:pi_f2", -1_500],
      ["refund_failed:stripe:acct_m:live:pi_f2:re_f2", 1_500],
    ],
    orders: [
      ["ord_f1", "dispute_lost", 5_000, 5_000],
      ["ord_f2", "paid", 0, 0],
    ],
    disputes: [{ disputeId: "dp_f1", status: "lost" }],
    // The five entries written before the migration: no time was kept for them.
    oldTimes: [5],
  },
};

test("books written before refunds and disputes were kept by their own facts migrate, and new events add only what they add, on the database under test", async () => {
  await withDatabaseMigratedFrom(MIGRATION, OLD_ROWS, async (migrated) => {
    if (migrated.kind === "sqlite") {
      assert.deepEqual(await applyOnOldBooks(sqliteDriver(migrated.database, (work) => work())), EXPECTED);
      return;
    }
    const pool = new Pool({ connectionString: migrated.url, max: 1 });
    try {
      assert.deepEqual(await applyOnOldBooks(postgresDriver(pool)), EXPECTED);
    } finally {
      await pool.end();
    }
  }, { andLater: true });
});
