import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { PollLoop } from "@/lib/jobs/poll-loop";
import { onWork } from "@/lib/jobs/signals";
import { workerIdPrefix } from "@/lib/jobs/worker-id";
import { settings } from "@/lib/config/settings";
import { db } from "@/lib/db/client";
import { errorMessage } from "@/lib/log/error-message";
import { logger } from "@/lib/log/logger";
import { failRunsHeldBy } from "@/lib/reconciliation/runs";
import { reasonRef } from "@/lib/reasons/reason-codes";

/** The reconciliation worker's own process, started by the server beside itself. */
export interface ReconciliationProcess {
  /** The child's pid (changes when it is restarted after a crash); undefined while it waits for a first run. */
  pid(): number | undefined;
  /** Asks the child to stop (SIGTERM: the run in hand goes back to the queue at its next batch) and resolves when it has exited. */
  stop(): Promise<void>;
}

/** The entry the child runs, from the app's folder (where `next start` and `npm start` run). */
export function reconciliationProcessEntry(cwd = process.cwd()): string {
  return path.join(cwd, "scripts", "reconciliation-worker.ts");
}

/**
 * The child's V8 heap: young generation semi-spaces of 2 MB instead of V8's default 16 MB (a run's
 * garbage is short-lived batches: it is then collected every few MB instead of every few tens of MB),
 * and the old generation capped at `maxHeapMb` (RECONCILIATION_WORKER_MAX_HEAP_MB, default 192: a run
 * holds one batch and its sums, tens of MB live; past the cap the child dies and is restarted, and the
 * run it held is failed with that reason, rather than growing the machine's memory).
 */
export function reconciliationProcessFlags(maxHeapMb: number): string[] {
  return ["--max-semi-space-size=2", `--max-old-space-size=${maxHeapMb}`];
}

/**
 * What V8 prints on stderr when a process dies at its heap cap ("FATAL ERROR: Reached heap limit
 * Allocation failed - JavaScript heap out of memory"), then it aborts (SIGABRT). Either phrase is enough.
 */
const OUT_OF_MEMORY = /Reached heap limit|JavaScript heap out of memory/;

/** The end of a child's stderr kept to recognise {@link OUT_OF_MEMORY} (V8 prints it last, after its GC trace). */
const STDERR_TAIL_CHARS = 4_096;

/** How long a stop waits for the child before killing it (ms): a batch takes well under a second. */
const STOP_TIMEOUT_MS = 20_000;
/** A child that exits on its own is started again after this long (ms), doubling up to a minute. */
const RESTART_DELAY_MS = 1_000;

/**
 * When the child starts: at once (the default), or only once there is a run for it (`waitForWork`): an
 * upload in this process (a wake on the "reconciliation" channel), or `hasWork()` true at one of its
 * polls every `pollIntervalMs` (a run queued by another process, or left by a worker that died). A
 * server that never reconciles then never holds the child's memory (a node process with its modules,
 * ~1.5 CPU s to start). Once started it stays.
 */
export interface ReconciliationProcessStart {
  hasWork: () => Promise<boolean>;
  pollIntervalMs: number;
}

/**
 * Starts the reconciliation worker in a child process (`node` with {@link RECONCILIATION_PROCESS_FLAGS}
 * `--import tsx scripts/reconciliation-worker.ts`, the server's environment, its own database connection), so a
 * large run's CPU (report parsing, batch statements) never runs on the event loop that answers
 * webhooks. Uploads in this process wake it at once (an IPC message on the "reconciliation" channel);
 * the child stops by itself when this process goes away. A child that dies is started again (after 1 s,
 * doubling up to a minute). When it died of memory exhaustion (its heap cap, seen on its stderr, which
 * is passed through) the run it held is failed at once with that reason (`run_worker_out_of_memory`):
 * the same report would exhaust it again, and each attempt held the other organizations' runs back;
 * after any other death its run is claimed again when its lease ends. With `waitForWork` the child is
 * started only once there is a run for it ({@link ReconciliationProcessStart}). Returns undefined when
 * the entry file is not there (a build copied without its sources): the caller then runs the worker in
 * process.
 */
