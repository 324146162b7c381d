import assert from "node:assert/strict";
import { test } from "node:test";
import { cliLocale, cliReasons, withoutLocaleFlag } from "@/lib/reasons/cli-reasons";

test("the CLI's locale: --locale wins, else LC_ALL, LC_MESSAGES, LANG (any Spanish is es-AR), else English", () => {
  assert.equal(cliLocale(["x.csv", "--locale", "es-AR"], { LANG: "en_US.UTF-8" }), "es-AR");
  assert.equal(cliLocale(["--locale", "en"], { LANG: "es_AR.UTF-8" }), "en");
  assert.deepEqual(cliLocale(["--locale", "fr"], {}), { error: "--locale must be en or es-AR (got fr)" });
  assert.deepEqual(cliLocale(["--locale"], {}), { error: "--locale must be en or es-AR (got nothing)" });
  assert.equal(cliLocale([], { LANG: "es_AR.UTF-8" }), "es-AR");
  assert.equal(cliLocale([], { LANG: "es" }), "es-AR");
  assert.equal(cliLocale([], { LC_ALL: "C.UTF-8", LANG: "es_AR.UTF-8" }), "en");
  assert.equal(cliLocale([], { LC_ALL: "", LC_MESSAGES: "es_ES.UTF-8" }), "es-AR");
  assert.equal(cliLocale([], { LANG: "C.UTF-8" }), "en");
  assert.equal(cliLocale([], { LANG: "estonian-ish" }), "en");
  assert.equal(cliLocale([], {}), "en");
  assert.deepEqual(withoutLocaleFlag(["list", "--locale", "es-AR", "--json"]), ["list", "--json"]);
});

test("CLI money is formatted by currency with plain spaces, in both languages", () => {
  assert.equal(cliReasons("en").money(2_050_000, "ARS"), "ARS 20,500.00");
  assert.equal(cliReasons("es-AR").money(2_050_000, "ARS"), "$ 20.500,00");
  assert.equal(cliReasons("en").money(1_000, "USD"), "$10.00");
  assert.equal(cliReasons("es-AR").money(500, "JPY"), "JPY 500");
});
