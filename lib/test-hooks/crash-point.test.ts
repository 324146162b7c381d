import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, test } from "node:test";
import { crashPointArmed } from "@/lib/test-hooks/crash-point";

describe("test crash points", () => {
  test("armed only outside production, with ACREDITA_TEST_HOOKS=1 and the matching point", () => {
    const armed = { NODE_ENV: "test", ACREDITA_TEST_HOOKS: "1", ACREDITA_TEST_CRASH_POINT: "before-commit" };
    assert.equal(crashPointArmed("before-commit", armed), true);
    assert.equal(crashPointArmed("after-commit-before-done", armed), false);
    assert.equal(crashPointArmed("before-commit", { ...armed, NODE_ENV: "production" }), false);
    assert.equal(crashPointArmed("before-commit", { ...armed, ACREDITA_TEST_HOOKS: undefined }), false);
    assert.equal(crashPointArmed("before-commit", { ...armed, ACREDITA_TEST_HOOKS: "true" }), false);
    assert.equal(crashPointArmed("before-commit", { NODE_ENV: undefined, ACREDITA_TEST_HOOKS: "1", ACREDITA_TEST_CRASH_POINT: "before-commit" }), true);
  });

  test("an armed point kills the process with SIGKILL; in production the same variables do nothing", () => {
    const script = `require("./lib/test-hooks/crash-point.ts").crashAt("before-commit"); console.log("survived");`;
    const env = { ...process.env, ACREDITA_TEST_HOOKS: "1", ACREDITA_TEST_CRASH_POINT: "before-commit" };
    const killed = spawnSync(process.execPath, ["--import", "tsx", "-e", script], { env: { ...env, NODE_ENV: "test" }, encoding: "utf8" });
    assert.equal(killed.signal, "SIGKILL");
    assert.equal(killed.stdout, "");
    const production = spawnSync(process.execPath, ["--import", "tsx", "-e", script], { env: { ...env, NODE_ENV: "production" }, encoding: "utf8" });
    assert.equal(production.status, 0);
    assert.equal(production.stdout, "survived\n");
  });
});
