// Red team: the public Standard Webhooks demo KEY slips into production under another spelling.
//
// Production refuses a public demo value by comparing the variable's text with the README's strings
// (lib/config/settings.ts holdsPublicDemoValue). But a Standard Webhooks secret is not its text: the
// HMAC key is the base64-decoded part, and decodeStandardWebhooksSecret
// (lib/providers/signatures/standard-webhooks-signature.ts) accepts the base64 WITHOUT the `whsec_`
// prefix and WITHOUT its padding. An operator who pastes only the key part of the README's demo secret
// (a common way Standard Webhooks keys are shown) gets a production server that starts cleanly and
// accepts payments signed with the README's public `whsec_...` secret by anyone.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { checkServerConfiguration } from "@/lib/background/server-configuration";
import { readSettings, SettingsError } from "@/lib/config/settings";
import { DEMO_ENDPOINT_SECRETS } from "@/lib/endpoints/endpoints";

const DEMO = DEMO_ENDPOINT_SECRETS.STANDARD_WEBHOOKS_SECRET; // whsec_YWNy...ZXk=
const WITHOUT_PREFIX = DEMO.slice("whsec_".length); // YWNy...ZXk=
const WITHOUT_PADDING = DEMO.replace(/=+$/, ""); // whsec_YWNy...ZXk
const BARE = WITHOUT_PREFIX.replace(/=+$/, ""); // YWNy...ZXk

// With the operator's own account: production serves the endpoint only with its account variable set.
// Only settings are read, never the database: its URL is never opened (a unit test, no test database).
const productionEnv = (secret: string) => ({ AUTH_SECRET: "test-auth-secret-0123456789abcdef-0123456789", API_TOKEN: "test-api-token-0123456789abcdef-123", DATABASE_URL: "file:./never-opened.db", STANDARD_WEBHOOKS_SECRET: secret, STANDARD_WEBHOOKS_ACCOUNT: "operator-shop" });


describe("the Standard Webhooks demo key under another spelling is refused in production", () => {
  for (const [label, value] of [["without whsec_", WITHOUT_PREFIX], ["without padding", WITHOUT_PADDING], ["bare base64, no padding", BARE]] as const) {
    test(`STANDARD_WEBHOOKS_SECRET = the demo key ${label}: the start refuses it`, () => {
      const checked = checkServerConfiguration(productionEnv(value));
      assert.equal(checked.ok, false, `production started with the public demo key ${label}`);
    });
  }

  test("every process refuses those settings, so no payment signed with the README's whsec_ secret can be received", () => {
    for (const value of [WITHOUT_PREFIX, WITHOUT_PADDING, BARE, `${BARE.replaceAll("+", "-").replaceAll("/", "_")}`]) {
      assert.throws(() => readSettings(productionEnv(value)), (error: unknown) => error instanceof SettingsError && error.issues.join() === "STANDARD_WEBHOOKS_SECRET: is a public demo value (printed in the README); set your own secret", value);
    }
    // The operator's own key, in any of those spellings, is fine.
    const own = Buffer.from("an-operator-standard-webhooks-key").toString("base64");
    assert.equal(checkServerConfiguration(productionEnv(own.replace(/=+$/, ""))).ok, true);
  });
});
