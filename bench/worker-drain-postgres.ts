import { spawn, type ChildProcess } from "node:child_process";
import { BENCH_API_TOKEN, BENCH_SECRET } from "@/bench/bench-data";
import type { LoadResult } from "@/bench/post-deliveries";
import { fillInbox } from "@/bench/worker-drain";
import { startThrowawayCluster } from "@/lib/db/postgres-cluster";
import { applyPostgresMigrations, createDatabase, withConnection } from "@/lib/db/postgres-database";

/** One drain on PostgreSQL with `workers` worker processes. */
export interface PostgresDrainRun {
  workers: number;
  /** Events applied per second between the first and the last `processedAt`. */
  perSecond: number;
  wallSeconds: number;
  check: { ok: boolean; detail: string };
}

export interface PostgresDrainMeasurement {
  events: number;
  fill: LoadResult;
  runs: PostgresDrainRun[];
}

async function counts(url: string): Promise<{ processed: number; first: number | null; last: number | null; ledger: number; paid: number }> {
  return withConnection(url, async (client) => {
    const events = await client.query(`SELECT COUNT(*)::int AS n, MIN("processedAt") AS first, MAX("processedAt") AS last FROM "WebhookEvent" WHERE status = 'processed'`);
    const ledger = await client.query(`SELECT COUNT(*)::int AS n FROM "LedgerEntry"`);
    const paid = await client.query(`SELECT COUNT(*)::int AS n FROM "Order" WHERE status = 'paid'`);
    const row = events.rows[0] as { n: number; first: Date | null; last: Date | null };
    return { processed: row.n, first: row.first?.getTime() ?? null, last: row.last?.getTime() ?? null, ledger: (ledger.rows[0] as { n: number }).n, paid: (paid.rows[0] as { n: number }).n };
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

/**
 * Worker drain on PostgreSQL: a throwaway cluster made durable (fsync, synchronous_commit and
 * full_page_writes on, like SQLite's synchronous=FULL), `events` approvals posted to the production
 * build in inbox mode with the worker off, then, for each count in `workerCounts`, a copy of that filled
 * database (CREATE DATABASE ... TEMPLATE) drained by that many `scripts/worker.ts` processes. Checks
 * that every event was applied once: one credit and one paid order each.
 */
export async function measurePostgresDrain(events: number, connections: number, workerCounts: number[]): Promise<PostgresDrainMeasurement> {
  const cluster = await startThrowawayCluster({ maxConnections: 100 });
  // An interrupted benchmark must not leave a PostgreSQL server behind.
  const onSignal = () => {
    cluster.stop();
    process.exit(130);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    await withConnection(cluster.url, async (client) => {
      // The throwaway cluster is made fast for tests; a benchmark beside SQLite's synchronous=FULL must not be.
      for (const setting of ["fsync = on", "synchronous_commit = on", "full_page_writes = on"]) await client.query(`ALTER SYSTEM SET ${setting}`);
      await client.query("SELECT pg_reload_conf()");
    });
    const filledUrl = await createDatabase(cluster.url, "bench_filled");
    await applyPostgresMigrations(filledUrl);
    await withConnection(filledUrl, (client) =>
      client.query(`INSERT INTO "Order" (id, amount, currency, "updatedAt") SELECT 'ord_d' || g, 2500, 'ARS', now() FROM generate_series(0, $1::int - 1) AS g`, [events]),
    );
    const durable = await withConnection(filledUrl, async (client) => (await client.query("SHOW fsync")).rows[0] as { fsync: string });
    if (durable.fsync !== "on") throw new Error("PostgreSQL fsync is not on");

    const fill = await fillInbox(filledUrl, events, connections);

    const runs: PostgresDrainRun[] = [];
    for (const workers of workerCounts) {
      const url = await createDatabase(cluster.url, `bench_drain_${workers}`, "bench_filled");
      const started = Date.now();
      const children = Array.from({ length: workers }, () =>
        spawn(process.execPath, ["--import", "tsx", "scripts/worker.ts"], {
          env: { ...process.env, DATABASE_URL: url, LAB_WEBHOOK_SECRET: BENCH_SECRET, API_TOKEN: BENCH_API_TOKEN, LAB_PROCESSING_MODE: "inbox", LOG_LEVEL: "info", LOG_FILE: "" },
          stdio: ["ignore", "ignore", "ignore"],
        }),
      );
      let state = await counts(url);
      try {
        const deadline = Date.now() + 1_800_000;
        while (state.processed < events) {
          if (children.every((child) => child.exitCode !== null)) throw new Error("every worker exited before the inbox was drained");
          if (Date.now() > deadline) throw new Error(`inbox not drained in 30 min: ${state.processed} of ${events}`);
          await new Promise((resolve) => setTimeout(resolve, 250));
          state = await counts(url);
        }
      } finally {
        await Promise.all(children.map(stop));
      }
      const span = state.first !== null && state.last !== null ? Math.max(0.001, (state.last - state.first) / 1_000) : (Date.now() - started) / 1_000;
      const ok = state.ledger === events && state.paid === events;
      runs.push({
        workers,
        perSecond: Math.round((events / span) * 10) / 10,
        wallSeconds: Math.round((Date.now() - started) / 100) / 10,
        check: { ok, detail: `${state.processed} processed, ${state.ledger} credits, ${state.paid} paid orders` },
      });
    }
    return { events, fill, runs };
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    cluster.stop();
  }
}

