// `npm start`'s and `npm run receiver`'s refusals come all at once, as the README promises: every
// offending variable named (never its value) in one run, so an operator fixes them in one go instead of
// one per start; nothing is started or created. Each command's main runs in this process with only the
// environment given (and PATH, HOME); the processes themselves are started by e2e/http (npm-start.ts,
// real-server.ts), and a bare `next start`'s refusals are e2e/http/hostile-input.test.ts.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { DEMO_ENDPOINT_SECRET_VALUES } from "@/lib/config/settings";
import { DEMO_ENDPOINT_SECRETS } from "@/lib/endpoints/endpoints";
import { runMain } from "@/e2e/support/cli";
import { main as npmStart } from "@/scripts/start";
import { main as receiver } from "@/scripts/receiver";

const folder = mkdtempSync(path.join(tmpdir(), "acredita-refusals-"));

/** Runs `main` as its npm script does with only `env` (and PATH, HOME) set. */
function run(main: typeof npmStart, env: Record<string, string>) {
  return runMain(main, [], { PATH: process.env.PATH, HOME: process.env.HOME, NEXT_TELEMETRY_DISABLED: "1", ...env });
}

describe("npm start", () => {
  test("AUTH_SECRET=short with the demo Stripe secret: both named in one run, exit 1, nothing started or created", async () => {
    const file = path.join(folder, "acredita.db");
    const result = await run(npmStart, { AUTH_SECRET: "short", STRIPE_WEBHOOK_SECRET: DEMO_ENDPOINT_SECRET_VALUES.STRIPE_WEBHOOK_SECRET, DATABASE_URL: `file:${file}` });
    assert.deepEqual(result, {
      code: 1,
      stdout: "",
      stderr: "Acredita cannot start:\n  STRIPE_WEBHOOK_SECRET: is a public demo value (printed in the README); set your own secret\n  AUTH_SECRET: needs at least 32 characters\n",
    });
    assert.equal(existsSync(file), false);
  });

  test("a bad setting does not hide a missing AUTH_SECRET or a short API_TOKEN", async () => {
    const result = await run(npmStart, { PORT: "70000", API_TOKEN: "abc", DATABASE_URL: "file:/nonexistent/acredita.db" });
    assert.deepEqual(result, {
      code: 1,
      stdout: "",
      stderr: "Acredita cannot start:\n  API_TOKEN: needs at least 32 characters in production\n  PORT: Too big: expected number to be <=65535\n  AUTH_SECRET: is required in production (at least 32 characters)\n",
    });
  });

  test("valid settings: a missing AUTH_SECRET and a bad endpoint secret come together", async () => {
    const result = await run(npmStart, { YOLFI_WEBHOOK_SECRET: "short", YOLFI_ORG_ID: "org_operator_1", DATABASE_URL: "file:/nonexistent/acredita.db" });
    assert.deepEqual(result, {
      code: 1,
      stdout: "",
      stderr: "Acredita cannot start:\n  AUTH_SECRET: is required in production (at least 32 characters)\n  endpoint yolfi: YOLFI_WEBHOOK_SECRET[0] needs at least 8 characters\n",
    });
  });
});

