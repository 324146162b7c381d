import type { ChildProcess } from "node:child_process";

/** The environment variable through which `npm start` tells the server how many times it was restarted (the metrics read it). */
export const SERVER_RESTARTS_ENV = "ACREDITA_SERVER_RESTARTS";

/** How the supervisor waits between restarts. */
export interface RestartPolicy {
  /** Wait before the first restart after a run that lasted (ms). */
  baseDelayMs: number;
  /** The wait doubles for each death in a row, up to this (ms). */
  maxDelayMs: number;
  /** A run that lasted at least this long (ms) was healthy: the next wait starts again from the base. */
  healthyAfterMs: number;
  /** After this many deaths in a row, each before `healthyAfterMs`, the supervisor gives up and exits with the last status (a server that cannot start is a supervisor's or an operator's problem, not a loop's). */
  maxQuickDeaths: number;
}

/** The policy of `npm start`: 0.5 s, doubling to 30 s; a minute of running resets it; a ninth quick death in a row gives up. */
export const SERVER_RESTART_POLICY: RestartPolicy = { baseDelayMs: 500, maxDelayMs: 30_000, healthyAfterMs: 60_000, maxQuickDeaths: 8 };

/**
 * The wait before restart number `quickDeaths` in a row (1 for the first death after a healthy run):
 * the base, doubled for each death in a row after the first, capped at the maximum.
 */
export function restartDelayMs(quickDeaths: number, policy: RestartPolicy = SERVER_RESTART_POLICY): number {
  return Math.min(policy.baseDelayMs * 2 ** Math.min(Math.max(quickDeaths - 1, 0), 30), policy.maxDelayMs);
}

/** How a server process ended, as Node reports it. */
export interface ServerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** The exit status of a process that ends the way `exit` says (128 + signal number for a signal, as a shell reports it). */
export function exitStatusOf(exit: ServerExit): number {
  if (exit.code !== null) return exit.code;
  const numbers: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGABRT: 6, SIGKILL: 9, SIGSEGV: 11, SIGTERM: 15 };
  return 128 + (exit.signal ? (numbers[exit.signal] ?? 1) : 1);
}

/**
 * Keeps one server process running: `spawnServer(restarts)` starts it (`restarts`: how many times it
 * was restarted before, for its metrics); when it dies without having been asked to stop (a crash,
 * SIGKILL, the kernel's OOM killer, V8's heap limit), it is started again after
 * {@link restartDelayMs}, and `log` says why and when. SIGTERM and SIGINT to this process are passed
 * to the server, and once it has exited `exit` is called with its status (unchanged from before the
 * supervisor: 143 after a SIGTERM that Next.js handles). After `policy.maxQuickDeaths` deaths in a
 * row that each came before `policy.healthyAfterMs`, it gives up and calls `exit` with the last status.
 * Returns a function that stops it as a signal would (for tests).
 */
export function superviseServer(
  spawnServer: (restarts: number) => ChildProcess,
  options: { log: (line: string) => void; exit: (status: number) => void; policy?: RestartPolicy; now?: () => number },
): (signal: NodeJS.Signals) => void {
  const policy = options.policy ?? SERVER_RESTART_POLICY;
  const now = options.now ?? Date.now;
  let restarts = 0;
  let quickDeaths = 0;
  let stopping: NodeJS.Signals | null = null;
  let timer: NodeJS.Timeout | undefined;
  let current: ChildProcess | undefined;

  const start = (): void => {
    const startedAt = now();
    const child = spawnServer(restarts);
    current = child;
    child.on("exit", (code, signal) => {
      current = undefined;
      const exit = { code, signal };
      // Asked to stop: the server's own status, as before (a signal-ended server reads as 0, as it did).
      if (stopping) return options.exit(code ?? 0);
      const ranMs = now() - startedAt;
      quickDeaths = ranMs >= policy.healthyAfterMs ? 1 : quickDeaths + 1;
      const how = signal ? `signal ${signal}` : `status ${code}`;
      if (quickDeaths > policy.maxQuickDeaths) {
        options.log(`Acredita: the server process exited (${how}) ${policy.maxQuickDeaths + 1} times in a row, each within ${policy.healthyAfterMs / 1000} s of starting; giving up.`);
        return options.exit(exitStatusOf(exit));
      }
      const delay = restartDelayMs(quickDeaths, policy);
      restarts += 1;
      options.log(`Acredita: the server process exited (${how}) after ${(ranMs / 1000).toFixed(1)} s; restarting it in ${(delay / 1000).toFixed(1)} s (restart ${restarts}).`);
      timer = setTimeout(() => {
        timer = undefined;
        if (stopping) return options.exit(exitStatusOf({ code: null, signal: stopping }));
        start();
      }, delay);
    });
  };

  const stop = (signal: NodeJS.Signals): void => {
    stopping = signal;
    if (current) {
      current.kill(signal);
      return;
    }
    // Between a death and its restart: nothing runs, so stop now with the signal's status.
    if (timer) clearTimeout(timer);
    options.exit(exitStatusOf({ code: null, signal }));
  };
  start();
  return stop;
}

/** How many times `npm start` restarted this server process (from {@link SERVER_RESTARTS_ENV}; 0 when unset, e.g. a bare `next start`). */
export function serverRestarts(env: Record<string, string | undefined> = process.env): number {
  const value = Number(env[SERVER_RESTARTS_ENV]);
  return Number.isInteger(value) && value >= 0 ? value : 0;
}
