import assert from "node:assert/strict";
import { test } from "node:test";
import { currencyExponent, decimalToMinor, isIsoCurrency, MoneyFormatError } from "@/lib/money/minor-units";

test("exponents follow ISO 4217, not Intl's display digits", () => {
  assert.deepEqual(["JPY", "usd", "KWD", "CLF", "IDR", "HUF", "COP", "ISK", "ARS"].map(currencyExponent), [0, 2, 3, 4, 2, 2, 2, 0, 2]);
  assert.throws(() => currencyExponent("ZZZ"), (error: unknown) => error instanceof MoneyFormatError && error.message === "ZZZ is not an ISO 4217 currency");
  assert.deepEqual(["ARS", "XAU", "XXX", "ZZZ", "usd"].map(isIsoCurrency), [true, false, false, false, false]);
});

test("decimal strings in major units become exact minor units", () => {
  assert.equal(decimalToMinor("25.00", "usd"), 2500);
  assert.equal(decimalToMinor("25", "USD"), 2500);
  assert.equal(decimalToMinor("0.1", "USD"), 10);
  assert.equal(decimalToMinor("-12.34", "USD"), -1234);
  assert.equal(decimalToMinor(" 500 ", "JPY"), 500);
  assert.equal(decimalToMinor("1.234", "KWD"), 1234);
  assert.equal(decimalToMinor("25.000", "USD"), 2500);
  // 0.1 + 0.2 style errors cannot happen: 1.15 * 100 is 114.99999999999999 in floating point.
  assert.equal(decimalToMinor("1.15", "USD"), 115);
  assert.equal(decimalToMinor("90071992547409.91", "USD"), 9007199254740991);
});

test("anything but a plain decimal in the currency's precision is bad input", () => {
  for (const [text, currency, message] of [
    ["25,00", "USD", '"25,00" is not a decimal amount like 25.00'],
    ["1,000.00", "USD", '"1,000.00" is not a decimal amount like 25.00'],
    ["1e3", "USD", '"1e3" is not a decimal amount like 25.00'],
    ["", "USD", '"" is not a decimal amount like 25.00'],
    [".5", "USD", '".5" is not a decimal amount like 25.00'],
    ["1.234", "USD", '"1.234" has more decimals than USD has (2)'],
    ["500.5", "JPY", '"500.5" has more decimals than JPY has (0)'],
    ["90071992547409.92", "USD", '"90071992547409.92" is too large'],
    ["1.00", "ZZZ", "ZZZ is not an ISO 4217 currency"],
  ] as const) {
    assert.throws(() => decimalToMinor(text, currency), (error: unknown) => error instanceof MoneyFormatError && error.message === message, text);
  }
});
