import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { providers } from "@/lib/providers/registry";
import { DEMO_ENDPOINT_SECRETS, EndpointConfigError, endpointDefinitions, loadEndpoints, loadSecrets, resolveEndpoint, validateEndpoints, type EndpointDefinition } from "@/lib/endpoints/endpoints";

const DEMO = { ACREDITA_MODE: "demo" } as const;
/** The operator's own accounts: production serves a provider endpoint only with its account variable set. */
const ACCOUNTS = { STRIPE_ACCOUNT_ID: "acct_operator_1", YOLFI_ORG_ID: "org_operator_1", STANDARD_WEBHOOKS_ACCOUNT: "operator-shop" } as const;
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
  test("in demo mode the shipped endpoints load with their public demo secrets", () => {
    const { endpoints, disabled } = loadEndpoints(DEMO);
    assert.deepEqual(disabled, []);
    assert.deepEqual(
      endpoints.map((endpoint) => [endpoint.name, endpoint.provider, endpoint.account, endpoint.livemode, endpoint.mode, endpoint.secrets.map((secret) => secret.label)]),
      [
        ["lab", "lab", "lab", true, "inline", ["LAB_WEBHOOK_SECRET[demo]"]],
        ["stripe", "stripe", "acct_acredita_demo", true, "inbox", ["STRIPE_WEBHOOK_SECRET[demo]"]],
        ["stripe-test", "stripe", "acct_acredita_demo", false, "inbox", ["STRIPE_TEST_WEBHOOK_SECRET[demo]"]],
        ["yolfi", "yolfi", "org_acredita_demo", true, "inbox", ["YOLFI_WEBHOOK_SECRET[demo]"]],
        ["yolfi-test", "yolfi", "org_acredita_demo", false, "inbox", ["YOLFI_TEST_WEBHOOK_SECRET[demo]"]],
        ["standard-webhooks", "standard-webhooks", "acredita-demo", true, "inbox", ["STANDARD_WEBHOOKS_SECRET[demo]"]],
      ],
    );
    assert.equal(endpoints[1].secrets[0].value, DEMO_ENDPOINT_SECRETS.STRIPE_WEBHOOK_SECRET);
    assert.deepEqual(endpoints[5].secrets.map((secret) => secret.value), [DEMO_ENDPOINT_SECRETS.STANDARD_WEBHOOKS_SECRET]);
  });

  test("WEBHOOK_PROCESSING_MODE=inline switches the providers' endpoints; LAB_PROCESSING_MODE=inbox switches the lab", () => {
    assert.deepEqual(loadEndpoints({ ...DEMO, WEBHOOK_PROCESSING_MODE: "inline" }).endpoints.map((endpoint) => endpoint.mode), ["inline", "inline", "inline", "inline", "inline", "inline"]);
    assert.deepEqual(loadEndpoints({ ...DEMO, LAB_PROCESSING_MODE: "inbox" }).endpoints.map((endpoint) => endpoint.mode), ["inbox", "inbox", "inbox", "inbox", "inbox", "inbox"]);
  });

  test("secrets come from the environment, comma-separated and trimmed; retired ones are labelled apart", () => {
    const stripe = loadEndpoints({ ...ACCOUNTS, STRIPE_WEBHOOK_SECRET: "  whsec_first_000 ,\twhsec_second_00\n", STRIPE_WEBHOOK_RETIRED_SECRETS: "whsec_old_00000" }).endpoints.find((endpoint) => endpoint.name === "stripe")!;
    assert.deepEqual(stripe.secrets, [{ label: "STRIPE_WEBHOOK_SECRET[0]", value: "whsec_first_000" }, { label: "STRIPE_WEBHOOK_SECRET[1]", value: "whsec_second_00" }]);
    assert.deepEqual(stripe.retiredSecrets, [{ label: "STRIPE_WEBHOOK_RETIRED_SECRETS[0]", value: "whsec_old_00000" }]);
    assert.deepEqual(loadSecrets("X", " a ,, b "), [{ label: "X[0]", value: "a" }, { label: "X[1]", value: "b" }]);
  });

  test("YOLFI_ORG_ID binds both Yolfi endpoints to the merchant's organisation", () => {
    const yolfi = loadEndpoints({ ...DEMO, YOLFI_ORG_ID: " org_42 " }).endpoints.filter((endpoint) => endpoint.provider === "yolfi");
    assert.deepEqual(yolfi.map((endpoint) => endpoint.account), ["org_42", "org_42"]);
  });

  test("the Standard Webhooks mapping is parsed into JSON path steps at load time", () => {
    const endpoint = loadEndpoints(DEMO).endpoints.find((candidate) => candidate.name === "standard-webhooks")!;
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
    assert.deepEqual(problems([standard], { ...ACCOUNTS, STANDARD_WEBHOOKS_SECRET: "whsec_%%%not-base64%%%" }), ["endpoint standard-webhooks: STANDARD_WEBHOOKS_SECRET[0] must be whsec_ followed by base64"]);
    const stripe = endpointDefinitions({}).find((definition) => definition.name === "stripe")!;
    assert.deepEqual(problems([stripe], { ...ACCOUNTS, STRIPE_WEBHOOK_SECRET: "short" }), ["endpoint stripe: STRIPE_WEBHOOK_SECRET[0] needs at least 8 characters"]);
    assert.deepEqual(problems([stripe, stripe]), ["endpoint stripe: defined twice"]);
    assert.deepEqual(problems([{ ...stripe, name: "Bad Name", secretsEnv: "lower" }]), [
      "endpoint Bad Name: name: must be lower-case letters, digits and dashes (it is a URL segment)",
      "endpoint Bad Name: secretsEnv: must be an environment variable name (A-Z, 0-9, _)",
    ]);
  });

  test("a secrets variable that holds only separators is refused", () => {
    const stripe = endpointDefinitions({}).find((definition) => definition.name === "stripe")!;
    assert.deepEqual(problems([stripe], { ...ACCOUNTS, STRIPE_WEBHOOK_SECRET: " , " }), ["endpoint stripe: STRIPE_WEBHOOK_SECRET must hold at least one secret"]);
  });

  test("in production an endpoint exists only when its secrets variable is set, and the lab only with LAB_WEBHOOK_SECRET", () => {
    const none = loadEndpoints({});
    assert.deepEqual(none.endpoints, []);
    assert.deepEqual(
      none.disabled.map(({ definition, reason }) => [definition.name, reason]),
      [
        ["lab", "disabled: LAB_WEBHOOK_SECRET is not set"],
        ["stripe", "disabled: STRIPE_WEBHOOK_SECRET is not set"],
        ["stripe-test", "disabled: STRIPE_TEST_WEBHOOK_SECRET is not set"],
        ["yolfi", "disabled: YOLFI_WEBHOOK_SECRET is not set"],
        ["yolfi-test", "disabled: YOLFI_TEST_WEBHOOK_SECRET is not set"],
        ["standard-webhooks", "disabled: STANDARD_WEBHOOKS_SECRET is not set"],
      ],
    );
    const some = loadEndpoints({ ...ACCOUNTS, STRIPE_WEBHOOK_SECRET: "whsec_operator_own_0001" });
    assert.deepEqual(some.endpoints.map((endpoint) => [endpoint.name, endpoint.secrets.map((secret) => secret.label)]), [["stripe", ["STRIPE_WEBHOOK_SECRET[0]"]]]);
    assert.equal(resolveEndpoint("stripe-test", {}), undefined);
    assert.equal(resolveEndpoint("lab", {}), undefined);
    assert.equal(resolveEndpoint("lab", { LAB_WEBHOOK_SECRET: "lab_operator_own_0001" })?.secrets[0].label, "LAB_WEBHOOK_SECRET[0]");
  });

  test("a resolved endpoint is loaded once per configuration: the same values give the same object, a changed secret, mode or tolerance a new one", () => {
    const env = { LAB_WEBHOOK_SECRET: "lab_operator_own_0001" };
    const first = resolveEndpoint("lab", env);
    assert.equal(resolveEndpoint("lab", { ...env }), first);
    const rotated = resolveEndpoint("lab", { LAB_WEBHOOK_SECRET: "lab_operator_own_0002,lab_operator_own_0001" });
    assert.deepEqual(rotated?.secrets.map((secret) => secret.value), ["lab_operator_own_0002", "lab_operator_own_0001"]);
    assert.deepEqual(resolveEndpoint("lab", { ...env, LAB_WEBHOOK_RETIRED_SECRETS: "lab_operator_old_0000" })?.retiredSecrets.map((secret) => secret.value), ["lab_operator_old_0000"]);
    assert.equal(resolveEndpoint("lab", { ...env, WEBHOOK_TOLERANCE_SECONDS: "60" })?.toleranceSeconds, 60);
    assert.equal(resolveEndpoint("lab", { ...env, LAB_PROCESSING_MODE: "inbox" })?.mode, "inbox");
    assert.equal(resolveEndpoint("lab", env)?.mode, "inline");
    // A refusal is kept too, and thrown each time.
    assert.throws(() => resolveEndpoint("lab", { LAB_WEBHOOK_SECRET: "short" }), EndpointConfigError);
    assert.throws(() => resolveEndpoint("lab", { LAB_WEBHOOK_SECRET: "short" }), EndpointConfigError);
  });

  test("in production a public demo secret is refused, whichever variable holds it, naming the endpoint and never the value", () => {
    for (const [variable, value] of [["STRIPE_WEBHOOK_SECRET", DEMO_ENDPOINT_SECRETS.STRIPE_WEBHOOK_SECRET], ["YOLFI_WEBHOOK_SECRET", `yolfi_own_secret_0001,${DEMO_ENDPOINT_SECRETS.YOLFI_TEST_WEBHOOK_SECRET}`], ["LAB_WEBHOOK_SECRET", DEMO_ENDPOINT_SECRETS.LAB_WEBHOOK_SECRET]] as const) {
      const issues = problems(endpointDefinitions({}), { [variable]: value });
      assert.equal(issues.length, 1, variable);
      assert.match(issues[0], new RegExp(`^endpoint [a-z-]+: ${variable} holds a public demo value`));
      assert.ok(!issues[0].includes(value));
    }
  });

  test("a Standard Webhooks endpoint must map the payment's amount unless its options say amount: \"not-sent\"", () => {
    const env = { ...ACCOUNTS, STANDARD_WEBHOOKS_SECRET: `whsec_${Buffer.from("options-test-key-0001").toString("base64")}` };
    const fields = { type: "$.type", orderId: "$.data.order_id", paymentId: "$.data.payment_id" };
    const eventTypes = { payment: ["payment.succeeded"], refund: ["payment.refunded"] };
    assert.deepEqual(problems([{ ...standard, name: "sw-silent", options: { fields, eventTypes } }], env), ['endpoint sw-silent: options.fields.amount: map the payment\'s amount and currency, or set amount: "not-sent" when the sender never sends one']);
    assert.deepEqual(problems([{ ...standard, name: "sw-both", options: { fields: { ...fields, amount: "$.a", currency: "$.c" }, eventTypes, amount: "not-sent" } }], env), ['endpoint sw-both: options.amount: "not-sent" contradicts the mapped fields.amount']);
    const { endpoints } = validateEndpoints([{ ...standard, name: "sw-not-sent", options: { fields, eventTypes, amount: "not-sent" } }], env);
    const body = Buffer.from(JSON.stringify({ type: "payment.succeeded", data: { order_id: "ord_1", payment_id: "pay_1" } }));
    const parsed = providers["standard-webhooks"].parse({ headers: new Headers({ "webhook-id": "msg_1" }), body, now: new Date() }, endpoints[0].options, { name: "sw-not-sent", account: "acredita-demo", livemode: true });
    assert.deepEqual(parsed.ok && parsed.event.effect, { kind: "payment", paymentKey: "pay_1", orderRef: { orderId: "ord_1" }, amount: null, currency: null });
  });

  test("an account with a colon is refused: it would blur the ledger's business keys", () => {
    const stripe = endpointDefinitions({}).find((definition) => definition.name === "stripe")!;
    assert.deepEqual(problems([{ ...stripe, account: "acct:1" }], { STRIPE_WEBHOOK_SECRET: "whsec_operator_own_0001" }), ["endpoint stripe: account: must not contain a colon or whitespace"]);
  });

  test("in production a served endpoint's account variable must be set and not a demo account name, named in the issue; demo mode keeps the demo accounts", () => {
    const secrets = { STRIPE_WEBHOOK_SECRET: "whsec_operator_own_0001", STRIPE_TEST_WEBHOOK_SECRET: "whsec_operator_test_0001", YOLFI_WEBHOOK_SECRET: "yolfi_operator_own_0001", STANDARD_WEBHOOKS_SECRET: `whsec_${Buffer.from("operator-own-key-0001").toString("base64")}` };
    assert.deepEqual(problems(endpointDefinitions(secrets), secrets), [
      "endpoint stripe: STRIPE_ACCOUNT_ID is not set; set the provider account this endpoint is bound to (required in production when STRIPE_WEBHOOK_SECRET is set)",
      "endpoint stripe-test: STRIPE_ACCOUNT_ID is not set; set the provider account this endpoint is bound to (required in production when STRIPE_TEST_WEBHOOK_SECRET is set)",
      "endpoint yolfi: YOLFI_ORG_ID is not set; set the provider account this endpoint is bound to (required in production when YOLFI_WEBHOOK_SECRET is set)",
      "endpoint standard-webhooks: STANDARD_WEBHOOKS_ACCOUNT is not set; set the provider account this endpoint is bound to (required in production when STANDARD_WEBHOOKS_SECRET is set)",
    ]);
    // A demo account name, any of the three in any variable, is refused like an unset one; the value is not echoed.
    const demoNamed = { ...secrets, STRIPE_ACCOUNT_ID: " acct_acredita_demo ", YOLFI_ORG_ID: "acredita-demo", STANDARD_WEBHOOKS_ACCOUNT: "org_acredita_demo" };
    const issues = problems(endpointDefinitions(demoNamed), demoNamed);
    assert.deepEqual(issues, [
      "endpoint stripe: STRIPE_ACCOUNT_ID holds a demo account name; set your own provider account",
      "endpoint stripe-test: STRIPE_ACCOUNT_ID holds a demo account name; set your own provider account",
      "endpoint yolfi: YOLFI_ORG_ID holds a demo account name; set your own provider account",
      "endpoint standard-webhooks: STANDARD_WEBHOOKS_ACCOUNT holds a demo account name; set your own provider account",
    ]);
    assert.throws(() => resolveEndpoint("stripe", secrets), EndpointConfigError);
    // Set: served with the operator's accounts. Endpoints whose secrets are unset need no account (they are not served).
    const served = loadEndpoints({ ...secrets, ...ACCOUNTS }).endpoints.map((endpoint) => [endpoint.name, endpoint.account]);
    assert.deepEqual(served, [["stripe", "acct_operator_1"], ["stripe-test", "acct_operator_1"], ["yolfi", "org_operator_1"], ["standard-webhooks", "operator-shop"]]);
    assert.deepEqual(problems(endpointDefinitions({}), { LAB_WEBHOOK_SECRET: "lab_operator_own_0001" }), []);
    // Demo mode: the demo accounts, with the operator's own secrets too.
    assert.deepEqual(loadEndpoints({ ...DEMO, ...secrets }).endpoints.map((endpoint) => endpoint.account), ["lab", "acct_acredita_demo", "acct_acredita_demo", "org_acredita_demo", "org_acredita_demo", "acredita-demo"]);
  });
});
