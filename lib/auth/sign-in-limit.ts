import type { Settings } from "@/lib/config/settings";
import type { Db } from "@/lib/db/client";
import { uniqueViolationFields } from "@/lib/db/errors";

/** The one better-auth path that checks a password from anyone: its failures are limited per client address. */
export const SIGN_IN_PATH = "/sign-in/email";

/** better-auth's own rule for password changes (a signed-in user's guesses at the current password): 3 per 10 s per address. */
export const CHANGE_PASSWORD_RULE = { window: 10, max: 3 } as const;

/** The per-address sign-in rule: AUTH_LOGIN_MAX_ATTEMPTS failures within AUTH_LOGIN_WINDOW_SECONDS. */
export type SignInRule = { window: number; max: number };

/** The rule of `config` (AUTH_LOGIN_MAX_ATTEMPTS, AUTH_LOGIN_WINDOW_SECONDS). */
export function signInRule(config: Pick<Settings, "AUTH_LOGIN_MAX_ATTEMPTS" | "AUTH_LOGIN_WINDOW_SECONDS">): SignInRule {
  return { window: config.AUTH_LOGIN_WINDOW_SECONDS, max: config.AUTH_LOGIN_MAX_ATTEMPTS };
}

/**
 * How long a RateLimit row can matter (seconds): the longest window of any bucket kept there (the
 * sign-in window, better-auth's 10 s password-change rule, its 60 s default). A row whose window
 * started longer ago than this is expired under every rule: the retention job deletes it
 * (lib/retention/purge-rate-limits.ts), and better-auth's own pruning uses the same length.
 */
export function rateLimitRowLifetimeSeconds(config: Pick<Settings, "AUTH_LOGIN_WINDOW_SECONDS">): number {
  return Math.max(60, CHANGE_PASSWORD_RULE.window, config.AUTH_LOGIN_WINDOW_SECONDS);
}

/** The bucket of a client address in RateLimit: `<ip>|/sign-in/email`, the form better-auth gives its own keys. */
export function signInBucketKey(ip: string): string {
  return `${ip}|${SIGN_IN_PATH}`;
}

/** A reserved attempt, or the seconds until the address may try again. */
export type Reservation = { allowed: true } | { allowed: false; retryAfter: number };

/**
 * Takes one attempt from the client address's sign-in bucket before the password is checked: a fixed
 * window of `rule.window` seconds that starts at its first counted attempt (`lastRequest` holds the
 * window's start; a bucket holding only given-back successes starts a new one) and allows `rule.max`
 * attempts. Each step is one conditional statement, so concurrent
 * attempts in any number of processes cannot pass together past the limit. A successful sign-in gives
 * its attempt back ({@link refundSignInAttempt}): only failures stay counted (a team behind one office
 * address signs in all at once at the start of a shift). Returns whether the attempt may go on, or
 * the seconds left in the window (at least 1). Throws the database's errors.
 */
export async function reserveSignInAttempt(db: Db, key: string, rule: SignInRule, now = Date.now()): Promise<Reservation> {
  const windowMs = rule.window * 1000;
  for (let tries = 0; tries < 5; tries++) {
    // A window that is over, or that holds no failure (only successes, given back), starts again here.
    const restarted = await db.rateLimit.updateMany({ where: { key, OR: [{ lastRequest: { lte: BigInt(now - windowMs) } }, { count: 0 }] }, data: { count: 1, lastRequest: BigInt(now) } });
    if (restarted.count === 1) return { allowed: true };
    const inWindow = await db.rateLimit.updateMany({ where: { key, lastRequest: { gt: BigInt(now - windowMs) }, count: { lt: rule.max } }, data: { count: { increment: 1 } } });
    if (inWindow.count === 1) return { allowed: true };
    const row = await db.rateLimit.findUnique({ where: { key }, select: { lastRequest: true, count: true } });
    const started = row ? Number(row.lastRequest) : 0;
    if (row && row.count >= rule.max && started > now - windowMs) return { allowed: false, retryAfter: Math.max(1, Math.ceil((started + windowMs - now) / 1000)) };
    // Changed by another attempt between the statements above: try again.
    if (row) continue;
    try {
      await db.rateLimit.create({ data: { key, count: 1, lastRequest: BigInt(now) } });
      return { allowed: true };
    } catch (error) {
      // Another attempt created the bucket meanwhile: take from it like any other.
      if (!uniqueViolationFields(error)) throw error;
    }
  }
  throw new Error(`the sign-in bucket ${key} kept changing under five attempts to reserve from it`);
}

/** Gives back an attempt {@link reserveSignInAttempt} took, after the sign-in succeeded (the window's start is kept). Throws the database's errors. */
export async function refundSignInAttempt(db: Db, key: string): Promise<void> {
  await db.rateLimit.updateMany({ where: { key, count: { gt: 0 } }, data: { count: { decrement: 1 } } });
}
