import assert from "node:assert/strict";
import { test } from "node:test";
import { parse } from "csv-parse/sync";
import { csvNumber, csvRecord, csvText } from "@/lib/format/csv";

test("a text cell that a spreadsheet would run as a formula starts with ', wherever a cell can start", () => {
  assert.equal(csvText("=HYPERLINK(\"http://x\")"), `"'=HYPERLINK(""http://x"")"`);
  assert.equal(csvText("+1"), "'+1");
  assert.equal(csvText("-2"), "'-2");
  assert.equal(csvText("@SUM(A1)"), "'@SUM(A1)");
  assert.equal(csvText("\tcmd"), "'\tcmd");
  // After a ";" (a list separator in es-AR spreadsheets) or a line break inside the field.
  assert.equal(csvText("ord_1;=cmd"), `"ord_1;'=cmd"`);
  assert.equal(csvText("a\n=b"), `"a\n'=b"`);
  assert.equal(csvText("ord_1041"), "ord_1041");
  assert.equal(csvText("ana@example.com"), "ana@example.com");
  assert.equal(csvText(null), "");
});

test("numbers Acredita computed are written as they are, negative ones too; anything else is refused", () => {
  assert.equal(csvNumber(-1500), "-1500");
  assert.equal(csvNumber("-15.00"), "-15.00");
  assert.equal(csvNumber(null), "");
  assert.throws(() => csvNumber("=1+1"), TypeError);
  assert.throws(() => csvNumber("1e5"), TypeError);
});

test("records parse back with a CSV parser to the same values (quotes, commas, line breaks, UTF-8)", () => {
  const text = csvRecord([csvText("id"), csvText("note")]) + csvRecord([csvText("ord, \"quoted\""), csvText("línea 1\r\nlínea 2")]) + csvRecord([csvText("x"), csvNumber("-0.50")]);
  assert.deepEqual(parse(text), [
    ["id", "note"],
    ['ord, "quoted"', "línea 1\r\nlínea 2"],
    ["x", "-0.50"],
  ]);
});
