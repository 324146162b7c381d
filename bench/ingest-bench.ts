import Database from "better-sqlite3";
import { acreditaCounts, benchFolder, createBenchDatabase, labApprovals, seedOrders } from "@/bench/bench-data";
import { startAcredita, startBaseline, startReceiverProcess, type BenchServer } from "@/bench/bench-processes";
import { getRepeatedly, postDeliveries, type LoadResult } from "@/bench/post-deliveries";

/**
 * Who receives: the bare yardsticks, or Acredita's production build: inline (store and apply before
 * answering), inbox (store and answer; the in-process worker switched off, so this is the receiving
 * path alone) or inbox+worker (the default set-up: the worker applies in the same process meanwhile).
 * `route` is the floor under every webhook route: the same build answering GET /api/health/live, a
 * route handler that reads nothing. `receiver` is inbox mode through `npm run receiver`, the dedicated
 * receiver process (no Next.js in the path; no worker).
 */
export type IngestTarget = "limit" | "naive" | "route" | "inline" | "inbox" | "inbox+worker" | "receiver";

/** One measured ingest run, plus the database check that every delivery did what it should. */
export interface IngestMeasurement extends LoadResult {
  target: IngestTarget;
  /** The rows the target should have written (events, ledger entries or both), counted after the run. */
  check: { expected: number; found: number; ok: boolean; detail: string };
}

export interface IngestOptions {
  deliveries: number;
  connections: number;
  /** Deliveries sent first and not measured (JIT warm-up, first database pages). */
  warmup: number;
  /** Write a V8 CPU profile of Acredita's server process here. */
  cpuProfDir?: string;
  /** Extra environment for Acredita (e.g. the worker switch in inbox mode). */
  env?: Record<string, string>;
}

async function waitForInboxDrain(file: string, expected: number): Promise<void> {
  const deadline = Date.now() + 600_000;
  while (Date.now() < deadline) {
    const database = new Database(file, { readonly: true });
    const done = (database.prepare(`SELECT COUNT(*) AS n FROM WebhookEvent WHERE status IN ('processed', 'ignored')`).get() as { n: number }).n;
    database.close();
    if (done >= expected) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Measures the ingest of `deliveries` signed, distinct lab approvals (each pays its own order) posted
 * with autocannon to `target` on a fresh SQLite database (WAL, synchronous=FULL everywhere). Acredita
 * runs its production build (`next start`). Afterwards counts what was written: every delivery must be
 * one stored event (limit), one ledger entry (naive), one event + one credit + one paid order
 * (inline; inbox+worker after the worker drained them), or one stored `received` event (inbox).
 */
export async function measureIngest(target: IngestTarget, options: IngestOptions): Promise<IngestMeasurement> {
  const folder = benchFolder(`ingest-${target}`);
  const file = createBenchDatabase(folder);
  const total = options.warmup + options.deliveries;
  seedOrders(file, "ord_w", options.warmup, 2_500);
  seedOrders(file, "ord_m", options.deliveries, 2_500);

  let server: BenchServer;
  if (target === "limit" || target === "naive") server = await startBaseline(target, file);
  else if (target === "receiver") server = await startReceiverProcess(file, { LAB_PROCESSING_MODE: "inbox", ...options.env }, options.cpuProfDir);
  else {
    const mode: Record<string, string> = target === "inline" ? { LAB_PROCESSING_MODE: "inline" } : { LAB_PROCESSING_MODE: "inbox", INBOX_WORKER_IN_PROCESS: target === "inbox+worker" ? "true" : "false" };
    if (target === "route") mode.INBOX_WORKER_IN_PROCESS = "false";
    server = await startAcredita(file, { ...mode, ...options.env }, options.cpuProfDir);
  }
  let load: LoadResult;
  if (target === "route") {
    try {
      await getRepeatedly(server.url, "/api/health/live", options.warmup, Math.min(options.connections, 8));
      load = await getRepeatedly(server.url, "/api/health/live", options.deliveries, options.connections);
    } finally {
      await server.stop();
    }
    const ok = load.statusCounts["200"] === options.deliveries;
    return { target, ...load, check: { expected: options.deliveries, found: load.statusCounts["200"] ?? 0, ok, detail: `${load.statusCounts["200"] ?? 0} answers 200 (no database work)` } };
  }
  try {
    await postDeliveries(server.url, labApprovals("evt_w", "ord_w", options.warmup, 2_500), Math.min(options.connections, 8));
    load = await postDeliveries(server.url, labApprovals("evt_m", "ord_m", options.deliveries, 2_500), options.connections);
    if (target === "inbox+worker") await waitForInboxDrain(file, total);
  } finally {
    await server.stop();
  }

  let check: IngestMeasurement["check"];
  if (target === "limit" || target === "naive") {
    const database = new Database(file, { readonly: true });
    const table = target === "limit" ? "BenchEvent" : "BenchLedger";
    const found = (database.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    database.close();
    check = { expected: total, found, ok: found === total, detail: `${found} ${table} rows` };
  } else if (target === "inbox" || target === "receiver") {
    const database = new Database(file, { readonly: true });
    const received = (database.prepare(`SELECT COUNT(*) AS n FROM WebhookEvent WHERE status = 'received'`).get() as { n: number }).n;
    database.close();
    const counts = acreditaCounts(file);
    const ok = received === total && counts.events === total && counts.decisions >= total && counts.ledger === 0;
    check = { expected: total, found: received, ok, detail: `${received} events stored (received), ${counts.decisions} decisions, ${counts.ledger} credits (worker off)` };
  } else {
    const counts = acreditaCounts(file);
    const ok = counts.events === total && counts.ledger === total && counts.paidOrders === total && counts.decisions >= total;
    check = { expected: total, found: counts.ledger, ok, detail: `${counts.events} events, ${counts.ledger} credits, ${counts.paidOrders} paid orders, ${counts.decisions} decisions` };
  }
  return { target, ...load, check };
}
