import "@/e2e/support/test-env";
// Regression: a reconciliation with more orders than SQLite's 999 bound values per statement (Prisma
// splits findMany's IN lists, not groupBy's). Found by the 1,000,000-row benchmark.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { closeDb, db } from "@/lib/db/client";
import { reconcile } from "@/lib/reconciliation/reconcile";
import { readSettlementCsv } from "@/lib/reconciliation/settlement-csv";

const ORDERS = 2_500;
const LISTED = 1_300;
const id = (i: number) => `ord_m${String(i).padStart(5, "0")}`;

before(async () => {
  // Bulk rows straight into the test database: every even order paid with its credit, odd ones created.
  const database = await db();
  await database.order.createMany({ data: Array.from({ length: ORDERS }, (_, i) => ({ id: id(i), amount: 1000, currency: "ARS", status: i % 2 === 0 ? "paid" : "created" })) });
  await database.ledgerEntry.createMany({
    data: Array.from({ length: ORDERS / 2 }, (_, k) => k * 2).map((i) => ({ id: `l${i}`, businessKey: `credit:lab:lab:live:pay_m${i}`, orderId: id(i), paymentKey: `pay_m${i}`, kind: "credit", amount: 1000, currency: "ARS", provider: "lab", account: "lab", livemode: true, eventId: `evt_m${i}` })),
  });
});
after(closeDb);

test("2,500 orders, 1,300 in the settlement: the listed orders and those with lab ledger entries are compared (1,900), and the planted mismatches are found", async () => {
  const rows = ["order_id,provider_status,amount,currency"];
  for (let i = 0; i < LISTED; i++) rows.push(`${id(i)},${i % 2 === 0 ? "approved" : "none"},${i % 2 === 0 ? 1000 : 0},ARS`);
  // Planted: order 7 (created) is reported approved by the provider.
  rows[1 + 7] = `${id(7)},approved,1000,ARS`;
  const report = await reconcile(await db(), readSettlementCsv(rows.join("\n")), "many-orders");
  // Compared: the 1,300 listed and the 600 unlisted paid ones (credited through the lab); the 600 unlisted created ones have no lab entry.
  assert.deepEqual([report.rowCount, report.orderCount], [LISTED, LISTED + 600]);
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
    reasonRef: {
      code: "recon_status",
      params: { found: "created", expected: "paid" },
      then: [{ code: "recon_credited", params: { found: { amount: 0, currency: "ARS" }, expected: { amount: 1000, currency: "ARS" } } }],
    },
  });
  assert.deepEqual(report.overcredited, { ARS: 600 * 1000 });
});
