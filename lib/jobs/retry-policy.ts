import { settings } from "@/lib/config/settings";

/** When and how often a retryable failure is tried again. Durations in ms, age in seconds. */
export interface RetryPolicy {
  baseDelayMs: number;
  maxDelayMs: number;
  /** Attempts, the first included, before giving up. */
  maxAttempts: number;
  /** Seconds since the event was received after which no retry is scheduled. */
  maxAgeSeconds: number;
}

/** The policy from the settings (INBOX_RETRY_BASE_MS, INBOX_RETRY_MAX_DELAY_MS, INBOX_MAX_ATTEMPTS, INBOX_MAX_AGE_SECONDS). */
export function inboxRetryPolicy(): RetryPolicy {
  const config = settings();
  return {
    baseDelayMs: config.INBOX_RETRY_BASE_MS,
    maxDelayMs: config.INBOX_RETRY_MAX_DELAY_MS,
    maxAttempts: config.INBOX_MAX_ATTEMPTS,
    maxAgeSeconds: config.INBOX_MAX_AGE_SECONDS,
  };
}

/**
 * Delay (ms) before the retry that follows failed attempt number `attempt` (1 = the first attempt):
 * exponential, `base * 2^(attempt-1)` capped at `maxDelayMs`, with "equal jitter" (half fixed, half
 * random) so a burst of failures does not come back as a burst, yet no retry is immediate. `random`
 * returns [0, 1) (Math.random by default; tests pass a fixed one). AWS Architecture Blog, "Exponential
 * Backoff and Jitter".
 */
export function retryDelayMs(attempt: number, policy: Pick<RetryPolicy, "baseDelayMs" | "maxDelayMs">, random: () => number = Math.random): number {
  const exponent = Math.min(Math.max(attempt, 1) - 1, 40);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** exponent);
  const half = ceiling / 2;
  return Math.round(half + half * random());
}

/** What to do after a failed attempt: try again at `nextAttemptAt`, or give up (dead letter) with a reason. */
export type RetryDecision =
  | { action: "retry"; nextAttemptAt: Date; delayMs: number }
  | { action: "give_up"; reason: string; limit?: { kind: "attempts"; attempts: number; max: number } | { kind: "age"; attempts: number; age: number; maxAge: number } };

/**
 * Decides the fate of a failed attempt. `attempts` counts attempts made so far, this one included;
 * `firstSeenAt` is when the event was received. A non-retryable failure gives up at once; a retryable
 * one gives up when `attempts >= maxAttempts` or the event is older than `maxAgeSeconds`, otherwise
 * retries after {@link retryDelayMs}.
 */
export function decideRetry(
  failure: { retryable: boolean },
  attempts: number,
  firstSeenAt: Date,
  now: Date,
  policy: RetryPolicy,
  random: () => number = Math.random,
): RetryDecision {
  if (!failure.retryable) return { action: "give_up", reason: "not retryable" };
  if (attempts >= policy.maxAttempts) return { action: "give_up", reason: `gave up after ${attempts} attempts (max ${policy.maxAttempts})`, limit: { kind: "attempts", attempts, max: policy.maxAttempts } };
  const ageSeconds = Math.floor((now.getTime() - firstSeenAt.getTime()) / 1000);
  if (ageSeconds >= policy.maxAgeSeconds) return { action: "give_up", reason: `gave up after ${attempts} attempts: event is ${ageSeconds} s old (max ${policy.maxAgeSeconds} s)`, limit: { kind: "age", attempts, age: ageSeconds, maxAge: policy.maxAgeSeconds } };
  const delayMs = retryDelayMs(attempts, policy, random);
  return { action: "retry", nextAttemptAt: new Date(now.getTime() + delayMs), delayMs };
}
