import { spawnSync } from "node:child_process";
import { createWriteStream, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { once } from "node:events";
import { benchFolder, createBenchDatabase } from "@/bench/bench-data";
import { generateScaleData, type ScaleData } from "@/bench/scale-data";

/** One reconciliation of the big settlement, as `npm run reconcile` ran it. */
export interface ReconcileMeasurement {
  data: ScaleData;
  csvRows: number;
  csvMb: number;
  seconds: number;
  peakRssMb: number;
  cpuSeconds: number;
  exitCode: number | null;
  rowCount: number;
  orderCount: number;
  mismatches: number;
  /** The mismatches the generator planted (the report must find exactly these). */
  expectedMismatches: number;
}

/**
 * Writes the provider's settlement for the generated orders (bench/scale-data.ts): one row per
 * order, `approved` for paid ones, `refunded`, or `none`, and a wrong `approved` for every 997th
 * created order (a planted mismatch). Streams to disk. Returns the number of planted mismatches.
 */
async function writeSettlement(file: string, orders: number): Promise<number> {
  const out = createWriteStream(file);
  let planted = 0;
  const write = async (line: string) => {
    if (!out.write(line)) await once(out, "drain");
  };
  await write("order_id,provider_status,amount,currency\n");
  const currencies = ["ARS", "ARS", "ARS", "USD", "BRL"];
  for (let i = 0; i < orders; i++) {
    const roll = i % 10;
    let status = roll < 7 ? "approved" : roll < 8 ? "refunded" : "none";
    if (status === "none" && i % 997 === 0) {
      status = "approved";
      planted++;
    }
    const amount = status === "none" ? 0 : 1_000 + ((i * 7919) % 5_000_000);
    await write(`ord_${String(i).padStart(6, "0")},${status},${amount},${currencies[i % currencies.length]}\n`);
  }
  out.end();
  await once(out, "finish");
  return planted;
}

/**
 * Reconciliation at scale: `orders` orders with their ledger, a settlement CSV with one row
 * per order, then `npm run reconcile -- <csv> --json`'s command as a child process (what an operator
 * runs, heap limit included), timed, with its peak RSS read from the process itself on exit. Target: < 60 s and < 400 MB for 1,000,000.
 */
export async function measureReconciliation(orders: number): Promise<ReconcileMeasurement> {
  const folder = benchFolder("reconcile");
  const file = createBenchDatabase(folder);
  const data = generateScaleData(file, { orders, decisionsPerOrder: 0 });
  const csv = path.join(folder, "settlement.csv");
  const expectedMismatches = await writeSettlement(csv, orders);
  const rssFile = path.join(folder, "rss.json");

  // Exactly the command `npm run reconcile` runs (package.json), with the RSS reporter preloaded.
  const script = (JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> }).scripts.reconcile.split(/\s+/);
  if (script[0] !== "node") throw new Error(`package.json scripts.reconcile must start with node: ${script.join(" ")}`);
  const started = performance.now();
  // The reporter is TypeScript: it goes after the script's own `--import tsx`, just before the entry file.
  const args = [...script.slice(1, -1), "--import", "./bench/report-peak-rss.ts", script[script.length - 1], csv, "--json"];
  const run = spawnSync(process.execPath, args, {
    env: { ...process.env, DATABASE_URL: `file:${file}`, BENCH_RSS_FILE: rssFile, LOG_LEVEL: "warn" },
    encoding: "utf8",
    maxBuffer: 512 * 1024 * 1024,
  });
  const seconds = (performance.now() - started) / 1_000;
  if ((run.status !== 0 && run.status !== 1) || !run.stdout.trim().startsWith("{")) throw new Error(`reconcile exited ${run.status}: ${run.stderr.slice(-2_000)}`);
  const report = JSON.parse(run.stdout) as { rowCount: number; orderCount: number; mismatches: unknown[] };
  const usage = JSON.parse(readFileSync(rssFile, "utf8")) as { peakRssMb: number; cpuSeconds: number };
  return {
    data,
    csvRows: orders,
    csvMb: Math.round(statSync(csv).size / 1024 / 1024),
    seconds: Math.round(seconds * 10) / 10,
    peakRssMb: usage.peakRssMb,
    cpuSeconds: Math.round(usage.cpuSeconds * 10) / 10,
    exitCode: run.status,
    rowCount: report.rowCount,
    orderCount: report.orderCount,
    mismatches: report.mismatches.length,
    expectedMismatches,
  };
}
