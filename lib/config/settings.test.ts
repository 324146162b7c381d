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
