import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { decideRetry, retryDelayMs, type RetryPolicy } from "@/lib/jobs/retry-policy";

const policy: RetryPolicy = { baseDelayMs: 1_000, maxDelayMs: 60_000, maxAttempts: 5, maxAgeSeconds: 3_600 };
const t0 = new Date("2026-11-29T12:00:00.000Z");

describe("inbox retry policy", () => {
  test("the delay doubles per attempt with equal jitter and stops at the cap", () => {
    assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 8].map((attempt) => retryDelayMs(attempt, policy, () => 0)), [500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
    assert.deepEqual([1, 2, 3, 7, 8].map((attempt) => retryDelayMs(attempt, policy, () => 0.999999)), [1_000, 2_000, 4_000, 60_000, 60_000]);
    assert.equal(retryDelayMs(3, policy, () => 0.5), 3_000);
  });

  test("a retryable failure is retried at now + delay until the attempts run out", () => {
    assert.deepEqual(decideRetry({ retryable: true }, 1, t0, t0, policy, () => 0.5), { action: "retry", nextAttemptAt: new Date("2026-11-29T12:00:00.750Z"), delayMs: 750 });
    assert.deepEqual(decideRetry({ retryable: true }, 4, t0, t0, policy, () => 0.5), { action: "retry", nextAttemptAt: new Date("2026-11-29T12:00:06.000Z"), delayMs: 6_000 });
    assert.deepEqual(decideRetry({ retryable: true }, 5, t0, t0, policy), { action: "give_up", reason: "gave up after 5 attempts (max 5)", limit: { kind: "attempts", attempts: 5, max: 5 } });
  });

  test("a retryable failure older than the maximum age gives up", () => {
    const late = new Date(t0.getTime() + 3_600_000);
    assert.deepEqual(decideRetry({ retryable: true }, 2, t0, late, policy), { action: "give_up", reason: "gave up after 2 attempts: event is 3600 s old (max 3600 s)", limit: { kind: "age", attempts: 2, age: 3600, maxAge: 3600 } });
    assert.equal(decideRetry({ retryable: true }, 2, t0, new Date(late.getTime() - 1_000), policy, () => 0).action, "retry");
  });

  test("a non-retryable failure gives up on its first attempt", () => {
    assert.deepEqual(decideRetry({ retryable: false }, 1, t0, t0, policy), { action: "give_up", reason: "not retryable" });
  });
});
