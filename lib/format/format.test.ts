import assert from "node:assert/strict";
import { test } from "node:test";
import { currencyDigits, formatAge, formatCount, formatDateTime, formatMoney, formatSignedMoney } from "@/lib/format/format";

const NBSP = "\u00a0";

test("minor units are formatted per currency and locale: 2500000 ARS is $ 25.000,00 in es-AR", () => {
  assert.equal(formatMoney(2_500_000, "ARS", "es-AR"), `$${NBSP}25.000,00`);
  assert.equal(formatMoney(2_500_000, "ARS", "en"), `ARS${NBSP}25,000.00`);
  assert.equal(formatMoney(1_500, "JPY", "en"), `¥1,500`);
  assert.equal(formatMoney(1_234, "BHD", "en"), `BHD${NBSP}1.234`);
  assert.equal(formatMoney(0, "USD", "en"), "$0.00");
  assert.equal(formatMoney(5, "USD", "es-AR"), `US$${NBSP}0,05`);
});

test("currency digits come from Intl (ARS 2, JPY 0, BHD 3); an unknown code falls back to 2", () => {
  assert.equal(currencyDigits("ARS"), 2);
  assert.equal(currencyDigits("JPY"), 0);
  assert.equal(currencyDigits("BHD"), 3);
  assert.equal(currencyDigits("ZZZ"), 2);
  assert.equal(formatMoney(1_000, "Z1", "en"), "10.00 Z1");
});

test("signed amounts carry + or − and zero has no sign", () => {
  assert.equal(formatSignedMoney(150, "USD", "en"), "+$1.50");
  assert.equal(formatSignedMoney(-150, "USD", "en"), "−$1.50");
  assert.equal(formatSignedMoney(0, "USD", "en"), "$0.00");
});

test("dates are shown in UTC with the locale's words", () => {
  const at = new Date("2026-11-29T14:03:05.000Z");
  assert.equal(formatDateTime(at, "en"), "Nov 29, 2026, 14:03:05 UTC");
  assert.equal(formatDateTime(at, "es-AR"), "29 de nov de 2026, 14:03:05 UTC");
});

test("ages use the largest one or two units; counts use the locale's grouping", () => {
  assert.equal(formatAge(45, "en"), "45 sec");
  assert.equal(formatAge(11_520, "es-AR"), "3 h 12 min");
  assert.equal(formatAge(3_600, "en"), "1 hr");
  assert.equal(formatAge(200_000, "en"), "2 days 7 hr");
  assert.equal(formatCount(100_000, "es-AR"), "100.000");
  assert.equal(formatCount(100_000, "en"), "100,000");
});
