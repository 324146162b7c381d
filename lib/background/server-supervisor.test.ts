import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import { test } from "node:test";
import { exitStatusOf, restartDelayMs, serverRestarts, superviseServer, type RestartPolicy } from "@/lib/background/server-supervisor";

/** A stand-in for the server process: exits when told, records the signals it was sent. */
class FakeServer extends EventEmitter {
  readonly signals: string[] = [];
  kill(signal: NodeJS.Signals): boolean {
    this.signals.push(signal);
    return true;
  }
  die(code: number | null, signal: NodeJS.Signals | null): void {
    this.emit("exit", code, signal);
  }
}

const FAST: RestartPolicy = { baseDelayMs: 1, maxDelayMs: 4, healthyAfterMs: 60_000, maxQuickDeaths: 3 };
const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

test("the wait doubles for each death in a row from 0.5 s and stops at 30 s", () => {
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 8].map((deaths) => restartDelayMs(deaths)), [500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
});

test("an exit status is the process's code, or 128 + the signal's number", () => {
  assert.deepEqual([exitStatusOf({ code: 3, signal: null }), exitStatusOf({ code: null, signal: "SIGKILL" }), exitStatusOf({ code: null, signal: "SIGTERM" })], [3, 137, 143]);
});

test("a dead server is started again, with the count of restarts; after maxQuickDeaths + 1 quick deaths in a row it gives up with the last status", async () => {
  const started: number[] = [];
  const servers: FakeServer[] = [];
  const logs: string[] = [];
  const exits: number[] = [];
  superviseServer(
    (restarts) => {
      started.push(restarts);
      const server = new FakeServer();
      servers.push(server);
      return server as unknown as ChildProcess;
    },
    { log: (line) => logs.push(line), exit: (status) => exits.push(status), policy: FAST },
  );
  for (let death = 0; death < 4; death++) {
    servers.at(-1)!.die(null, "SIGKILL");
    await tick();
  }
  assert.deepEqual(started, [0, 1, 2, 3]);
  assert.deepEqual(exits, [137]);
  assert.equal(logs.length, 4);
  assert.match(logs[0], /^Acredita: the server process exited \(signal SIGKILL\) after \d+\.\d s; restarting it in 0\.0 s \(restart 1\)\.$/);
  assert.match(logs[3], /exited \(signal SIGKILL\) 4 times in a row, each within 60 s of starting; giving up\.$/);
});

test("a stop passes the signal to the server and exits with its status; a stop while waiting to restart exits at once", async () => {
  const servers: FakeServer[] = [];
  const exits: number[] = [];
  const stop = superviseServer(
    () => {
      const server = new FakeServer();
      servers.push(server);
      return server as unknown as ChildProcess;
    },
    { log: () => undefined, exit: (status) => exits.push(status), policy: { ...FAST, baseDelayMs: 10_000, maxDelayMs: 10_000 } },
  );
  stop("SIGTERM");
  assert.deepEqual(servers[0].signals, ["SIGTERM"]);
  servers[0].die(143, null);
  assert.deepEqual(exits, [143]);
  assert.equal(servers.length, 1, "no restart after a stop");

  const waiting: FakeServer[] = [];
  const waitingExits: number[] = [];
  const stopWaiting = superviseServer(
    () => {
      const server = new FakeServer();
      waiting.push(server);
      return server as unknown as ChildProcess;
    },
    { log: () => undefined, exit: (status) => waitingExits.push(status), policy: { ...FAST, baseDelayMs: 10_000, maxDelayMs: 10_000 } },
  );
  waiting[0].die(1, null);
  stopWaiting("SIGINT");
  assert.deepEqual(waitingExits, [130]);
  await tick();
  assert.equal(waiting.length, 1);
});

test("the restart count the server reads is a whole number, 0 when unset or malformed", () => {
  assert.deepEqual([serverRestarts({ ACREDITA_SERVER_RESTARTS: "2" }), serverRestarts({}), serverRestarts({ ACREDITA_SERVER_RESTARTS: "x" })], [2, 0, 0]);
});
