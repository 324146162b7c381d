import { spawn } from "node:child_process";
import Database from "better-sqlite3";
import { acreditaCounts, BENCH_API_TOKEN, BENCH_SECRET, benchFolder, createBenchDatabase, labApprovals, seedOrders } from "@/bench/bench-data";
import { startAcredita } from "@/bench/bench-processes";
import { postDeliveries, type LoadResult } from "@/bench/post-deliveries";

/** The worker-drain result: how the inbox was filled, and how fast one worker applied it. */
export interface DrainMeasurement {
  events: number;
  /** The fill: deliveries posted to the inbox-mode receiver with the worker off. */
  fill: LoadResult;
  workers: number;
  /** Events applied per second between the first and the last `processedAt` (worker start-up excluded). */
  perSecond: number;
  /** From starting the worker process to the inbox being empty, seconds (start-up included). */
  wallSeconds: number;
  check: { ok: boolean; detail: string };
}

function processed(file: string): { done: number; first: number | null; last: number | null } {
  const database = new Database(file, { readonly: true });
  try {
    const row = database.prepare(`SELECT COUNT(*) AS n, MIN(processedAt) AS first, MAX(processedAt) AS last FROM WebhookEvent WHERE status = 'processed'`).get() as { n: number; first: string | null; last: string | null };
    return { done: row.n, first: row.first ? Date.parse(row.first) : null, last: row.last ? Date.parse(row.last) : null };
  } finally {
    database.close();
  }
}

/**
 * Fills the inbox of `database` (a SQLite file or a postgresql:// URL; orders `ord_d0..` seeded) with
 * `events` signed approvals through the production build in inbox mode, its worker off, so they all
 * wait. Returns the fill's load figures; throws when any delivery was not accepted.
 */
export async function fillInbox(database: string, events: number, connections: number): Promise<LoadResult> {
  const server = await startAcredita(database, { LAB_PROCESSING_MODE: "inbox", INBOX_WORKER_IN_PROCESS: "false" });
  let fill: LoadResult;
  try {
    fill = await postDeliveries(server.url, labApprovals("evt_d", "ord_d", events, 2_500), connections);
  } finally {
    await server.stop();
  }
  if (fill.non2xx + fill.errors > 0) throw new Error(`filling the inbox: ${fill.non2xx} non-2xx answers, ${fill.errors} errors`);
  return fill;
}

/**
 * Worker drain: fills the inbox with `events` signed approvals through the production build in
 * inbox mode (in-process worker off, so they all wait), stops it, then starts ONE `npm run worker`
 * process (its command: scripts/worker.ts) on the same SQLite file and measures how fast it applies
 * them. Checks: every event processed, one credit and one paid order each.
 */
export async function measureWorkerDrain(events: number, connections: number): Promise<DrainMeasurement> {
  const folder = benchFolder("drain");
  const file = createBenchDatabase(folder);
  seedOrders(file, "ord_d", events, 2_500);
  const fill = await fillInbox(file, events, connections);

  const started = Date.now();
  const worker = spawn(process.execPath, ["--import", "tsx", "scripts/worker.ts"], {
    env: { ...process.env, DATABASE_URL: `file:${file}`, LAB_WEBHOOK_SECRET: BENCH_SECRET, API_TOKEN: BENCH_API_TOKEN, LAB_PROCESSING_MODE: "inbox", LOG_LEVEL: "info", LOG_FILE: "" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  worker.stderr!.on("data", (chunk) => (stderr += chunk));
  let state = processed(file);
  try {
    const deadline = Date.now() + 1_800_000;
    while (state.done < events) {
      if (worker.exitCode !== null) throw new Error(`worker exited (${worker.exitCode}): ${stderr.slice(-2_000)}`);
      if (Date.now() > deadline) throw new Error(`inbox not drained in 30 min: ${state.done} of ${events}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
      state = processed(file);
    }
  } finally {
    await new Promise<void>((resolve) => {
      if (worker.exitCode !== null) return resolve();
      worker.once("exit", () => resolve());
      worker.kill("SIGTERM");
    });
  }
  const wallSeconds = (Date.now() - started) / 1_000;
  const counts = acreditaCounts(file);
  const ok = counts.ledger === events && counts.paidOrders === events && counts.events === events;
  const spanSeconds = state.first !== null && state.last !== null ? Math.max(0.001, (state.last - state.first) / 1_000) : wallSeconds;
  return {
    events,
    fill,
    workers: 1,
    perSecond: Math.round((events / spanSeconds) * 10) / 10,
    wallSeconds: Math.round(wallSeconds * 10) / 10,
    check: { ok, detail: `${counts.events} events, ${counts.ledger} credits, ${counts.paidOrders} paid orders, ${counts.decisions} decisions` },
  };
}
