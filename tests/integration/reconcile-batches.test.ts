import "@/e2e/support/test-env";
// A payment-level run reads its report 500 lines per batch and compares its payments 500 per page, on
// the driver's statements: duplicates are found across batches and within one, pages meet at their
// edges without losing or repeating a payment, and the ledger's unlisted credits past the first page
// are found, each exactly once, on both databases; the export reads the mismatches back 1,000 at a
// time, each once.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { closeDb, db } from "@/lib/db/client";
import { allMismatches } from "@/lib/reconciliation/run-report";
import { runReport, stripeReport, type ReportLine } from "@/e2e/support/stripe-reports";

process.env.STRIPE_ACCOUNT_ID = "acct_batches";

const LINES = 1_200;
const n = (i: number) => String(i).padStart(5, "0");

before(async () => {
  // Every report payment but pi_b00007 is credited as settled; 700 more credits the report never lists.
  const database = await db();
  const credited = [...Array.from({ length: LINES }, (_, i) => i).filter((i) => i !== 7), ...Array.from({ length: 700 }, (_, i) => 5_000 + i)];
  await database.order.createMany({ data: credited.map((i) => ({ id: `ord_b${n(i)}`, amount: 1000, currency: "USD", status: "paid" })) });
  await database.ledgerEntry.createMany({
    data: credited.map((i) => ({ businessKey: `credit:stripe:acct_batches:live:pi_b${n(i)}`, orderId: `ord_b${n(i)}`, paymentKey: `pi_b${n(i)}`, kind: "credit", amount: 1000, currency: "USD", provider: "stripe", account: "acct_batches", livemode: true, eventId: `evt_b${n(i)}`, createdAt: new Date("2026-11-29T12:00:05Z") })),
  });
});
after(closeDb);

test("1,200 lines: a duplicate across batches and one within a batch, one missing credit and 700 unlisted credits, each found once", async () => {
  const lines: ReportLine[] = Array.from({ length: LINES }, (_, i) => ({ txn: `txn_b${n(i)}`, at: "2026-11-29 12:00:00", currency: "usd", gross: "10.00", fee: "0.59", category: "charge", paymentIntent: `pi_b${n(i)}`, orderId: `ord_b${n(i)}` }));
  // Report line numbers: the header is line 1, lines[i] is line i + 2.
  lines.push({ ...lines[3] }); // line 1202 repeats line 5 (an earlier batch)
  lines.push({ ...lines[1_150] }); // line 1203 repeats line 1152 (the same, last batch)
  const { outcome, summary, mismatches } = await runReport(await db(), stripeReport(lines));
  assert.deepEqual(outcome, { status: "done", mismatchCount: 703, rowCount: 1_202 });
  const byCode = (code: string) => mismatches.filter((m) => m.code === code);
  assert.deepEqual(
    byCode("duplicate_row").map((m) => [m.paymentId, m.lines]),
    [
      ["pi_b00003", [5, 1202]],
      ["pi_b01150", [1152, 1203]],
    ],
  );
  assert.deepEqual(byCode("missing_credit").map((m) => [m.paymentId, m.line, m.settled, m.booked]), [["pi_b00007", 9, 1000, 0]]);
  const unsettled = byCode("unsettled_credit");
  assert.equal(unsettled.length, 700);
  assert.deepEqual(new Set(unsettled.map((m) => m.paymentId)).size, 700);
  assert.deepEqual([unsettled[0].paymentId, unsettled[699].paymentId], ["pi_b05000", "pi_b05699"]);
  assert.deepEqual(summary.totals.USD, { gross: 1_200_000, fees: 70_800, net: 1_129_200, credited: 1_899_000, refunded: 0, overCredited: 700_000, underCredited: 1_000 });
});

test("the export reads a run's mismatches 1,000 at a time: each once across the page edges, filtered by code too", async () => {
  // 1,100 payments the ledger never booked, and the 1,899 credits of the ledger the report never lists.
  const lines: ReportLine[] = Array.from({ length: 1_100 }, (_, i) => ({ txn: `txn_x${n(i)}`, at: "2026-11-29 12:00:00", currency: "usd", gross: "10.00", fee: "0.59", category: "charge", paymentIntent: `pi_x${n(i)}` }));
  const database = await db();
  const { runId, outcome, mismatches } = await runReport(database, stripeReport(lines));
  assert.deepEqual(outcome, { status: "done", mismatchCount: 2_999, rowCount: 1_100 });
  assert.equal(mismatches.length, 2_999);
  assert.equal(new Set(mismatches.map((m) => `${m.code}:${m.paymentId}`)).size, 2_999);
  const missing: string[] = [];
  for await (const mismatch of allMismatches(database, runId, "missing_credit")) missing.push(mismatch.paymentId);
  assert.deepEqual(missing.sort(), lines.map((line) => line.paymentIntent).sort());
});
