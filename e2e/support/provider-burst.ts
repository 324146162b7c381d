// A provider's burst for the end-to-end tests: every event at least once, duplicates, random order, and
// a retry of every delivery that got no 2xx, as Stripe and the others do (in compressed time).
import assert from "node:assert/strict";
import { postLab } from "./real-server";

/** mulberry32: a small seeded generator, so a failing run can be replayed with the same seed (print it). Returns numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** `total` deliveries: each of `events` once, the rest random duplicates of them, shuffled (Fisher-Yates) by `random`. */
export function shuffledBurst(events: string[], total: number, random: () => number): string[] {
  const deliveries = [...events, ...Array.from({ length: total - events.length }, () => events[Math.floor(random() * events.length)]!)];
  for (let i = deliveries.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [deliveries[i], deliveries[j]] = [deliveries[j]!, deliveries[i]!];
  }
  return deliveries;
}

/** How a burst was answered: first deliveries accepted, duplicates answered as such, non-2xx answers retried. */
export interface BurstAnswers {
  accepted: number;
  duplicate: number;
  retried: number;
}

/**
 * Sends signed lab `deliveries` to `url` from `concurrency` senders. A delivery that gets no 2xx
 * (connection refused while the server is down, a 503) is retried by its sender with a growing pause
 * (50 ms a attempt, at most 500 ms) until it does, within `deadlineMs` (default 90 s). A 200 must say
 * `accepted` or `duplicate`. `afterEach(n)` runs after the n-th delivery got its 2xx, holding that
 * sender while it runs (to kill or restart processes at set points). Returns the answers' counts.
 */
export async function sendLikeAProvider(
  url: string,
  deliveries: string[],
  options: { concurrency: number; afterEach?: (sent: number) => Promise<void>; deadlineMs?: number },
): Promise<BurstAnswers> {
  const answers: BurstAnswers = { accepted: 0, duplicate: 0, retried: 0 };
  const deadline = Date.now() + (options.deadlineMs ?? 90_000);
  let next = 0;
  let sent = 0;
  async function sender(): Promise<void> {
    for (;;) {
      const index = next++;
      if (index >= deliveries.length) return;
      for (let attempt = 1; ; attempt++) {
        const answer = await postLab(url, deliveries[index]!).catch(() => ({ status: 0, json: { outcome: "network error", reason: "" } }));
        if (answer.status === 200) {
          if (answer.json.outcome === "accepted") answers.accepted++;
          else if (answer.json.outcome === "duplicate") answers.duplicate++;
          else throw new Error(`unexpected answer ${JSON.stringify(answer.json)}`);
          break;
        }
        answers.retried++;
        assert.ok(Date.now() < deadline, `delivery ${index} kept failing: ${answer.status} ${answer.json.reason}`);
        await new Promise((resolve) => setTimeout(resolve, Math.min(50 * attempt, 500)));
      }
      await options.afterEach?.(++sent);
    }
  }
  await Promise.all(Array.from({ length: options.concurrency }, sender));
  return answers;
}
