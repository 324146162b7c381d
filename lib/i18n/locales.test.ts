import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { negotiateLocale, resolveLocale } from "@/lib/i18n/locales";

test("Accept-Language picks es-AR for any Spanish and en for any English, by weight", () => {
  assert.equal(negotiateLocale("es-AR,es;q=0.9,en;q=0.8"), "es-AR");
  assert.equal(negotiateLocale("es-ES"), "es-AR");
  assert.equal(negotiateLocale("es"), "es-AR");
  assert.equal(negotiateLocale("en-US,en;q=0.9"), "en");
  assert.equal(negotiateLocale("en;q=0.5,es;q=0.8"), "es-AR");
  assert.equal(negotiateLocale("fr-FR,de;q=0.9"), "en");
  assert.equal(negotiateLocale("fr-FR,es;q=0.1"), "es-AR");
  assert.equal(negotiateLocale("es;q=0,en"), "en");
  assert.equal(negotiateLocale(""), "en");
  assert.equal(negotiateLocale(null), "en");
});

test("the switch's cookie wins over Accept-Language; an unknown cookie value is ignored", () => {
  assert.equal(resolveLocale("en", "es-AR"), "en");
  assert.equal(resolveLocale("es-AR", "en-US"), "es-AR");
  assert.equal(resolveLocale("xx", "es-AR"), "es-AR");
  assert.equal(resolveLocale(undefined, "en"), "en");
});

function keys(value: unknown, prefix = ""): string[] {
  return Object.entries(value as Record<string, unknown>).flatMap(([key, child]) => (typeof child === "object" && child !== null ? keys(child, `${prefix}${key}.`) : [`${prefix}${key}`]));
}

test("English and Spanish messages have exactly the same keys, none empty", () => {
  const read = (name: string) => JSON.parse(readFileSync(path.join("lib", "i18n", "messages", name), "utf8")) as Record<string, unknown>;
  const en = read("en.json");
  const es = read("es-AR.json");
  assert.deepEqual(keys(es).sort(), keys(en).sort());
  assert.ok(keys(en).length > 200, `expected a full catalogue, got ${keys(en).length} keys`);
  const empty = (catalogue: Record<string, unknown>) => keys(catalogue).filter((key) => key.split(".").reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], catalogue) === "");
  assert.deepEqual(empty(en), []);
  assert.deepEqual(empty(es), []);
});
