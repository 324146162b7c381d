/**
 * Test-only crash points: places where the recovery tests make a process kill itself with SIGKILL, to
 * prove that nothing is lost or applied twice when a process dies exactly there.
 * - before-commit: inside the apply transaction, after the effect, before COMMIT.
 * - after-commit-before-done: after the apply transaction committed, before the worker's post-commit
 *   steps (lease bookkeeping, waking the dispatcher, its log line).
 * - outbox-after-send-before-record: the target answered, the dispatcher has not recorded the answer.
 */
export type CrashPoint = "before-commit" | "after-commit-before-done" | "outbox-after-send-before-record";

/**
 * True only when ALL hold: NODE_ENV is not "production", ACREDITA_TEST_HOOKS is exactly "1", and
 * ACREDITA_TEST_CRASH_POINT names `point`. A production server (next start sets NODE_ENV=production)
 * can never be crashed through these variables.
 */
export function crashPointArmed(point: CrashPoint, env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  return env.NODE_ENV !== "production" && env.ACREDITA_TEST_HOOKS === "1" && env.ACREDITA_TEST_CRASH_POINT === point;
}

/** Kills the current process with SIGKILL (no cleanup, no flush) when {@link crashPointArmed}; otherwise does nothing. */
export function crashAt(point: CrashPoint): void {
  if (!crashPointArmed(point)) return;
  process.stderr.write(`acredita test crash point reached: ${point}; SIGKILL\n`);
  process.kill(process.pid, "SIGKILL");
}
