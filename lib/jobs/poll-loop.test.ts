// The poll loop yields to timers and signal handlers between steps, even when every step finds work
// and completes without any I/O (a backlog on SQLite): a stop() asked from a timer is honoured at once.
import assert from "node:assert/strict";
import { test } from "node:test";
import { PollLoop } from "@/lib/jobs/poll-loop";

test("a stop asked from a timer while every step finds work ends the loop after the step in hand", async () => {
  let steps = 0;
  let stepsWhenAsked = -1;
  // Without a yield the loop would only see the timer after 200,000 steps, when it runs out of work.
  const loop = new PollLoop("test", async () => ++steps < 200_000, 10);
  loop.start();
  await new Promise<void>((resolve) => {
    setTimeout(() => {
      stepsWhenAsked = steps;
      void loop.stop().then(resolve);
    }, 5);
  });
  assert.ok(stepsWhenAsked > 0 && stepsWhenAsked < 200_000, `the timer ran after ${stepsWhenAsked} steps`);
  assert.ok(steps - stepsWhenAsked <= 1, `${steps - stepsWhenAsked} steps ran after the stop was asked`);
});

test("failing steps back off: the interval doubles per failure in a row, capped, and a success resets it", async () => {
  const startedAt: number[] = [];
  let failing = true;
  const loop = new PollLoop(
    "test",
    async () => {
      startedAt.push(Date.now());
      if (failing) throw new Error("database is locked");
      return false;
    },
    20,
  );
  loop.start();
  // Steps at 0, 40, 120, 280 and 600 ms (waits of 40, 80, 160, 320): 5 steps in ~650 ms, where a
  // fixed 20 ms interval would have made about 30.
  await new Promise((resolve) => setTimeout(resolve, 650));
  const failed = startedAt.length;
  assert.ok(failed >= 4 && failed <= 6, `${failed} failing steps in 650 ms`);
  const gaps = startedAt.slice(1).map((at, i) => at - startedAt[i]);
  assert.ok(gaps.every((gap, i) => gap >= 20 * 2 ** (i + 1) - 5), `waits ${gaps.join(", ")} ms`);
  failing = false;
  loop.wake();
  await new Promise((resolve) => setTimeout(resolve, 150));
  const afterSuccess = startedAt.length - failed;
  // Back to the plain 20 ms interval once a step succeeds: several steps in 150 ms.
  assert.ok(afterSuccess >= 4, `${afterSuccess} steps in the 150 ms after a success`);
  await loop.stop();
});
