import Database from "better-sqlite3";
import { acreditaCounts, benchFolder, createBenchDatabase, labApprovals, seedOrders } from "@/lib/bench/bench-data";
import { startAcredita, startBaseline, type BenchServer } from "@/lib/bench/bench-processes";
import { postDeliveries, type LoadResult } from "@/lib/bench/post-deliveries";

/** Who receives: the bare yardsticks, or Acredita's production build in one of its modes. */
export type IngestTarget = "limit" | "naive" | "inline" | "inbox";

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
 * one stored event (limit), one ledger entry (naive), or one event + one credit + one paid order
 * (Acredita; in inbox mode after the worker drained them).
 */
export async function measureIngest(target: IngestTarget, options: IngestOptions): Promise<IngestMeasurement> {
  const folder = benchFolder(`ingest-${target}`);
  const file = createBenchDatabase(folder);
  const total = options.warmup + options.deliveries;
  seedOrders(file, "ord_w", options.warmup, 2_500);
  seedOrders(file, "ord_m", options.deliveries, 2_500);

  let server: BenchServer;
  if (target === "limit" || target === "naive") server = await startBaseline(target, file);
  else server = await startAcredita(file, { LAB_PROCESSING_MODE: target, ...options.env }, options.cpuProfDir);
  let load: LoadResult;
  try {
    await postDeliveries(server.url, labApprovals("evt_w", "ord_w", options.warmup, 2_500), Math.min(options.connections, 8));
    load = await postDeliveries(server.url, labApprovals("evt_m", "ord_m", options.deliveries, 2_500), options.connections);
    if (target === "inbox") await waitForInboxDrain(file, total);
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
  } else {
    const counts = acreditaCounts(file);
    const ok = counts.events === total && counts.ledger === total && counts.paidOrders === total && counts.decisions >= total;
    check = { expected: total, found: counts.ledger, ok, detail: `${counts.events} events, ${counts.ledger} credits, ${counts.paidOrders} paid orders, ${counts.decisions} decisions` };
  }
  return { target, ...load, check };
}
