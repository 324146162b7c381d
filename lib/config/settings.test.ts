import assert from "node:assert/strict";
import { test } from "node:test";
import { checkServerConfiguration } from "@/lib/background/server-configuration";
import { readSettings, SettingsError } from "@/lib/config/settings";

test("demo mode fills unset secrets with the public demo values", () => {
  const settings = readSettings({ ACREDITA_MODE: "demo" });
  assert.equal(settings.ACREDITA_MODE, "demo");
  assert.equal(settings.PORT, 3000);
  assert.equal(settings.DATABASE_URL, "file:./data/acredita.db");
  assert.equal(settings.WEBHOOK_TOLERANCE_SECONDS, 300);
  assert.deepEqual(settings.LAB_WEBHOOK_SECRET, ["lab_demo_secret_2026"]);
  assert.equal(settings.API_TOKEN, "demo-api-token");
  assert.equal(settings.AUTH_SECRET, "acredita-demo-auth-secret-change-me-0001");
});

test("production (the default) has no demo value of any kind", () => {
  const settings = readSettings({});
  assert.equal(settings.ACREDITA_MODE, "production");
  assert.deepEqual([settings.API_TOKEN, settings.LAB_WEBHOOK_SECRET, settings.AUTH_SECRET], [undefined, undefined, undefined]);
  assert.equal(settings.PORT, 3000);
  assert.equal(readSettings({ ACREDITA_MODE: "Demo " }).ACREDITA_MODE, "demo");
  assert.throws(() => readSettings({ ACREDITA_MODE: "staging" }), /ACREDITA_MODE: must be demo or production/);
});

test("production refuses every public demo value and short tokens, naming each variable and never a value", () => {
  const env = {
    API_TOKEN: "demo-api-token",
    AUTH_SECRET: "acredita-demo-auth-secret-change-me-0001",
    LAB_WEBHOOK_SECRET: "lab_demo_secret_2026",
    YOLFI_WEBHOOK_SECRET: "yolfi_own_secret_0001, whsec_acredita_stripe_demo_2026",
  };
  assert.throws(
    () => readSettings(env),
    (error: unknown) => {
      assert.ok(error instanceof SettingsError);
      assert.deepEqual(error.issues, [
        "API_TOKEN: is a public demo value (printed in the README); set your own secret",
        "AUTH_SECRET: is a public demo value (printed in the README); set your own secret",
        "LAB_WEBHOOK_SECRET: is a public demo value (printed in the README); set your own secret",
        "YOLFI_WEBHOOK_SECRET: is a public demo value (printed in the README); set your own secret",
      ]);
      for (const value of Object.values(env)) assert.ok(!error.message.includes(value.trim()));
      return true;
    },
  );
  assert.throws(() => readSettings({ API_TOKEN: "operator-token-31-characters-xx" }), (error: unknown) => error instanceof SettingsError && error.issues.join() === "API_TOKEN: needs at least 32 characters in production");
  assert.equal(readSettings({ API_TOKEN: "operator-token-with-32-characters" }).API_TOKEN, "operator-token-with-32-characters");
  assert.equal(readSettings({ ACREDITA_MODE: "demo", API_TOKEN: "short-but-demo" }).API_TOKEN, "short-but-demo");
});

test("a production server refuses to start without AUTH_SECRET, or with a short one", () => {
  const missing = checkServerConfiguration({});
  assert.deepEqual(missing, { ok: false, issues: ["AUTH_SECRET: is required in production (at least 32 characters)"] });
  const short = checkServerConfiguration({ AUTH_SECRET: "only-31-characters-long-secret!" });
  assert.deepEqual(short, { ok: false, issues: ["AUTH_SECRET: needs at least 32 characters"] });
  const ok = checkServerConfiguration({ AUTH_SECRET: "an-operator-auth-secret-of-40-characters" });
  assert.equal(ok.ok, true);
  assert.equal(checkServerConfiguration({ ACREDITA_MODE: "demo" }).ok, true);
});

test("several lab secrets are split on commas and trimmed of stray whitespace", () => {
  assert.deepEqual(readSettings({ LAB_WEBHOOK_SECRET: " first_secret_1 , second_secret_2\n" }).LAB_WEBHOOK_SECRET, ["first_secret_1", "second_secret_2"]);
});

