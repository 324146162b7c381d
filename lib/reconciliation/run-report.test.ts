import assert from "node:assert/strict";
import { test } from "node:test";
import { mismatchCsvLine, type MismatchView } from "@/lib/reconciliation/run-report";

const mismatch = (paymentId: string, over: Partial<MismatchView> = {}): MismatchView => ({ code: "unsettled_credit", paymentId, orderId: "ord_1", currency: "USD", settled: 0, booked: 100, line: null, lines: [], nextAction: "check", ...over });

test("the export defuses every cell a spreadsheet would run as a formula, a leading tab or CR included", () => {
  assert.equal(mismatchCsvLine(mismatch('\t=HYPERLINK("http://evil.example","click")')), `unsettled_credit,"'\t'=HYPERLINK(""http://evil.example"",""click"")",ord_1,USD,0,100,,,check`);
  assert.equal(mismatchCsvLine(mismatch("\r=1+1")), `unsettled_credit,"'\r'=1+1",ord_1,USD,0,100,,,check`);
  for (const lead of ["=", "+", "-", "@"]) assert.equal(mismatchCsvLine(mismatch(`${lead}cmd`)).split(",")[1], `'${lead}cmd`);
  assert.equal(mismatchCsvLine(mismatch("pay_1")), "unsettled_credit,pay_1,ord_1,USD,0,100,,,check");
});

test("a formula after a ';' inside a field is defused too: spreadsheets with ';' as list separator split there", () => {
  assert.equal(mismatchCsvLine(mismatch("x;=1+1", { orderId: "ord_x;+2+2" })), `unsettled_credit,"x;'=1+1","ord_x;'+2+2",USD,0,100,,,check`);
  assert.equal(mismatchCsvLine(mismatch("y;=cmd|' /C calc'!A0")).split(",")[1], `"y;'=cmd|' /C calc'!A0"`);
  assert.equal(mismatchCsvLine(mismatch("a,@SUM(1)")).split('"')[1], "a,'@SUM(1)");
});

test("amounts are numbers: a negative amount is written as one, never prefixed", () => {
  assert.equal(mismatchCsvLine(mismatch("pay_2", { settled: -5_000, booked: 0, line: 7 })), "unsettled_credit,pay_2,ord_1,USD,-5000,0,7,,check");
});
