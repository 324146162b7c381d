// The poll loop yields to timers and signal handlers between steps, even when every step finds work
// and completes without any I/O (a backlog on SQLite): a stop() asked from a timer is honoured at once.
import assert from "node:assert/strict";
import { test } from "node:test";
import { PollLoop } from "@/lib/background/poll-loop";

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