export function startReconciliationProcess(options: { cwd?: string; env?: NodeJS.ProcessEnv; waitForWork?: ReconciliationProcessStart } = {}): ReconciliationProcess | undefined {
  const cwd = options.cwd ?? process.cwd();
  const entry = reconciliationProcessEntry(cwd);
  if (!existsSync(entry)) return undefined;
  let child: ChildProcess | undefined;
  let stopping = false;
  let delay = RESTART_DELAY_MS;
  let restartTimer: NodeJS.Timeout | undefined;
  const maxHeapMb = settings().RECONCILIATION_WORKER_MAX_HEAP_MB;
  const launch = () => {
    const started = Date.now();
    const spawned = spawn(process.execPath, [...reconciliationProcessFlags(maxHeapMb), "--import", "tsx", entry], { cwd, env: options.env ?? process.env, stdio: ["ignore", "inherit", "pipe", "ipc"] });
    child = spawned;
    logger.info({ pid: spawned.pid }, "reconciliation worker process started");
    let stderrTail = "";
    spawned.stderr?.on("data", (chunk: Buffer) => {
      process.stderr.write(chunk);
      stderrTail = (stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
    });
    spawned.once("exit", (code, signal) => {
      if (child === spawned) child = undefined;
      if (OUT_OF_MEMORY.test(stderrTail) && spawned.pid !== undefined) {
        const owner = workerIdPrefix("reconciliation", spawned.pid);
        logger.error({ pid: spawned.pid, signal, maxHeapMb }, "reconciliation worker process ran out of memory; failing the run it held");
        void db()
          .then((database) => failRunsHeldBy(database, owner, reasonRef("run_worker_out_of_memory", { heapMb: maxHeapMb })))
          .catch((error: unknown) => logger.error({ err: errorMessage(error) }, "could not fail the run of the reconciliation worker that ran out of memory"));
      }
      if (stopping) return;
      // Ran for a while: it was not a start-up failure, so the next restart is quick again.
      if (Date.now() - started > 60_000) delay = RESTART_DELAY_MS;
      logger.error({ code, signal, restartInMs: delay }, "reconciliation worker process exited; starting it again");
      restartTimer = setTimeout(launch, delay);
      restartTimer.unref();
      delay = Math.min(delay * 2, 60_000);
    });
    spawned.on("error", (error) => logger.error({ err: error.message }, "reconciliation worker process failed"));
  };
  let launched = false;
  let waiting: PollLoop | undefined;
  const launchOnce = () => {
    if (launched || stopping) return;
    launched = true;
    // Not awaited: this may run inside the loop's own step, which stop() waits for.
    void waiting?.stop();
    launch();
  };
  if (options.waitForWork) {
    const { hasWork, pollIntervalMs } = options.waitForWork;
    waiting = new PollLoop(
      "reconciliation-process-start",
      async () => {
        if (!launched && (await hasWork())) launchOnce();
        return false;
      },
      pollIntervalMs,
    );
    waiting.start();
  } else {
    launchOnce();
  }
  const unsubscribe = onWork("reconciliation", () => {
    // A child that is starting polls as soon as it is up: it needs no wake.
    if (!launched) launchOnce();
    else if (child?.connected) child.send("wake", () => undefined);
  });
  let stopped: Promise<void> | undefined;
  return {
    pid: () => child?.pid,
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        stopping = true;
        unsubscribe();
        void waiting?.stop();
        if (restartTimer) clearTimeout(restartTimer);
        const running = child;
        if (!running || running.exitCode !== null || running.signalCode !== null) return resolve();
        const kill = setTimeout(() => running.kill("SIGKILL"), STOP_TIMEOUT_MS);
        running.once("exit", () => {
          clearTimeout(kill);
          resolve();
        });
        running.kill("SIGTERM");
      });
      return stopped;
    },
  };
}
