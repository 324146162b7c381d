import assert from "node:assert/strict";
import { test } from "node:test";
import { mismatchCsvLine, type MismatchView } from "@/lib/reconciliation/run-report";

const mismatch = (paymentId: string): MismatchView => ({ code: "unsettled_credit", paymentId, orderId: "ord_1", currency: "USD", settled: 0, booked: 100, line: null, lines: [], nextAction: "check" });

test("the export defuses every cell a spreadsheet would run as a formula, a leading tab or CR included", () => {
  assert.equal(mismatchCsvLine(mismatch('\t=HYPERLINK("http://evil.example","click")')), `unsettled_credit,"'\t=HYPERLINK(""http://evil.example"",""click"")",ord_1,USD,0,100,,,check`);
  assert.equal(mismatchCsvLine(mismatch("\r=1+1")), `unsettled_credit,"'\r=1+1",ord_1,USD,0,100,,,check`);
  for (const lead of ["=", "+", "-", "@"]) assert.equal(mismatchCsvLine(mismatch(`${lead}cmd`)).split(",")[1], `'${lead}cmd`);
  assert.equal(mismatchCsvLine(mismatch("pay_1")), "unsettled_credit,pay_1,ord_1,USD,0,100,,,check");
});
