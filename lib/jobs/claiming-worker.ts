import { PollLoop } from "@/lib/jobs/poll-loop";
import { onWork } from "@/lib/jobs/signals";

/**
 * What the inbox worker and the outbox dispatcher share: a poll loop that runs {@link runOnce} (claim one
 * due item under a lease and handle it) until it returns null, then waits `pollIntervalMs` or an
 * in-process wake-up on `channel`; `drain()` for tests and tools; a stop that lets the item in hand finish.
 */
export abstract class ClaimingWorker<Result> {
  private readonly loop: PollLoop;
  private unsubscribe: (() => void) | undefined;

  protected constructor(
    name: string,
    private readonly channel: "inbox" | "outbox" | "reconciliation",
    pollIntervalMs: number,
  ) {
    this.loop = new PollLoop(name, () => this.step(), pollIntervalMs);
  }

  /** Claims and handles at most one due item. Returns what happened, or null when nothing was due. */
  abstract runOnce(): Promise<Result | null>;

  /** One step of the poll loop: handles what is due now; true when there was something (the loop goes on at once). */
  protected async step(): Promise<boolean> {
    return (await this.runOnce()) !== null;
  }

  /** Handles due items until none is left (or `maxSteps`); returns what each step did. For tests and tools. */
  async drain(maxSteps = 100_000): Promise<Result[]> {
    const results: Result[] = [];
    for (let step = 0; step < maxSteps; step++) {
      const result = await this.runOnce();
      if (!result) break;
      results.push(result);
    }
    return results;
  }

  /** Starts polling (and listening for in-process wake-ups). */
  start(): void {
    this.unsubscribe ??= onWork(this.channel, () => this.loop.wake());
    this.loop.start();
  }

  /** Stops: the item in hand is finished (and recorded), nothing new is claimed. */
  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await this.loop.stop();
  }
}
