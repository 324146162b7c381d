/** Sleeps `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Short pause before re-running a transaction that lost a race or met a busy database: random in
 * [0, min(200, 5 * 2^attempt)) ms, so competing writers spread out instead of colliding again.
 */
export function transactionBackoff(attempt: number): Promise<void> {
  return sleep(Math.min(200, 5 * 2 ** attempt) * Math.random());
}

/** Transactions re-run at most this many times (the first run included) before the caller gives up. */
export const MAX_TRANSACTION_ATTEMPTS = 6;
