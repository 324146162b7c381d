import assert from "node:assert/strict";
import { test } from "node:test";
import { heldBytesOf, readSettlementCsv, type SettlementRow } from "@/lib/reconciliation/settlement-csv";
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

test("a bound on held bytes refuses the row whose order id takes the rows past it, with its line; each row counts 128 B plus 2 B a character", async () => {
  assert.deepEqual([heldBytesOf("ord_1"), heldBytesOf("x".repeat(255))], [138, 638]);
  // 1 MiB holds 1,643 rows of 255-character ids (1,643 x 638 = 1,048,234 B); the 1,644th, on line 1,645, passes it.
  const ids = Array.from({ length: 2_000 }, (_, i) => `${i}`.padStart(255, "o"));
  const csv = `order_id,provider_status,amount,currency\n${ids.map((id) => `${id},none,0,ARS`).join("\n")}\n`;
  let rows = 0;
  await assert.rejects(
    async () => {
      for await (const _row of readSettlementCsv(csv, { maxHeldBytes: 1_048_576 })) rows += 1;
    },
    (error: unknown) => error instanceof SettlementCsvError && error.message === "line 1645: the order ids to compare take more than 1 MB of the worker's memory: the lab's order-level file is for the lab and small exports; reconcile a larger one with npm run reconcile or a payment-level report",
  );
  assert.equal(rows, 1_643);
  // Short ids: the same bound holds the rows' count many times over.
  let short = 0;
  for await (const _row of readSettlementCsv(`order_id,provider_status,amount,currency\n${Array.from({ length: 2_000 }, (_, i) => `ord_${i},none,0,ARS`).join("\n")}\n`, { maxHeldBytes: 1_048_576 })) short += 1;
  assert.equal(short, 2_000);
});
