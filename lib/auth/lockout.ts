import type { Settings } from "@/lib/config/settings";
import type { Db } from "@/lib/db/client";
import { uniqueViolationFields } from "@/lib/db/errors";

/** How the per-account lockout behaves (AUTH_LOCKOUT_* settings). */
export type LockoutPolicy = Pick<Settings, "AUTH_LOCKOUT_THRESHOLD" | "AUTH_LOCKOUT_BASE_SECONDS" | "AUTH_LOCKOUT_MAX_SECONDS">;

/** The key of an account in LoginLockout: the email as typed, trimmed and lower-cased. */
export function lockoutKey(email: unknown): string | null {
  if (typeof email !== "string") return null;
  const key = email.trim().toLowerCase();
  return key.length > 0 && key.length <= 254 ? key : null;
}

/**
 * How long (s) an account stays locked after its `failures`-th consecutive failure: 0 below the
 * threshold, then the base, doubled for each failure after it, capped at the maximum
 * (5 failures → 60 s, 6 → 120 s, 7 → 240 s … with the defaults).
 */
export function lockSeconds(failures: number, policy: LockoutPolicy): number {
  if (failures < policy.AUTH_LOCKOUT_THRESHOLD) return 0;
  const doublings = Math.min(failures - policy.AUTH_LOCKOUT_THRESHOLD, 30);
  return Math.min(policy.AUTH_LOCKOUT_BASE_SECONDS * 2 ** doublings, policy.AUTH_LOCKOUT_MAX_SECONDS);
}

/** Seconds left on the account's lock at `now`, or 0 when it may try to sign in. Reads the database. */
export async function lockedFor(db: Db, email: string, now = new Date()): Promise<number> {
  const row = await db.loginLockout.findUnique({ where: { email }, select: { lockedUntil: true } });
  if (!row?.lockedUntil || row.lockedUntil <= now) return 0;
  return Math.ceil((row.lockedUntil.getTime() - now.getTime()) / 1000);
}

/**
 * Counts one failed sign-in for `email` (one atomic increment, so concurrent failures in several
 * processes all count) and locks the account for {@link lockSeconds} once over the threshold. Returns
 * the consecutive failures and the lock's end (null when not locked).
 */
export async function recordFailure(db: Db, email: string, policy: LockoutPolicy, now = new Date()): Promise<{ failures: number; lockedUntil: Date | null }> {
  let failures: number;
  try {
    ({ failures } = await db.loginLockout.upsert({ where: { email }, create: { email, failures: 1 }, update: { failures: { increment: 1 } }, select: { failures: true } }));
  } catch (error) {
    // Two first failures at once: one created the row, the other increments it.
    if (!uniqueViolationFields(error)) throw error;
    ({ failures } = await db.loginLockout.update({ where: { email }, data: { failures: { increment: 1 } }, select: { failures: true } }));
  }
  const seconds = lockSeconds(failures, policy);
  if (seconds === 0) return { failures, lockedUntil: null };
  const lockedUntil = new Date(now.getTime() + seconds * 1000);
  await db.loginLockout.update({ where: { email }, data: { lockedUntil } });
  return { failures, lockedUntil };
}

/** A successful sign-in: the account's failures start again from zero. */
export async function clearFailures(db: Db, email: string): Promise<void> {
  await db.loginLockout.deleteMany({ where: { email } });
}
