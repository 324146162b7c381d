// own-process: sets the mode, log level and secrets in the environment, as npm start reads them, which would reach the other unit files in a shared process
import assert from "node:assert/strict";
import { test } from "node:test";
import { checkServerConfiguration } from "@/lib/background/server-configuration";

// As `npm start` calls it: on the process's own environment, before anything has read the settings.
test("a wrong setting in the environment does not hide an endpoint's own refusal until the next start", () => {
  Object.assign(process.env, { ACREDITA_MODE: "production", LOG_LEVEL: "loud", AUTH_SECRET: "x".repeat(40), YOLFI_WEBHOOK_SECRET: "short", YOLFI_ORG_ID: "org_shop" });
  assert.deepEqual(checkServerConfiguration(), {
    ok: false,
    issues: ['LOG_LEVEL: Invalid option: expected one of "fatal"|"error"|"warn"|"info"|"debug"|"trace"|"silent"', "endpoint yolfi: YOLFI_WEBHOOK_SECRET[0] needs at least 8 characters"],
  });
});
