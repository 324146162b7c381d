import { logger } from "@/lib/log/logger";
import { errorMessage } from "@/lib/log/error-message";

/**
 * Runs `step` again and again: at once while it reports work done, otherwise after `intervalMs` or as
 * soon as {@link PollLoop.wake} is called. A step that throws (database unavailable) is logged and
 * retried after the interval. {@link PollLoop.stop} lets the running step finish, then resolves.
 */
export class PollLoop {
  private stopping = false;
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
      } catch (error) {
        logger.error({ err: errorMessage(error), loop: this.name }, "background step failed; retrying after the poll interval");
      }
      if (!didWork && !this.stopping) await this.idle();
      // Between two steps, let timers, I/O callbacks and signal handlers run: on SQLite a step can
      // complete without waiting on any I/O event, and a backlog would otherwise keep the loop in
      // microtasks, so that SIGTERM (and stop()) were only seen once the inbox was empty.
      else await new Promise<void>((resolve) => setImmediate(resolve));
    }
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
      const timer = setTimeout(done, this.intervalMs);
      this.wakeSleeper = done;
    });
  }
}
