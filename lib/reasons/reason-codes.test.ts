import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createTranslator } from "next-intl";
import en from "@/lib/i18n/messages/en.json";
import esAR from "@/lib/i18n/messages/es-AR.json";
import { because, followedBy, readStoredReason, reasonColumns, reasonRef, REASON_CODES, REASONS, type ParamKind, type ReasonRef } from "@/lib/reasons/reason-codes";
import { describeReason, renderReason, type ReasonTranslator } from "@/lib/reasons/render-reason";

const nbsp = (text: string) => text.replace(/[\u00a0\u202f]/g, " ");
const translator = (locale: "en" | "es-AR") => createTranslator({ locale, messages: locale === "en" ? en : esAR }) as unknown as ReasonTranslator;

describe("reason codes", () => {
  test("every code has an English and an es-AR message, and each message names only the code's parameters", () => {
    for (const messages of [en, esAR]) {
      const catalogue = messages.reasons.code as Record<string, string>;
      assert.deepEqual(Object.keys(catalogue).sort(), [...REASON_CODES].sort());
      for (const code of REASON_CODES) {
        const names = new Set(Object.keys(REASONS[code].params));
        // Derived by renderReason for a code with both statuses of a transition.
        if (names.has("from") && names.has("to")) names.add("sameStatus");
        for (const [, name] of catalogue[code].matchAll(/\{(\w+)[,}]/g)) assert.ok(names.has(name), `${code} names {${name}}`);
      }
    }
  });

  test("the English sentence is the one written before codes, amounts in minor units; the page's is formatted", () => {
    const credited = because("credited", { amount: { amount: 1_500_000, currency: "ARS" }, orderId: "ord_1", from: "created", to: "paid" });
    assert.equal(credited.reason, "credited 1500000 ARS; order ord_1 created -> paid");
    assert.equal(nbsp(renderReason(credited.reasonRef, translator("es-AR"), "es-AR")), "se acreditaron $ 15.000,00; orden ord_1: creada → pagada");
    assert.equal(nbsp(renderReason(credited.reasonRef, translator("en"), "en")), "credited ARS 15,000.00; order ord_1 created → paid");
    const refunded = because("refunded", { amount: { amount: 1_000, currency: "USD" }, total: { amount: 1_000, currency: "USD" }, orderId: "ord_2", from: "paid", to: "refunded" });
    assert.equal(nbsp(renderReason(refunded.reasonRef, translator("es-AR"), "es-AR")), "se reembolsaron US$ 10,00 (total US$ 10,00); orden ord_2: pagada → reembolsada");
    assert.equal(renderReason(refunded.reasonRef, translator("en"), "en"), "refunded $10.00 (total $10.00); order ord_2 paid → refunded");
  });

  test("a partial refund says the order stays paid and what was refunded, never 'paid → paid', in both languages", () => {
    const partial = because("refunded", { amount: { amount: 500, currency: "USD" }, total: { amount: 700, currency: "USD" }, orderId: "ord_3", from: "paid", to: "paid" });
    assert.equal(renderReason(partial.reasonRef, translator("en"), "en"), "partially refunded $5.00 (refunded in total $7.00); order ord_3 stays paid");
    assert.equal(nbsp(renderReason(partial.reasonRef, translator("es-AR"), "es-AR")), "reembolso parcial de US$ 5,00 (reembolsado en total: US$ 7,00); la orden ord_3 sigue pagada");
    const books = because("order_books", { orderId: "ord_3", from: "paid", to: "paid", refunded: { amount: 700, currency: "USD" }, disputed: { amount: 0, currency: "USD" } });
    assert.equal(renderReason(books.reasonRef, translator("en"), "en"), "order ord_3 stays paid (refunded $7.00, disputed $0.00)");
  });

  test("a follow-up and a nested cause render in the reader's language; the stored columns read back the same reason", () => {
    const resolved = followedBy(because("credited", { amount: { amount: 2_500, currency: "JPY" }, orderId: "o", from: "created", to: "paid" }), reasonRef("dead_letter_resolved", {}));
    assert.equal(resolved.reason, "credited 2500 JPY; order o created -> paid; dead letter resolved");
    const retry = because("retry_scheduled", { attempt: 2, category: "transition", cause: reasonRef("no_transition", { from: "created", trigger: "payment.refunded", orderId: "o" }), seconds: 1_800 });
    assert.equal(retry.reason, "attempt 2 failed (transition): no transition from created on payment.refunded for order o; next attempt in 1800 s");
    assert.equal(renderReason(retry.reasonRef, translator("es-AR"), "es-AR"), "falló el intento 2 (falta una transición): la orden o no puede pasar de creada con payment.refunded; el próximo intento es en 1.800 s");
    for (const ref of [resolved.reasonRef, retry.reasonRef]) {
      const { reasonCode, reasonParams } = reasonColumns(ref);
      assert.deepEqual(readStoredReason(reasonCode, reasonParams), ref);
    }
    assert.equal(nbsp(describeReason({ reason: resolved.reason, ...reasonColumns(resolved.reasonRef) }, translator("es-AR"), "es-AR")), "se acreditaron JPY 2.500; orden o: creada → pagada; evento retenido resuelto");
  });

  test("a row without a code, with an unknown code or with parameters that do not fit shows its stored sentence", () => {
    const t = translator("es-AR");
    assert.equal(describeReason({ reason: "credited 1500000 ARS; order o created -> paid", reasonCode: null, reasonParams: null }, t, "es-AR"), "credited 1500000 ARS; order o created -> paid");
    assert.equal(describeReason({ reason: "old", reasonCode: "from_a_newer_version", reasonParams: "{}" }, t, "es-AR"), "old");
    assert.equal(describeReason({ reason: "old", reasonCode: "credited", reasonParams: '{"amount":"1500000","orderId":"o","from":"a","to":"b"}' }, t, "es-AR"), "old");
    assert.equal(describeReason({ reason: "old", reasonCode: "credited", reasonParams: "not json" }, t, "es-AR"), "old");
    assert.equal(readStoredReason("credited", '[1,2]'), undefined);
  });

  test("every code renders in both languages with sample parameters, never as a bare key", () => {
    const sample: Record<ParamKind, unknown> = { money: { amount: 12_345, currency: "ARS" }, id: "x_1", text: "t", type: "payment.approved", status: "paid", category: "transition", mode: "live", outcome: "applied", what: "dispute", phase: "won", variant: "trailing_tab", role: "support", csvProblem: "CSV_QUOTE_NOT_CLOSED", zxcvbnTips: "warnings.common suggestions.anotherWord", format: "payments", time: "2026-11-01T20:31:17.039Z", number: 3, seconds: 60, cause: "boom" };
    for (const locale of ["en", "es-AR"] as const) {
      const t = translator(locale);
      for (const code of REASON_CODES) {
        const params = Object.fromEntries(Object.entries(REASONS[code].params as Record<string, ParamKind>).map(([name, kind]) => [name, sample[kind]]));
        const shown = renderReason({ code, params } as ReasonRef, t, locale);
        assert.ok(!shown.includes("reasons.code"), `${locale} ${code}: ${shown}`);
        assert.ok(!/\b12345\b/.test(shown), `${locale} ${code} shows minor units: ${shown}`);
      }
    }
  });
});
