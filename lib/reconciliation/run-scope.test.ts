import assert from "node:assert/strict";
import { test } from "node:test";
import { configuredScopes } from "@/lib/reconciliation/run-scope";

test("the upload form's scopes are those of the served endpoints, one per provider, account and live/test", () => {
  const env = {
    LAB_WEBHOOK_SECRET: "lab_scope_secret_0001",
    STRIPE_WEBHOOK_SECRET: "whsec_scope_live_0123456789",
    STRIPE_TEST_WEBHOOK_SECRET: "whsec_scope_test_0123456789",
    STRIPE_ACCOUNT_ID: "acct_1Scope",
  };
  assert.deepEqual(configuredScopes(env), [
    { key: "lab:lab:live", provider: "lab", account: "lab", livemode: true, endpoints: ["lab"] },
    { key: "stripe:acct_1Scope:live", provider: "stripe", account: "acct_1Scope", livemode: true, endpoints: ["stripe"] },
    { key: "stripe:acct_1Scope:test", provider: "stripe", account: "acct_1Scope", livemode: false, endpoints: ["stripe-test"] },
  ]);
});

test("no endpoint served, or a configuration the start would refuse: no scope offered", () => {
  assert.deepEqual(configuredScopes({}), []);
  assert.deepEqual(configuredScopes({ LAB_WEBHOOK_SECRET: "short" }), []);
});
