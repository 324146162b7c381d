import Database from "better-sqlite3";
import { acreditaCounts, benchFolder, createBenchDatabase, labApprovals, seedOrders, type SignedDelivery } from "@/bench/bench-data";
import { startAcredita, startBaseline, startReceiverProcess } from "@/bench/bench-processes";
import { postDeliveries, type LoadResult } from "@/bench/post-deliveries";

/** The duplicate storm's result: the load figures and what the database says was applied. */
export interface StormMeasurement extends LoadResult {
  target: "inline" | "inbox" | "receiver" | "naive";
  events: number;
  copies: number;
  connections: number;
  /** Credits found after the storm (Acredita: ledger entries; naive: its ledger rows). Must equal `events`. */
  applied: number;
  /** Orders paid after the storm (Acredita only). */
  paidOrders: number | null;
  /** Minor units credited beyond what the orders cost (0 when exactly-once held). */
  overcredited: number;
  ok: boolean;
}

/** Waits (at most 10 minutes) until the database holds `credits` ledger entries. */
async function waitForCredits(file: string, credits: number): Promise<void> {
  const deadline = Date.now() + 600_000;
  while (Date.now() < deadline && acreditaCounts(file).ledger < credits) await new Promise((resolve) => setTimeout(resolve, 250));
}

/**
 * The storm's delivery order: each event's `copies` identical deliveries (same body, same signature)
 * are consecutive, so with many connections they arrive at the same moment, the way a provider's
 * retries and fan-out collide. Returns `events * copies` deliveries.
 */
export function stormDeliveries(events: number, copies: number): SignedDelivery[] {
  const distinct = labApprovals("evt_s", "ord_s", events, 2_500);
  return distinct.flatMap((delivery) => Array.from({ length: copies }, () => delivery));
}

/**
 * Duplicate storm: `events` distinct approvals, each delivered `copies` times, over
 * `connections` concurrent clients, to Acredita's production build (inline, or inbox with its
 * in-process worker), to `npm run receiver` (inbox; afterwards the production build's worker applies
 * what it stored), or to the naive receiver, to show what happens without dedupe. Checks the database:
 * exactly `events` credits, each order paid once.
 */
export async function measureDuplicateStorm(target: "inline" | "inbox" | "receiver" | "naive", options: { events: number; copies: number; connections: number; env?: Record<string, string> }): Promise<StormMeasurement> {
  const folder = benchFolder(`storm-${target}`);
  const file = createBenchDatabase(folder);
  seedOrders(file, "ord_s", options.events, 2_500);
  seedOrders(file, "ord_w", 200, 2_500);
  const server =
    target === "naive"
      ? await startBaseline("naive", file)
      : target === "receiver"
        ? await startReceiverProcess(file, { LAB_PROCESSING_MODE: "inbox", ...options.env })
        : await startAcredita(file, { LAB_PROCESSING_MODE: target, ...options.env });
  let load: LoadResult;
  try {
    await postDeliveries(server.url, labApprovals("evt_w", "ord_w", 200, 2_500), 8);
    load = await postDeliveries(server.url, stormDeliveries(options.events, options.copies), options.connections);
    if (target === "inbox") await waitForCredits(file, options.events + 200);
  } finally {
    await server.stop();
  }
  if (target === "receiver") {
    // The receiver only stores: the production build's in-process worker applies the inbox.
    const applier = await startAcredita(file, { LAB_PROCESSING_MODE: "inbox", INBOX_WORKER_IN_PROCESS: "true" });
    try {
      await waitForCredits(file, options.events + 200);
    } finally {
      await applier.stop();
    }
  }
  if (target === "naive") {
    const database = new Database(file, { readonly: true });
    const applied = (database.prepare(`SELECT COUNT(*) AS n FROM BenchLedger WHERE orderId LIKE 'ord_s%'`).get() as { n: number }).n;
    database.close();
    return { target, ...load, events: options.events, copies: options.copies, connections: options.connections, applied, paidOrders: null, overcredited: (applied - options.events) * 2_500, ok: applied === options.events };
  }
  const database = new Database(file, { readonly: true });
  const applied = (database.prepare(`SELECT COUNT(*) AS n FROM LedgerEntry WHERE orderId LIKE 'ord_s%'`).get() as { n: number }).n;
  const paidOrders = (database.prepare(`SELECT COUNT(*) AS n FROM "Order" WHERE id LIKE 'ord_s%' AND status = 'paid'`).get() as { n: number }).n;
  const credited = (database.prepare(`SELECT COALESCE(SUM(amount), 0) AS n FROM LedgerEntry WHERE orderId LIKE 'ord_s%'`).get() as { n: number }).n;
  database.close();
  const overcredited = credited - options.events * 2_500;
  return { target, ...load, events: options.events, copies: options.copies, connections: options.connections, applied, paidOrders, overcredited, ok: applied === options.events && paidOrders === options.events && overcredited === 0 };
}
