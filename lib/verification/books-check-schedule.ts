import type { Db } from "@/lib/db/client";
import { PollLoop } from "@/lib/jobs/poll-loop";
import { errorMessage } from "@/lib/log/error-message";
import { logger } from "@/lib/log/logger";
import { failBooksCheck, finishBooksCheck, lastBooksCheckStart, startBooksCheck, type BooksCheckTrigger } from "@/lib/monitoring/books-checks";
import { addReport, emptyReport, reportSummary, verifyBooks, type BooksReport } from "@/lib/verification/verify-books";

/** How often the books are checked in the background: once a day. */
export const BOOKS_CHECK_INTERVAL_MS = 86_400_000;
/** How often a worker looks whether the daily check is due (one indexed read). */
export const BOOKS_CHECK_LOOK_EVERY_MS = 600_000;

/**
 * Checks every order's books ({@link verifyBooks}) and records the run (BooksCheck: running, then its
 * counts and bounded report, or failed with why), logging its summary. Returns the report. Throws the
 * database's errors after recording the failure when it can.
 */
export async function runBooksCheck(db: Db, organizationId: string, trigger: BooksCheckTrigger, now: () => Date = () => new Date()): Promise<BooksReport> {
  const id = await startBooksCheck(db, organizationId, trigger, now());
  try {
    const report = await verifyBooks(db, organizationId, { now });
    await finishBooksCheck(db, id, report, JSON.stringify(report), now());
    const line = { trigger, organizationId, orders: report.orders, agreeing: report.agreeing, differing: report.differing, unverifiable: report.unverifiable, waiting: report.waiting };
    if (report.differing > 0) logger.warn(line, reportSummary(report));
    else logger.info(line, reportSummary(report));
    return report;
  } catch (error) {
    await failBooksCheck(db, id, errorMessage(error), now()).catch(() => undefined);
    throw error;
  }
}

/**
 * Runs {@link runBooksCheck} (trigger `daily`) when the last check of any process that finished (or is
 * running) started more than `intervalMs` (default a day) ago, or none did: a failed check is tried
 * again at the next look. Two workers deciding at the same moment both check,
 * which is harmless: a check changes nothing. Returns the report, or null when not due.
 */
export async function runBooksCheckIfDue(db: Db, options: { now?: () => Date; intervalMs?: number } = {}): Promise<BooksReport | null> {
  const now = options.now ?? (() => new Date());
  const last = await lastBooksCheckStart(db);
  if (last && now().getTime() - last.getTime() < (options.intervalMs ?? BOOKS_CHECK_INTERVAL_MS)) return null;
  // Every organization's books, one check each; the report returned sums them.
  const total = emptyReport();
  for (const organization of await db.organization.findMany({ select: { id: true }, orderBy: { createdAt: "asc" } })) {
    addReport(total, await runBooksCheck(db, organization.id, "daily", now));
  }
  return total;
}

/**
 * The daily check of the books inside a worker (started with the inbox worker, beside the retention
 * run): looks every `checkEveryMs` (default 10 minutes) whether a day has passed since the last check
 * and runs it then. Its first look is one interval after start, not at start: a process restarted
 * often does not add a full check to each start. A failure is logged and tried again at the next look.
 */
export class BooksCheckScheduler {
  private readonly loop: PollLoop;
  private firstLook = true;

  constructor(database: () => Promise<Db>, options: { checkEveryMs?: number; now?: () => Date; intervalMs?: number } = {}) {
    this.loop = new PollLoop(
      "books-check",
      async () => {
        if (this.firstLook) {
          this.firstLook = false;
          return false;
        }
        await runBooksCheckIfDue(await database(), { now: options.now, intervalMs: options.intervalMs });
        // Never "work done": the next look waits the whole interval.
        return false;
      },
      options.checkEveryMs ?? BOOKS_CHECK_LOOK_EVERY_MS,
    );
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
