import { TEST_DB_FILE } from "../support/test-env";
// Regression: a reconciliation with more orders than SQLite's 999 bound values per statement (Prisma
// splits findMany's IN lists, not groupBy's). Found by the 1,000,000-row benchmark (issue 7).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import Database from "better-sqlite3";
import { closeDb, db } from "@/lib/db/client";
import { reconcile } from "@/lib/reconciliation/reconcile";
import { readSettlementCsv } from "@/lib/reconciliation/settlement-csv";

const ORDERS = 2_500;
const LISTED = 1_300;
const id = (i: number) => `ord_m${String(i).padStart(5, "0")}`;

before(() => {
  // Bulk rows straight into the test database: every even order paid with its credit, odd ones created.
  const database = new Database(TEST_DB_FILE);
  const now = new Date().toISOString().replace("Z", "+00:00");
  const order = database.prepare(`INSERT INTO "Order" (id, amount, currency, status, createdAt, updatedAt) VALUES (?, 1000, 'ARS', ?, ?, ?)`);
  const credit = database.prepare(`INSERT INTO LedgerEntry (id, businessKey, orderId, paymentKey, kind, amount, currency, provider, eventId, createdAt) VALUES (?, ?, ?, ?, 'credit', 1000, 'ARS', 'lab', ?, ?)`);
  database.transaction(() => {
    for (let i = 0; i < ORDERS; i++) {
      order.run(id(i), i % 2 === 0 ? "paid" : "created", now, now);
      if (i % 2 === 0) credit.run(`l${i}`, `credit:pay_m${i}`, id(i), `pay_m${i}`, `evt_m${i}`, now);
    }
  })();
  database.close();
});
after(closeDb);

test("2,500 orders, 1,300 in the settlement: every order is compared and the two planted mismatches are found", async () => {
  const rows = ["order_id,provider_status,amount,currency"];
  for (let i = 0; i < LISTED; i++) rows.push(`${id(i)},${i % 2 === 0 ? "approved" : "none"},${i % 2 === 0 ? 1000 : 0},ARS`);
  // Planted: order 7 (created) is reported approved by the provider.
  rows[1 + 7] = `${id(7)},approved,1000,ARS`;
  const report = await reconcile(await db(), readSettlementCsv(rows.join("\n")), "many-orders");
  assert.deepEqual([report.rowCount, report.orderCount], [LISTED, ORDERS]);
  // The unlisted paid orders (1,300..2,498 even: 600 of them) were credited without the provider saying so.
  assert.equal(report.mismatches.length, 1 + 600);
  assert.deepEqual(report.mismatches[0], {
    orderId: id(7),
    providerStatus: "approved",
    currency: "ARS",
    expectedStatus: "paid",
    foundStatus: "created",
    expectedCredited: 1000,
    foundCredited: 0,
    overcredited: 0,
    reason: "status created, expected paid; credited 0, expected 1000",
  });
  assert.deepEqual(report.overcredited, { ARS: 600 * 1000 });
});
