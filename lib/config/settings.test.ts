import assert from "node:assert/strict";
import { test } from "node:test";
import { readSettings, SettingsError } from "@/lib/config/settings";

test("demo defaults fill unset settings", () => {
  const settings = readSettings({});
  assert.equal(settings.PORT, 3000);
  assert.equal(settings.DATABASE_URL, "file:./data/acredita.db");
  assert.equal(settings.WEBHOOK_TOLERANCE_SECONDS, 300);
  assert.deepEqual(settings.LAB_WEBHOOK_SECRET, ["lab_demo_secret_2026"]);
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
  assert.throws(() => readSettings({ API_TOKEN: "short" }), /API_TOKEN: needs at least 8 characters/);
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
