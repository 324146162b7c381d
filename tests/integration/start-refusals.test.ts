// slow-test: runs npm start as its own process per refusal (tsx start-up and settings checks each)
// `npm start`'s refusals come all at once, as the README promises: every offending variable named
// (never its value) in one run, so an operator fixes them in one go instead of one per start.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { DEMO_ENDPOINT_SECRET_VALUES } from "@/lib/config/settings";

/** Runs scripts/start.ts as `npm start` does with only `env` (and PATH, HOME) set. */
function npmStart(env: Record<string, string>) {
  const result = spawnSync(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NEXT_TELEMETRY_DISABLED: "1", ...env } as unknown as NodeJS.ProcessEnv,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

test("AUTH_SECRET=short with the demo Stripe secret: both named in one run, exit 1, nothing started or created", () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "acredita-refusals-")), "acredita.db");
  const run = npmStart({ AUTH_SECRET: "short", STRIPE_WEBHOOK_SECRET: DEMO_ENDPOINT_SECRET_VALUES.STRIPE_WEBHOOK_SECRET, DATABASE_URL: `file:${file}` });
  assert.deepEqual(run, {
    code: 1,
    stdout: "",
    stderr: "Acredita cannot start:\n  STRIPE_WEBHOOK_SECRET: is a public demo value (printed in the README); set your own secret\n  AUTH_SECRET: needs at least 32 characters\n",
  });
  assert.equal(existsSync(file), false);
});

test("a bad setting does not hide a missing AUTH_SECRET or a short API_TOKEN", () => {
  const run = npmStart({ PORT: "70000", API_TOKEN: "abc", DATABASE_URL: "file:/nonexistent/acredita.db" });
  assert.deepEqual(run, {
    code: 1,
    stdout: "",
    stderr: "Acredita cannot start:\n  API_TOKEN: needs at least 32 characters in production\n  PORT: Too big: expected number to be <=65535\n  AUTH_SECRET: is required in production (at least 32 characters)\n",
  });
});

test("valid settings: a missing AUTH_SECRET and a bad endpoint secret come together", () => {
  const run = npmStart({ YOLFI_WEBHOOK_SECRET: "short", YOLFI_ORG_ID: "org_operator_1", DATABASE_URL: "file:/nonexistent/acredita.db" });
  assert.deepEqual(run, {
    code: 1,
    stdout: "",
    stderr: "Acredita cannot start:\n  AUTH_SECRET: is required in production (at least 32 characters)\n  endpoint yolfi: YOLFI_WEBHOOK_SECRET[0] needs at least 8 characters\n",
  });
});
