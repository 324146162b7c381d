import { closeDbWithin } from "@/lib/db/client";
import { logger } from "@/lib/log/logger";
import { errorMessage } from "@/lib/log/error-message";

/**
 * Makes a long-running CLI process (receiver, worker, reconciliation worker) stop cleanly: on the first
 * SIGTERM or SIGINT (and, with `onDisconnect`, when its parent's IPC channel closes) it logs
 * `"<name> stopping"`, awaits `stop` (finish the work in hand, claim nothing new), closes the database
 * (waiting 10 s at most) and exits 0. A later signal while stopping is ignored; a `stop` or close that throws is logged and
 * the process exits 1, so a supervisor sees the failure. With `onDisconnect`, a channel that closed
 * before this call (the parent died while this process was still loading its modules: Node emitted
 * "disconnect" to no listener) begins the stop at once, so the process is never left running orphaned.
 * `exit` receives the status instead of process.exit (a command's main resolves with it; its runner exits).
 */
export function exitOnStop(name: string, stop: () => Promise<unknown>, options: { onDisconnect?: boolean; exit?: (status: number) => void } = {}): void {
  const exit = options.exit ?? ((status: number) => process.exit(status));
  let exiting = false;
  const begin = (why: string) => {
    if (exiting) return;
    exiting = true;
    logger.info({ why }, `${name} stopping`);
    stop()
      .then(() => closeDbWithin())
      .then(
        () => exit(0),
        (error: unknown) => {
          logger.error({ err: errorMessage(error) }, `${name}: stopping failed`);
          exit(1);
        },
      );
  };
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => begin(signal));
  if (options.onDisconnect) {
    process.on("disconnect", () => begin("the parent process went away"));
    if (process.send && !process.connected) begin("the parent process went away before this one started");
  }
}
