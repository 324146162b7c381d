import assert from "node:assert/strict";
import { test } from "node:test";
import { readSettlementCsv, type SettlementRow } from "@/lib/reconciliation/settlement-csv";
import { SettlementCsvError } from "@/lib/reconciliation/report-fields";

async function collect(csv: string): Promise<SettlementRow[]> {
  const rows: SettlementRow[] = [];
  for await (const row of readSettlementCsv(csv)) rows.push(row);
  return rows;
}

async function failure(csv: string): Promise<string> {
  try {
    await collect(csv);
  } catch (error) {
    assert.ok(error instanceof SettlementCsvError);
    return error.message;
  }
  assert.fail("expected a SettlementCsvError");
}

test("rows are parsed with their line numbers, currency upper-cased, columns in any order", async () => {
  const rows = await collect("currency,order_id,amount,provider_status\nars,ord_1,2500000,approved\n\nARS,ord_2,0,none\n");
  assert.deepEqual(rows, [
    { line: 2, orderId: "ord_1", providerStatus: "approved", amount: 2500000, currency: "ARS" },
    { line: 4, orderId: "ord_2", providerStatus: "none", amount: 0, currency: "ARS" },
  ]);
});

test("bad rows are reported with their line number", async () => {
  assert.equal(await failure("order_id,provider_status,amount,currency\nord_1,approved,100,ARS\nord_2,paid,100,ARS\n"), 'line 3: provider_status: "paid" must be one of approved, refunded, none');
  assert.equal(await failure("order_id,provider_status,amount,currency\nord_1,approved,12.50,ARS\n"), 'line 2: amount: "12.50" must be a whole number of minor units');
  assert.equal(await failure("order_id,provider_status,amount,currency\nord_1,approved,100,ARS\nord_1,refunded,100,ARS\n"), "line 3: order ord_1 appears twice");
  assert.equal(await failure("order_id,amount,currency\nord_1,100,ARS\n"), "line 1: missing column(s): provider_status");
  assert.match(await failure('order_id,provider_status,amount,currency\nord_1,approved,"100,ARS\n'), /^line \d+: not a valid CSV/);
});

test("an empty file is bad input; a header-only file is a settlement with no rows", async () => {
  assert.equal(await failure(""), "line 1: empty file: expected the header order_id,provider_status,amount,currency");
  assert.equal(await failure("\n\n"), "line 1: empty file: expected the header order_id,provider_status,amount,currency");
  assert.deepEqual(await collect("order_id,provider_status,amount,currency\n"), []);
  assert.equal(await failure("order_id,amount\n"), "line 1: missing column(s): provider_status, currency");
});

test("a cap on rows refuses the row past it, with its line (the worker's cap on uploaded lab files)", async () => {
  const csv = "order_id,provider_status,amount,currency\nord_1,none,0,ARS\nord_2,none,0,ARS\n\nord_3,none,0,ARS\n";
  const rows: string[] = [];
  await assert.rejects(
    async () => {
      for await (const row of readSettlementCsv(csv, { maxRows: 2 })) rows.push(row.orderId);
    },
    (error: unknown) => error instanceof SettlementCsvError && error.message === "line 5: more than 2 rows: the lab's order-level file is for the lab and small exports; reconcile a larger one with npm run reconcile or a payment-level report",
  );
  assert.deepEqual(rows, ["ord_1", "ord_2"]);
  assert.equal((await collect(csv)).length, 3);
});
