// The reconciliation worker a server starts beside itself (lib/background/reconciliation-process.ts),
// so a large run's parsing and database work use another event loop, another core and another database
// connection than the webhooks the server answers. Not meant to be run by hand: `npm run worker` runs
// every worker, this one included. Woken by the server on an upload (an IPC message), else polls.
// Stops cleanly on SIGTERM/SIGINT or when the server goes away (the IPC channel closes): the run in hand
// goes back to the queue at its next batch, then it exits 0.
import { notifyWork } from "@/lib/jobs/signals";
import { readSettingsOrExit } from "@/lib/config/settings";
import { exitOnStop } from "@/lib/background/exit-on-stop";
import { db } from "@/lib/db/client";
import { isPostgresUrl } from "@/lib/db/url";
import { logger } from "@/lib/log/logger";
import { driverOf } from "@/lib/db/driver";
import { shareWriteLock, type RunPacing } from "@/lib/reconciliation/payment-run";
import { ReconciliationWorker } from "@/lib/reconciliation/reconciliation-worker";

/** Write transactions of a run between two WAL checkpoints (a few MB of pages). */
const CHECKPOINT_EVERY = 8;

let worker: ReconciliationWorker | undefined;
let stopRequested = false;
// Before any await: a server that dies while this process is still starting closes the IPC channel, and
// a listener added later would never hear it (the process would run on, orphaned).
exitOnStop(
  "reconciliation worker",
  async () => {
    stopRequested = true;
    await worker?.stop();
  },
  { onDisconnect: true },
);

async function main(): Promise<void> {
  const config = readSettingsOrExit("Acredita reconciliation worker");
  const sqlite = !isPostgresUrl(config.DATABASE_URL);
  if (sqlite) {
    // This connection writes only a run's staging rows, mismatches and progress: without an fsync per
    // commit (WAL, synchronous=NORMAL: atomic, and durable at the next checkpoint) each batch holds
    // SQLite's single write lock for microseconds instead of an fsync, so the server's webhook
    // transactions are not kept waiting. A power cut may lose a run's last batches: its lease then
    // ends and it is run again, or failed when its report was already removed.
    await (await db()).$executeRawUnsafe("PRAGMA synchronous = NORMAL");
  }
  // On SQLite the batches leave the one write lock free at least half of the time (shareWriteLock), and
  // this process checkpoints the WAL its batches grow: otherwise SQLite's automatic checkpoint runs in
  // whichever connection commits past 1,000 pages, often a webhook's, which then copies megabytes of
  // the run's pages into the database before it is answered.
  // On PostgreSQL there is no single write lock, but the same pause after each batch leaves the CPU
  // (this process and its backend's: 2 cores shared with the server and its webhooks) to the server at
  // least half of the time a run writes.
  let writes = 0;
  const driver = driverOf(await db());
  const pacing: RunPacing = async (heldMs) => {
    if (sqlite && ++writes % CHECKPOINT_EVERY === 0) await driver.all("PRAGMA wal_checkpoint(PASSIVE)");
    await shareWriteLock(heldMs);
  };
  if (stopRequested) return;
  worker = new ReconciliationWorker(db, { pacing });
  worker.start();
  logger.info({ reconciliationWorker: worker.owner, where: "reconciliation process" }, "reconciliation worker started");
  process.on("message", (message) => {
    if (message === "wake") notifyWork("reconciliation");
  });
}

main().catch((error: unknown) => {
  console.error(`reconciliation worker: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