test("a wrong setting stops with a message that names it and not its value", () => {
  assert.throws(
    () => readSettings({ PORT: "eighty", WEBHOOK_TOLERANCE_SECONDS: "-5", DATABASE_URL: "mysql://x" }),
    (error: unknown) => {
      assert.ok(error instanceof SettingsError);
      assert.deepEqual(error.issues.map((issue) => issue.split(":")[0]), ["PORT", "DATABASE_URL", "WEBHOOK_TOLERANCE_SECONDS"]);
      return true;
    },
  );
  assert.throws(() => readSettings({ ACREDITA_MODE: "demo", API_TOKEN: "short" }), /API_TOKEN: needs at least 8 characters/);
  assert.throws(() => readSettings({ LAB_WEBHOOK_SECRET: "tiny" }), (error: unknown) => error instanceof SettingsError && !error.message.includes("tiny"));
});

test("the webhook body cap and payload retention default to 1 MiB and 30 days, and refuse nonsense by name", () => {
  const defaults = readSettings({});
  assert.deepEqual([defaults.WEBHOOK_MAX_BODY_BYTES, defaults.PAYLOAD_RETENTION_DAYS], [1_048_576, 30]);
  const set = readSettings({ WEBHOOK_MAX_BODY_BYTES: "2097152", PAYLOAD_RETENTION_DAYS: "7" });
  assert.deepEqual([set.WEBHOOK_MAX_BODY_BYTES, set.PAYLOAD_RETENTION_DAYS], [2_097_152, 7]);
  assert.throws(
    () => readSettings({ WEBHOOK_MAX_BODY_BYTES: "1mb", PAYLOAD_RETENTION_DAYS: "0" }),
    (error: unknown) => error instanceof SettingsError && error.issues.map((issue) => issue.split(":")[0]).join() === "WEBHOOK_MAX_BODY_BYTES,PAYLOAD_RETENTION_DAYS",
  );
  assert.throws(() => readSettings({ WEBHOOK_MAX_BODY_BYTES: "100" }), /WEBHOOK_MAX_BODY_BYTES: Too small: expected number to be >=1024/);
});

test("PostgreSQL pool and timeout settings have defaults and refuse nonsense, naming the variable", () => {
  const defaults = readSettings({});
  assert.deepEqual(
    [defaults.DATABASE_POOL_SIZE, defaults.DATABASE_POOL_TIMEOUT_MS, defaults.DATABASE_STATEMENT_TIMEOUT_MS, defaults.DATABASE_TRANSACTION_TIMEOUT_MS],
    [10, 10_000, 5_000, 15_000],
  );
  const set = readSettings({ DATABASE_URL: "postgresql://app@db.internal:5432/acredita", DATABASE_POOL_SIZE: "25", DATABASE_STATEMENT_TIMEOUT_MS: "2000" });
  assert.deepEqual([set.DATABASE_URL, set.DATABASE_POOL_SIZE, set.DATABASE_STATEMENT_TIMEOUT_MS], ["postgresql://app@db.internal:5432/acredita", 25, 2_000]);
  assert.throws(
    () => readSettings({ DATABASE_POOL_SIZE: "0", DATABASE_POOL_TIMEOUT_MS: "soon", DATABASE_STATEMENT_TIMEOUT_MS: "-1", DATABASE_TRANSACTION_TIMEOUT_MS: "1.5" }),
    (error: unknown) => {
      assert.ok(error instanceof SettingsError);
      assert.deepEqual(error.issues.map((issue) => issue.split(":")[0]), ["DATABASE_POOL_SIZE", "DATABASE_POOL_TIMEOUT_MS", "DATABASE_STATEMENT_TIMEOUT_MS", "DATABASE_TRANSACTION_TIMEOUT_MS"]);
      return true;
    },
  );
});

test("every refusal at once: a short AUTH_SECRET beside a demo endpoint secret, a wrong setting beside a missing AUTH_SECRET, each variable once", () => {
  assert.deepEqual(checkServerConfiguration({ AUTH_SECRET: "short", STRIPE_WEBHOOK_SECRET: "whsec_acredita_stripe_demo_2026" }), {
    ok: false,
    issues: ["STRIPE_WEBHOOK_SECRET: is a public demo value (printed in the README); set your own secret", "AUTH_SECRET: needs at least 32 characters"],
  });
  assert.deepEqual(checkServerConfiguration({ LOG_LEVEL: "loud", API_TOKEN: "abc" }), {
    ok: false,
    issues: ["API_TOKEN: needs at least 32 characters in production", 'LOG_LEVEL: Invalid option: expected one of "fatal"|"error"|"warn"|"info"|"debug"|"trace"|"silent"', "AUTH_SECRET: is required in production (at least 32 characters)"],
  });
});