describe("servers refuse to start on an unsafe configuration, naming every variable and no value", () => {
  const STRIPE_SECRET = "whsec_hostile_stripe_live_0001";
  const SW_SECRET = `whsec_${Buffer.from("hostile-standard-webhooks-key-01").toString("base64")}`;
  const demoValues = [DEMO_ENDPOINT_SECRETS.STRIPE_WEBHOOK_SECRET, DEMO_ENDPOINT_SECRETS.YOLFI_WEBHOOK_SECRET, "demo-api-token", "acredita-demo-auth-secret-change-me-0001"];
  const file = path.join(folder, "unsafe.db");
  /** The command's exit status and everything it printed (stdout, then stderr), as the e2e refusals read a process's output. */
  const refusal = async (main: typeof npmStart, env: Record<string, string>) => {
    const result = await run(main, { DATABASE_URL: `file:${file}`, PORT: "3999", ...env });
    assert.equal(existsSync(file), false, "a refused start created its database");
    return { code: result.code, output: result.stdout + result.stderr };
  };

  test("npm start: AUTH_SECRET unset, API_TOKEN short and a demo Yolfi secret are all named at once; exit 1", async () => {
    const { code, output } = await refusal(npmStart, { API_TOKEN: "short-operator-token", YOLFI_WEBHOOK_SECRET: DEMO_ENDPOINT_SECRETS.YOLFI_WEBHOOK_SECRET });
    assert.equal(code, 1, output);
    assert.match(output, /Acredita cannot start:/);
    assert.match(output, /API_TOKEN: needs at least 32 characters in production/);
    assert.match(output, /YOLFI_WEBHOOK_SECRET: is a public demo value/);
    for (const value of [...demoValues, "short-operator-token"]) assert.ok(!output.includes(value), "a secret value was printed");
  });

  test("npm start: the public demo AUTH_SECRET and API_TOKEN are refused by name", async () => {
    const { code, output } = await refusal(npmStart, { API_TOKEN: "demo-api-token", AUTH_SECRET: "acredita-demo-auth-secret-change-me-0001" });
    assert.equal(code, 1, output);
    assert.match(output, /API_TOKEN: is a public demo value/);
    assert.match(output, /AUTH_SECRET: is a public demo value/);
    for (const value of demoValues) assert.ok(!output.includes(value), "a secret value was printed");
  });

  test("npm start: no AUTH_SECRET at all is refused", async () => {
    const { code, output } = await refusal(npmStart, {});
    assert.equal(code, 1, output);
    assert.match(output, /AUTH_SECRET: is required in production \(at least 32 characters\)/);
  });

  test("npm start: a Stripe secret without STRIPE_ACCOUNT_ID and a demo account name in STANDARD_WEBHOOKS_ACCOUNT are refused by variable, with AUTH_SECRET's refusal in the same report", async () => {
    const { code, output } = await refusal(npmStart, { STRIPE_WEBHOOK_SECRET: STRIPE_SECRET, STANDARD_WEBHOOKS_SECRET: SW_SECRET, STANDARD_WEBHOOKS_ACCOUNT: "acredita-demo", STRIPE_ACCOUNT_ID: "" });
    assert.equal(code, 1, output);
    // One report: the refusals of the settings and of the endpoints, one indented line each.
    const report = output.slice(output.indexOf("Acredita cannot start:\n")).split("\n").slice(1).filter((line) => line.startsWith("  ")).map((line) => line.trim());
    assert.deepEqual(report, [
      "AUTH_SECRET: is required in production (at least 32 characters)",
      "endpoint stripe: STRIPE_ACCOUNT_ID is not set; set the provider account this endpoint is bound to (required in production when STRIPE_WEBHOOK_SECRET is set)",
      "endpoint standard-webhooks: STANDARD_WEBHOOKS_ACCOUNT holds a demo account name; set your own provider account",
    ]);
    for (const value of [STRIPE_SECRET, SW_SECRET]) assert.ok(!output.includes(value), "a secret value was printed");
  });

  test("npm run receiver refuses a Stripe secret whose account is unset", async () => {
    const { code, output } = await refusal(receiver, { STRIPE_WEBHOOK_SECRET: STRIPE_SECRET, STRIPE_ACCOUNT_ID: "", RECEIVER_PORT: "3998" });
    assert.equal(code, 1, output);
    assert.match(output, /endpoint stripe: STRIPE_ACCOUNT_ID is not set/);
  });

  test("npm run receiver refuses a demo secret as well", async () => {
    const { code, output } = await refusal(receiver, { STANDARD_WEBHOOKS_SECRET: DEMO_ENDPOINT_SECRETS.STANDARD_WEBHOOKS_SECRET, RECEIVER_PORT: "3998" });
    assert.equal(code, 1, output);
    assert.match(output, /STANDARD_WEBHOOKS_SECRET: is a public demo value/);
  });
});
