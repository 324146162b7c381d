import assert from "node:assert/strict";
import { test } from "node:test";
import { compareOrder, overcreditedByCurrency } from "@/lib/reconciliation/compare";
import { labMismatchCode } from "@/lib/reconciliation/reconcile";

test("an approved order paid and credited in full matches", () => {
  assert.equal(compareOrder("o", { providerStatus: "approved", amount: 100, currency: "ARS" }, { status: "paid", credited: 100, currency: "ARS" }), null);
});

test("a double credit is a mismatch whose over-credit is the excess", () => {
  const mismatch = compareOrder("o", { providerStatus: "approved", amount: 1850000, currency: "ARS" }, { status: "paid", credited: 3700000, currency: "ARS" });
  assert.deepEqual(mismatch, {
    orderId: "o",
    providerStatus: "approved",
    currency: "ARS",
    expectedStatus: "paid",
    foundStatus: "paid",
    expectedCredited: 1850000,
    foundCredited: 3700000,
    overcredited: 1850000,
    reason: "credited 3700000, expected 1850000",
    reasonRef: { code: "recon_credited", params: { found: { amount: 3_700_000, currency: "ARS" }, expected: { amount: 1_850_000, currency: "ARS" } } },
  });
});

test("a refunded order left paid is a mismatch with no over-credit when credited is 0", () => {
  const mismatch = compareOrder("o", { providerStatus: "refunded", amount: 1500000, currency: "ARS" }, { status: "paid", credited: 0, currency: "ARS" });
  assert.deepEqual([mismatch?.overcredited, mismatch?.reason], [0, "status paid, expected refunded"]);
});

test("an order missing from the settlement must be untouched; a missing order only matters if the provider was paid", () => {
  assert.equal(compareOrder("o", null, { status: "created", credited: 0, currency: "ARS" }), null);
  assert.equal(compareOrder("o", null, { status: "paid", credited: 5, currency: "ARS" })?.reason, "not in the settlement; status paid, expected created; credited 5, expected 0");
  assert.equal(compareOrder("o", { providerStatus: "none", amount: 0, currency: "ARS" }, null), null);
  assert.equal(compareOrder("o", { providerStatus: "approved", amount: 9, currency: "ARS" }, null)?.foundStatus, "missing");
});

test("over-credit totals are per currency", () => {
  const a = compareOrder("a", { providerStatus: "none", amount: 0, currency: "ARS" }, { status: "paid", credited: 10, currency: "ARS" })!;
  const b = compareOrder("b", { providerStatus: "none", amount: 0, currency: "USD" }, { status: "paid", credited: 7, currency: "USD" })!;
  const c = compareOrder("c", { providerStatus: "none", amount: 0, currency: "ARS" }, { status: "paid", credited: 5, currency: "ARS" })!;
  assert.deepEqual(overcreditedByCurrency([a, b, c]), { ARS: 15, USD: 7 });
});

test("an order refunded in Acredita that the provider's file leaves out is a refund difference, not an amount one", () => {
  const refunded = compareOrder("ord_r", null, { status: "refunded", credited: 0, currency: "ARS" });
  assert.equal(refunded?.reason, "not in the settlement; status refunded, expected created");
  assert.equal(labMismatchCode(refunded!), "refund_mismatch");
  const paid = compareOrder("ord_p", null, { status: "paid", credited: 1_500_000, currency: "ARS" });
  assert.equal(labMismatchCode(paid!), "unsettled_credit");
});
