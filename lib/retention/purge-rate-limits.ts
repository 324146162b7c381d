import { rateLimitRowLifetimeSeconds } from "@/lib/auth/sign-in-limit";
import type { Settings } from "@/lib/config/settings";
import type { Db } from "@/lib/db/client";
import { logger } from "@/lib/log/logger";

/** What one rate-limit purge deleted (or, on a dry run, would delete). */
export interface RateLimitRetentionReport {
  /** Rows whose window started before this (UTC) were deleted. */
  rateLimitCutoff: string;
  rateLimitsDeleted: number;
  dryRun: boolean;
}

/**
 * Deletes the RateLimit rows (sign-in and password-change buckets, one per client address and path)
 * whose window is over under every rule: `lastRequest` older than the longest window
 * (rateLimitRowLifetimeSeconds: AUTH_LOGIN_WINDOW_SECONDS, at least 60 s) before `now`. Such a row
 * only waits to be reset by its address's next attempt, so deleting it changes no answer; without
 * this, every address that ever failed a sign-in kept its row. One statement (the rows are small and
 * the condition is a plain comparison); idempotent. Returns the count; throws the database's errors.
 */
export async function purgeExpiredRateLimits(db: Db, config: Pick<Settings, "AUTH_LOGIN_WINDOW_SECONDS">, options: { now?: Date; dryRun?: boolean } = {}): Promise<RateLimitRetentionReport> {
  const now = options.now ?? new Date();
  const dryRun = options.dryRun ?? false;
  const cutoff = now.getTime() - rateLimitRowLifetimeSeconds(config) * 1000;
  const where = { lastRequest: { lt: BigInt(cutoff) } };
  const rateLimitsDeleted = dryRun ? await db.rateLimit.count({ where }) : (await db.rateLimit.deleteMany({ where })).count;
  const report: RateLimitRetentionReport = { rateLimitCutoff: new Date(cutoff).toISOString(), rateLimitsDeleted, dryRun };
  if (!dryRun) logger.info({ retention: report }, "rate-limit retention");
  return report;
}

/** One line for the CLI: the cutoff and the count. */
export function formatRateLimitRetentionReport(report: RateLimitRetentionReport): string {
  return `Rate-limit retention (windows over before ${report.rateLimitCutoff}): ${report.dryRun ? "would delete" : "deleted"} ${report.rateLimitsDeleted} row(s).`;
}
