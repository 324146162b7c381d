import assert from "node:assert/strict";
import { test } from "node:test";
import { endpointWorthShowing } from "@/lib/decisions/provider-label";

test("the endpoint is shown only when it differs from the provider", () => {
  assert.equal(endpointWorthShowing("lab", "lab"), undefined);
  assert.equal(endpointWorthShowing("stripe", "Stripe"), undefined);
  assert.equal(endpointWorthShowing("stripe", null), undefined);
  assert.equal(endpointWorthShowing("stripe", ""), undefined);
  assert.equal(endpointWorthShowing("stripe", "stripe-live"), "stripe-live");
  assert.equal(endpointWorthShowing("standard", "yolfi-ar"), "yolfi-ar");
});
