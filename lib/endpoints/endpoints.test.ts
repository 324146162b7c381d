import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { DEMO_ENDPOINT_SECRETS, EndpointConfigError, endpointDefinitions, loadEndpoints, loadSecrets, validateEndpoints, type EndpointDefinition } from "@/lib/endpoints/endpoints";

const standard = endpointDefinitions({}).find((definition) => definition.name === "standard-webhooks")!;

function problems(definitions: EndpointDefinition[], env: Record<string, string | undefined> = {}): string[] {
  try {
    validateEndpoints(definitions, env);
    return [];
  } catch (error) {
    assert.ok(error instanceof EndpointConfigError);
    return error.issues;
  }
}

describe("endpoint configuration", () => {
  test("the shipped endpoints load with their public demo secrets", () => {
    const endpoints = loadEndpoints({});
    assert.deepEqual(
      endpoints.map((endpoint) => [endpoint.name, endpoint.provider, endpoint.account, endpoint.livemode, endpoint.mode, endpoint.secrets.map((secret) => secret.label)]),
      [
        ["lab", "lab", "lab", true, "inline", ["LAB_WEBHOOK_SECRET[0]"]],
        ["stripe", "stripe", "acct_acredita_demo", true, "inbox", ["STRIPE_WEBHOOK_SECRET[0]"]],
        ["stripe-test", "stripe", "acct_acredita_demo", false, "inbox", ["STRIPE_TEST_WEBHOOK_SECRET[0]"]],
        ["yolfi", "yolfi", "org_acredita_demo", true, "inbox", ["YOLFI_WEBHOOK_SECRET[0]"]],
        ["yolfi-test", "yolfi", "org_acredita_demo", false, "inbox", ["YOLFI_TEST_WEBHOOK_SECRET[0]"]],
        ["standard-webhooks", "standard-webhooks", "acredita-demo", true, "inbox", ["STANDARD_WEBHOOKS_SECRET[0]"]],
      ],
    );
    assert.equal(endpoints[1].secrets[0].value, DEMO_ENDPOINT_SECRETS.STRIPE_WEBHOOK_SECRET);
    assert.deepEqual(endpoints[5].secrets.map((secret) => secret.value), [DEMO_ENDPOINT_SECRETS.STANDARD_WEBHOOKS_SECRET]);
  });

  test("WEBHOOK_PROCESSING_MODE=inline switches the providers' endpoints; LAB_PROCESSING_MODE=inbox switches the lab", () => {
    assert.deepEqual(loadEndpoints({ WEBHOOK_PROCESSING_MODE: "inline" }).map((endpoint) => endpoint.mode), ["inline", "inline", "inline", "inline", "inline", "inline"]);
    assert.deepEqual(loadEndpoints({ LAB_PROCESSING_MODE: "inbox" }).map((endpoint) => endpoint.mode), ["inbox", "inbox", "inbox", "inbox", "inbox", "inbox"]);
  });

  test("secrets come from the environment, comma-separated and trimmed; retired ones are labelled apart", () => {
    const stripe = loadEndpoints({ STRIPE_WEBHOOK_SECRET: "  whsec_first_000 ,\twhsec_second_00\n", STRIPE_WEBHOOK_RETIRED_SECRETS: "whsec_old_00000" }).find((endpoint) => endpoint.name === "stripe")!;
    assert.deepEqual(stripe.secrets, [{ label: "STRIPE_WEBHOOK_SECRET[0]", value: "whsec_first_000" }, { label: "STRIPE_WEBHOOK_SECRET[1]", value: "whsec_second_00" }]);
    assert.deepEqual(stripe.retiredSecrets, [{ label: "STRIPE_WEBHOOK_RETIRED_SECRETS[0]", value: "whsec_old_00000" }]);
    assert.deepEqual(loadSecrets("X", " a ,, b "), [{ label: "X[0]", value: "a" }, { label: "X[1]", value: "b" }]);
  });

  test("YOLFI_ORG_ID binds both Yolfi endpoints to the merchant's organisation", () => {
    const yolfi = loadEndpoints({ YOLFI_ORG_ID: " org_42 " }).filter((endpoint) => endpoint.provider === "yolfi");
    assert.deepEqual(yolfi.map((endpoint) => endpoint.account), ["org_42", "org_42"]);
  });

  test("the Standard Webhooks mapping is parsed into JSON path steps at load time", () => {
    const endpoint = loadEndpoints({}).find((candidate) => candidate.name === "standard-webhooks")!;
    const options = endpoint.options as { fields: { orderId: { path: string; steps: string[] } } };
    assert.deepEqual(options.fields.orderId, { path: "$.data.order_id", steps: ["data", "order_id"] });
  });

  test("a bad mapping, a bad secret or a short secret is refused with the endpoint and variable named, never the value", () => {
    const badMapping: EndpointDefinition = { ...standard, name: "sw-bad", options: { fields: { type: "$.type", orderId: "data.order_id", paymentId: "$..id" }, eventTypes: { payment: ["a"], refund: ["a"] } } };
    assert.deepEqual(problems([badMapping]), [
      'endpoint sw-bad: options.fields.orderId: "data.order_id" is not a JSON path like $.data.order_id',
      'endpoint sw-bad: options.fields.paymentId: "$..id" is not a JSON path like $.data.order_id',
    ]);
    const overlapping: EndpointDefinition = { ...standard, name: "sw-overlap", options: { fields: { type: "$.type", orderId: "$.o", paymentId: "$.p", amount: "$.a" }, eventTypes: { payment: ["a"], refund: ["a"] } } };
    assert.deepEqual(problems([overlapping]), ["endpoint sw-overlap: options.eventTypes.refund: type a is also listed under payment", "endpoint sw-overlap: options.fields: amount and currency are mapped together or not at all"]);
    assert.deepEqual(problems([standard], { STANDARD_WEBHOOKS_SECRET: "whsec_%%%not-base64%%%" }), ["endpoint standard-webhooks: STANDARD_WEBHOOKS_SECRET[0] must be whsec_ followed by base64"]);
    const stripe = endpointDefinitions({}).find((definition) => definition.name === "stripe")!;
    assert.deepEqual(problems([stripe], { STRIPE_WEBHOOK_SECRET: "short" }), ["endpoint stripe: STRIPE_WEBHOOK_SECRET[0] needs at least 8 characters"]);
    assert.deepEqual(problems([stripe, stripe]), ["endpoint stripe: defined twice"]);
    assert.deepEqual(problems([{ ...stripe, name: "Bad Name", secretsEnv: "lower" }]), [
      "endpoint Bad Name: name: must be lower-case letters, digits and dashes (it is a URL segment)",
      "endpoint Bad Name: secretsEnv: must be an environment variable name (A-Z, 0-9, _)",
    ]);
  });

  test("an endpoint without a demo secret and without its variable is refused", () => {
    const stripe = endpointDefinitions({}).find((definition) => definition.name === "stripe")!;
    assert.deepEqual(problems([{ ...stripe, demoSecrets: undefined }], { STRIPE_WEBHOOK_SECRET: " , " }), ["endpoint stripe: STRIPE_WEBHOOK_SECRET must hold at least one secret"]);
  });
});
