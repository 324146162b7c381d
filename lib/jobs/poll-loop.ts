import { logger } from "@/lib/log/logger";
import { errorMessage } from "@/lib/log/error-message";

/** The longest wait after failed steps in a row (ms), unless the poll interval itself is longer. */
export const FAILURE_BACKOFF_MAX_MS = 5_000;

/**
 * Runs `step` again and again: at once while it reports work done, otherwise after `intervalMs` or as
 * soon as {@link PollLoop.wake} is called. A step that throws (database unavailable) is logged and
 * retried after the interval, doubled for each further failure in a row up to
 * {@link FAILURE_BACKOFF_MAX_MS}: on SQLite a locked database blocks the thread for the busy timeout
 * at every attempt, and loops retrying at their poll interval kept the server from answering webhooks
 * (503) for tens of seconds. {@link PollLoop.stop} lets the running step finish, then resolves.
 */
export class PollLoop {
  private stopping = false;
  private failuresInARow = 0;
  private pendingWake = false;
  private running: Promise<void> | undefined;
  private wakeSleeper: (() => void) | undefined;

  constructor(
    private readonly name: string,
    private readonly step: () => Promise<boolean>,
    private readonly intervalMs: number,
  ) {}

  /** Starts the loop (no-op when already running). */
  start(): void {
    if (this.running) return;
    this.stopping = false;
    this.running = this.loop();
  }

  /** Runs the next step now instead of after the interval. */
  wake(): void {
    this.pendingWake = true;
    this.wakeSleeper?.();
  }

  /** Stops taking new steps and resolves when the current one (if any) has finished. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.running;
    this.running = undefined;
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      let didWork = false;
      try {
        didWork = await this.step();
        this.failuresInARow = 0;
      } catch (error) {
        this.failuresInARow++;
        logger.error({ err: errorMessage(error), loop: this.name, retryInMs: this.delayMs() }, "background step failed; retrying after the poll interval");
      }
      if (!didWork && !this.stopping) await this.idle();
      // Between two steps, let timers, I/O callbacks and signal handlers run: on SQLite a step can
      // complete without waiting on any I/O event, and a backlog would otherwise keep the loop in
      // microtasks, so that SIGTERM (and stop()) were only seen once the inbox was empty.
      else await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /** The wait before the next step when idle: the interval, doubled per failure in a row, capped. */
  private delayMs(): number {
    if (this.failuresInARow === 0) return this.intervalMs;
    return Math.min(this.intervalMs * 2 ** Math.min(this.failuresInARow, 16), Math.max(this.intervalMs, FAILURE_BACKOFF_MAX_MS));
  }

  private idle(): Promise<void> {
    if (this.pendingWake) {
      this.pendingWake = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeSleeper = undefined;
        this.pendingWake = false;
        resolve();
      };
      const timer = setTimeout(done, this.delayMs());
      this.wakeSleeper = done;
    });
  }
}
