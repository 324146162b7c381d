// npm run bench [-- --runs 3 --deliveries 2000 --connections 32 --only ingest,storm,drain,drain-postgres,dashboard,reconcile,reconcile-load,profile,flood,attacks,limit
//                  --targets limit,naive,route,inline,inbox,inbox+worker,receiver --quick --keep
//                  --reconcile-lines 1000000 --reconcile-kinds matching,mismatching --reconcile-in-process --reconcile-postgres-url postgresql://... --reconcile-postgres-only
//                  --attack-targets server,next-start,receiver --attack-placements niced,process,bench
//                  --limit-events 20000 --limit-postgres-events 20000 --limit-worker-events 2000 --limit-inline 2000 --backlogs 20000,200000 --backlog-sample 1000 --no-inline --no-postgres]
// The temporary databases are deleted at the end (--keep keeps them); CPU profiles are kept (paths printed).
// Runs the benchmarks against the production build, prints the table and writes the figures as
// JSON to bench-results/ (git-ignored). Benchmarks, not tests: nothing here passes or fails on time;
// it exits non-zero only when a correctness check fails (a delivery lost, a duplicate applied).
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { removeBenchFolders } from "@/bench/bench-data";
import { ensureProductionBuild } from "@/bench/bench-processes";
import { summarizeCpuProfile, type ProfileSummary } from "@/bench/cpu-profile";
import { measureDashboardAtScale, type DashboardMeasurement } from "@/bench/dashboard-bench";
import { measureSearchOnPostgres } from "@/bench/search-postgres-bench";
import { measureDuplicateStorm, type StormMeasurement } from "@/bench/duplicate-storm";
import { measureActionFlood, measureFlood, measureSlowBodies, type AttackerPlacement, type AttackMeasurement, type FloodMeasurement } from "@/bench/flood-bench";
import { measureIngest, type IngestMeasurement, type IngestTarget } from "@/bench/ingest-bench";
import { machineInfo, median, type MachineInfo } from "@/bench/machine";
import { measureReconciliation, type ReconcileMeasurement } from "@/bench/reconcile-bench";
import { measureReconcileLoad, printReconcileLoad, type ReconcileLoadMeasurement } from "@/bench/reconcile-load-bench";
import { measureWorkerDrain, type DrainMeasurement } from "@/bench/worker-drain";
import { measurePostgresDrain, type PostgresDrainMeasurement } from "@/bench/worker-drain-postgres";
import { measureLimitBench, printLimitBench, profileWorkerDrain, type LimitBenchOptions, type LimitBenchReport } from "@/bench/limit-bench";
import { postgresBinDir } from "@/lib/db/postgres-cluster";
import { errorMessage } from "@/lib/log/error-message";

const SECTIONS = ["ingest", "storm", "drain", "drain-postgres", "dashboard", "reconcile", "reconcile-load", "profile", "flood", "attacks", "limit"] as const;
type Section = (typeof SECTIONS)[number];

interface BenchOptions {
  runs: number;
  deliveries: number;
  /** Deliveries per run for the two yardsticks, which are fast: enough for a run of several seconds. */
  yardstickDeliveries: number;
  connections: number;
  warmup: number;
  stormEvents: number;
  stormCopies: number;
  stormConnections: number;
  drainEvents: number;
  postgresWorkers: number[];
  dashboardOrders: number;
  decisionsPerOrder: number;
  reconcileOrders: number;
  /** The reconcile-load section: report lines, which reports (all matching, all mismatching), and the worker in the server's process instead of beside it. */
  reconcileLines: number;
  reconcileKinds: ("matching" | "mismatching")[];
  reconcileInProcess: boolean;
  /** `--reconcile-postgres-url`: the reconcile-load rows on PostgreSQL too (a database made on that cluster and dropped). */
  reconcilePostgresUrl?: string;
  /** `--reconcile-postgres-only`: with --reconcile-postgres-url, skip the SQLite rows. */
  reconcilePostgresOnly: boolean;
  /** Real deliveries timed in each flood phase (idle, then under the flood), and the unsigned posts per second. */
  floodDeliveries: number;
  floodRate: number;
  /** Each flood phase stops after this many seconds even if not every delivery was sent. */
  floodSeconds: number;
  /** `--flood-targets next,receiver`: the servers flooded. */
  floodTargets: ("next" | "receiver")[];
  /** `--attack-targets server,next-start,receiver`: the servers attacked (npm start's, a bare next start, the receiver); the action attack skips the receiver. */
  attackTargets: AttackMeasurement["target"][];
  /** `--attack-placements niced,process,bench`: where the attacking clients run (bench/flood-bench.ts AttackerPlacement). */
  attackPlacements: AttackerPlacement[];
  sections: Section[];
  targets: IngestTarget[];
  /** The `limit` section: the bare-SQL apply limit beside Acredita's worker and inline mode. */
  limit: Omit<LimitBenchOptions, "runs" | "connections" | "warmup">;
}

const TARGETS: IngestTarget[] = ["limit", "naive", "route", "inline", "inbox", "inbox+worker", "receiver"];

/** `--targets limit,inbox`: the ingest targets to run (the limit always runs: every ratio is taken to it). */
function parseTargets(given: string | undefined): IngestTarget[] {
  if (given === undefined) return TARGETS;
  const names = given.split(",").map((name) => name.trim());
  for (const name of names) if (!TARGETS.includes(name as IngestTarget)) throw new Error(`--targets: unknown target ${name} (targets: ${TARGETS.join(", ")})`);
  return TARGETS.filter((target) => target === "limit" || names.includes(target));
}

function parseOptions(argv: string[]): BenchOptions {
  const value = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
  const number = (name: string, fallback: number) => {
    const given = value(name);
    if (given === undefined) return fallback;
    const parsed = Number(given);
    if (!Number.isInteger(parsed) || parsed < 1) throw new Error(`${name} must be a whole number >= 1`);
    return parsed;
  };
  const quick = argv.includes("--quick");
  const only = value("--only")?.split(",").map((name) => name.trim());
  for (const name of only ?? []) if (!SECTIONS.includes(name as Section)) throw new Error(`--only: unknown section ${name} (sections: ${SECTIONS.join(", ")})`);
  const options: BenchOptions = {
    runs: number("--runs", quick ? 1 : 3),
    deliveries: number("--deliveries", quick ? 300 : 2_000),
    yardstickDeliveries: number("--yardstick-deliveries", quick ? 300 : 10_000),
    connections: number("--connections", 32),
    warmup: number("--warmup", quick ? 50 : 500),
    stormEvents: number("--storm-events", quick ? 50 : 1_000),
    stormCopies: number("--storm-copies", 10),
    stormConnections: number("--storm-connections", 64),
    drainEvents: number("--drain-events", quick ? 300 : 20_000),
    postgresWorkers: (value("--postgres-workers") ?? "1,2,4").split(",").map((n) => {
      const workers = Number(n);
      if (!Number.isInteger(workers) || workers < 1 || workers > 16) throw new Error("--postgres-workers: whole numbers from 1 to 16, comma-separated");
      return workers;
    }),
    dashboardOrders: number("--dashboard-orders", quick ? 5_000 : 100_000),
    decisionsPerOrder: number("--decisions-per-order", 10),
    reconcileOrders: number("--reconcile-orders", quick ? 20_000 : 1_000_000),
    reconcileLines: number("--reconcile-lines", quick ? 50_000 : 1_000_000),
    reconcileKinds: (value("--reconcile-kinds") ?? "matching,mismatching").split(",").map((name) => {
      if (name !== "matching" && name !== "mismatching") throw new Error("--reconcile-kinds: matching and/or mismatching, comma-separated");
      return name;
    }),
    reconcileInProcess: argv.includes("--reconcile-in-process"),
    reconcilePostgresUrl: value("--reconcile-postgres-url"),
    reconcilePostgresOnly: argv.includes("--reconcile-postgres-only"),
    floodDeliveries: number("--flood-deliveries", quick ? 100 : 300),
    floodSeconds: number("--flood-seconds", quick ? 20 : 60),
    floodTargets: (value("--flood-targets") ?? "next,receiver").split(",").map((name) => {
      if (name !== "next" && name !== "receiver") throw new Error("--flood-targets: next and/or receiver, comma-separated");
      return name;
    }),
    floodRate: number("--flood-rate", 250),
    attackTargets: (value("--attack-targets") ?? "server,receiver").split(",").map((name) => {
      if (name !== "server" && name !== "next-start" && name !== "receiver") throw new Error("--attack-targets: server, next-start and/or receiver, comma-separated");
      return name;
    }),
    attackPlacements: (value("--attack-placements") ?? "niced,process").split(",").map((name) => {
      if (name !== "niced" && name !== "process" && name !== "bench") throw new Error("--attack-placements: niced, process and/or bench, comma-separated");
      return name;
    }),
    sections: (only as Section[] | undefined) ?? [...SECTIONS],
    targets: parseTargets(value("--targets")),
    limit: {
      events: number("--limit-events", quick ? 2_000 : 20_000),
      postgresEvents: number("--limit-postgres-events", number("--limit-events", quick ? 2_000 : 20_000)),
      workerEvents: number("--limit-worker-events", quick ? 300 : 2_000),
      inlineDeliveries: argv.includes("--no-inline") ? 0 : number("--limit-inline", quick ? 300 : 2_000),
      backlogs: (value("--backlogs") ?? (quick ? "2000,20000" : "20000,200000")).split(",").map((n) => {
        const size = Number(n);
        if (!Number.isInteger(size) || size < 1) throw new Error("--backlogs: whole numbers >= 1, comma-separated");
        return size;
      }),
      backlogSample: number("--backlog-sample", quick ? 300 : 1_000),
      postgres: !argv.includes("--no-postgres"),
    },
  };
  // The worker is timed until it applied that many: more than the inbox holds would wait forever.
  const { limit } = options;
  if (limit.workerEvents > limit.events || (limit.postgres && limit.workerEvents > limit.postgresEvents)) {
    throw new Error(`--limit-worker-events (${limit.workerEvents}) must not exceed --limit-events (${limit.events})${limit.postgres ? ` or --limit-postgres-events (${limit.postgresEvents})` : ""}`);
  }
  if (limit.backlogSample > Math.min(...limit.backlogs)) throw new Error(`--backlog-sample (${limit.backlogSample}) must not exceed the smallest of --backlogs (${Math.min(...limit.backlogs)})`);
  return options;
}

/** Median figures of one ingest target over the runs, with its ratio to the limit of the same run. */
interface IngestSummary {
  target: IngestTarget;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
  /** Median over runs of (this target's deliveries/s ÷ the limit's, same run). */
  ofLimit: number;
  perRun: number[];
  checksOk: boolean;
}

interface BenchReport {
  startedAt: string;
  finishedAt?: string;
  machine: MachineInfo;
  note: string;
  options: BenchOptions;
  ingest?: { runs: IngestMeasurement[][]; summary: IngestSummary[] };
  storm?: StormMeasurement[];
  drain?: DrainMeasurement;
  drainPostgres?: PostgresDrainMeasurement | { skipped: string };
  dashboard?: DashboardMeasurement;
  reconcile?: ReconcileMeasurement;
  reconcileLoad?: ReconcileLoadMeasurement[];
  profile?: { mode: "inbox" | "inline" | "worker"; deliveries: number; summary: ProfileSummary }[];
  flood?: FloodMeasurement[];
  /** Per run: the action attack on each Next.js target, the slow-body attack on each target. */
  attacks?: { run: number; attack: "action" | "slow-bodies"; measurement: AttackMeasurement }[];
  limit?: LimitBenchReport;
}

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
const LABELS: Record<IngestTarget, string> = {
  limit: "limit: node:http + HMAC + 1 UNIQUE insert",
  naive: "naive: verify + apply, no dedupe",
  route: "floor: a route handler doing nothing",
  inline: "Acredita inline (next start)",
  inbox: "Acredita inbox, receiving only (worker off)",
  "inbox+worker": "Acredita inbox + in-process worker",
  receiver: "Acredita inbox, npm run receiver",
};

function summarizeIngest(runs: IngestMeasurement[][], targets: IngestTarget[]): IngestSummary[] {
  return targets.map((target) => {
    const mine = runs.map((run) => run.find((m) => m.target === target)!);
    const ratios = runs.map((run) => run.find((m) => m.target === target)!.perSecond / run.find((m) => m.target === "limit")!.perSecond);
    return {
      target,
      perSecond: round(median(mine.map((m) => m.perSecond))),
      p50Ms: median(mine.map((m) => m.p50Ms)),
      p99Ms: median(mine.map((m) => m.p99Ms)),
      errors: mine.reduce((sum, m) => sum + m.errors, 0),
      non2xx: mine.reduce((sum, m) => sum + m.non2xx, 0),
      ofLimit: round(median(ratios), 3),
      perRun: mine.map((m) => round(m.perSecond)),
      checksOk: mine.every((m) => m.check.ok),
    };
  });
}

function printIngest(summary: IngestSummary[], options: BenchOptions): void {
  console.log(`\nIngest: signed distinct deliveries (${options.yardstickDeliveries} per run to the yardsticks, ${options.deliveries} to Acredita), ${options.connections} connections, median of ${options.runs} run(s)`);
  console.log(`${"target".padEnd(44)} ${"deliv/s".padStart(8)} ${"p50 ms".padStart(7)} ${"p99 ms".padStart(7)} ${"errors".padStart(6)} ${"/limit".padStart(7)}  per run (deliv/s)   check`);
  for (const row of summary) {
    console.log(
      `${LABELS[row.target].padEnd(44)} ${row.perSecond.toFixed(1).padStart(8)} ${String(row.p50Ms).padStart(7)} ${String(row.p99Ms).padStart(7)} ${String(row.errors + row.non2xx).padStart(6)} ${row.ofLimit.toFixed(3).padStart(7)}  ${row.perRun.join(", ").padEnd(19)} ${row.checksOk ? "ok" : "FAILED"}`,
    );
  }
}

/** Prints a CPU profile's summary: busy time per `unit` (of `units`), the top categories, functions by self time, and the steps. */
function printProfile(title: string, summary: ProfileSummary, units: number, unit: string): void {
  console.log(`\n${title}: busy ${summary.busyMs} ms of ${summary.totalMs} ms, ${round(summary.busyMs / units, 2)} ms per ${unit}`);
  for (const category of summary.categories.slice(0, 9)) console.log(`  ${(category.share * 100).toFixed(1).padStart(5)}%  ${category.category}`);
  console.log("  busiest functions (self time):");
  for (const fn of summary.functions.slice(0, 10)) console.log(`  ${(fn.share * 100).toFixed(1).padStart(5)}%  ${fn.name} (${fn.where})`);
  console.log("  steps (inclusive time):");
  for (const step of summary.inclusive) console.log(`  ${(step.share * 100).toFixed(1).padStart(5)}%  ${step.step}`);
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const report: BenchReport = {
    startedAt: new Date().toISOString(),
    machine: machineInfo(),
    note: "Shared machine: other builds and tests may run at the same time, so absolute figures are noisy; ratios are measured within one run.",
    options,
  };
  console.log(`Acredita benchmarks on ${report.machine.cpu} (${report.machine.cores} cores, ${report.machine.memoryGb} GB, ${report.machine.os}, Node ${report.machine.node}); load ${report.machine.loadAtStart.join(" / ")}`);
  // Every section but the limit without inline posts to the production build.
  const needsBuild = options.sections.some((section) => section !== "limit") || options.limit.inlineDeliveries > 0;
  if (needsBuild) ensureProductionBuild(process.argv.includes("--build"));
  let failed = false;

  if (options.sections.includes("ingest")) {
    const runs: IngestMeasurement[][] = [];
    for (let run = 1; run <= options.runs; run++) {
      const measured: IngestMeasurement[] = [];
      for (const target of options.targets) {
        const deliveries = target === "limit" || target === "naive" || target === "route" ? options.yardstickDeliveries : options.deliveries;
        const measurement = await measureIngest(target, { deliveries, connections: options.connections, warmup: options.warmup });
        console.log(`  run ${run}: ${target.padEnd(6)} ${measurement.perSecond.toFixed(1)} deliveries/s, p50 ${measurement.p50Ms} ms, p99 ${measurement.p99Ms} ms, errors ${measurement.errors + measurement.non2xx}; ${measurement.check.detail}`);
        measured.push(measurement);
      }
      runs.push(measured);
    }
    const summary = summarizeIngest(runs, options.targets);
    report.ingest = { runs, summary };
    printIngest(summary, options);
    failed ||= summary.some((row) => !row.checksOk);
  }

  if (options.sections.includes("storm")) {
    report.storm = [];
    for (const target of ["inline", "receiver", "naive"] as const) {
      const storm = await measureDuplicateStorm(target, { events: options.stormEvents, copies: options.stormCopies, connections: options.stormConnections });
      report.storm.push(storm);
      if (target !== "naive") failed ||= !storm.ok;
    }
    console.log(`\nDuplicate storm: ${options.stormEvents} events x ${options.stormCopies} copies = ${options.stormEvents * options.stormCopies} deliveries, ${options.stormConnections} connections`);
    for (const storm of report.storm) {
      console.log(
        `  ${storm.target.padEnd(8)} ${storm.perSecond.toFixed(1)} deliveries/s, p50 ${storm.p50Ms} ms, p99 ${storm.p99Ms} ms, errors ${storm.errors + storm.non2xx}; applied ${storm.applied} of ${storm.events} events${storm.paidOrders === null ? "" : `, ${storm.paidOrders} orders paid`}, over-credited ${storm.overcredited} ARS minor units${storm.target === "naive" ? " (no dedupe: expected)" : storm.ok ? " - ok" : " - FAILED"}`,
      );
    }
  }

  if (options.sections.includes("drain")) {
    const drain = await measureWorkerDrain(options.drainEvents, options.connections);
    report.drain = drain;
    failed ||= !drain.check.ok;
    console.log(`\nWorker drain: ${drain.events} pending inbox events (filled at ${drain.fill.perSecond.toFixed(1)} deliveries/s, worker off), 1 worker process, SQLite`);
    console.log(`  ${drain.perSecond.toFixed(1)} events/s applied (first to last processedAt); ${drain.wallSeconds} s from worker start to empty inbox; ${drain.check.detail}${drain.check.ok ? " - ok" : " - FAILED"}`);
  }

  if (options.sections.includes("drain-postgres")) {
    if (postgresBinDir() === undefined) {
      report.drainPostgres = { skipped: "PostgreSQL binaries not found (PG_BIN or /usr/lib/postgresql/<version>/bin)" };
      console.log(`\nWorker drain on PostgreSQL: skipped (${report.drainPostgres.skipped})`);
    } else {
      const drain = await measurePostgresDrain(options.drainEvents, options.connections, options.postgresWorkers);
      report.drainPostgres = drain;
      failed ||= drain.runs.some((run) => !run.check.ok);
      console.log(`\nWorker drain on PostgreSQL (fsync, synchronous_commit on): ${drain.events} pending inbox events (filled at ${drain.fill.perSecond.toFixed(1)} deliveries/s, worker off)`);
      for (const run of drain.runs) console.log(`  ${String(run.workers).padStart(2)} worker(s): ${run.perSecond.toFixed(1)} events/s applied; ${run.wallSeconds} s wall; ${run.check.detail}${run.check.ok ? " - ok" : " - FAILED"}`);
    }
  }

  if (options.sections.includes("dashboard")) {
    const dashboard = await measureDashboardAtScale({ orders: options.dashboardOrders, decisionsPerOrder: options.decisionsPerOrder, repeats: 20 });
    report.dashboard = dashboard;
    console.log(`\nDashboard at scale: ${dashboard.data.orders} orders, ${dashboard.data.decisions} decisions, ${dashboard.data.ledgerEntries} ledger entries (generated in ${round(dashboard.data.seconds)} s)`);
    // The search on PostgreSQL too (its own trigram index), unless --no-postgres.
    if (options.limit.postgres) dashboard.queries.push(...(await measureSearchOnPostgres({ orders: options.dashboardOrders, repeats: 20 })));
    for (const timed of [...dashboard.http, ...dashboard.queries]) {
      console.log(`  ${timed.label.padEnd(60)} p50 ${String(timed.p50Ms).padStart(7)} ms  p90 ${String(timed.p90Ms).padStart(7)} ms${"status" in timed ? `  HTTP ${timed.status}` : ""}`);
    }
  }

  if (options.sections.includes("reconcile")) {
    const reconcile = await measureReconciliation(options.reconcileOrders);
    report.reconcile = reconcile;
    failed ||= reconcile.mismatches !== reconcile.expectedMismatches || reconcile.rowCount !== reconcile.csvRows;
    console.log(`\nReconciliation: ${reconcile.csvRows} settlement rows (${reconcile.csvMb} MB) against ${reconcile.orderCount} orders`);
    console.log(`  ${reconcile.seconds} s wall, ${reconcile.cpuSeconds} s CPU, peak RSS ${reconcile.peakRssMb} MB; ${reconcile.mismatches} mismatches found, ${reconcile.expectedMismatches} planted${reconcile.mismatches === reconcile.expectedMismatches ? " - ok" : " - FAILED"}`);
  }

  if (options.sections.includes("reconcile-load")) {
    report.reconcileLoad = [];
    const env: Record<string, string> = options.reconcileInProcess ? { RECONCILIATION_WORKER_PROCESS: "false" } : {};
    for (const postgresAdminUrl of [...(options.reconcilePostgresUrl && options.reconcilePostgresOnly ? [] : [undefined]), ...(options.reconcilePostgresUrl ? [options.reconcilePostgresUrl] : [])]) {
      for (const kind of options.reconcileKinds) report.reconcileLoad.push(await measureReconcileLoad({ lines: options.reconcileLines, matching: kind === "matching", idleDeliveries: 200, env, postgresAdminUrl }));
    }
    printReconcileLoad(report.reconcileLoad, options.reconcileInProcess);
    failed ||= report.reconcileLoad.some((m) => !m.ok);
  }

  if (options.sections.includes("profile")) {
    report.profile = [];
    for (const mode of ["inbox", "inline"] as const) {
      const folder = mkdtempSync(path.join(tmpdir(), "acredita-cpu-prof-"));
      const deliveries = Math.max(options.deliveries, 1_000);
      await measureIngest(mode, { deliveries, connections: options.connections, warmup: options.warmup, cpuProfDir: folder });
      const file = readdirSync(folder).find((name) => name.endsWith(".cpuprofile"));
      if (!file) continue;
      const summary = summarizeCpuProfile(path.join(folder, file));
      report.profile.push({ mode, deliveries, summary });
      printProfile(`CPU profile of Acredita's server, ${mode} ingest of ${deliveries} deliveries (${path.join(folder, file)})`, summary, deliveries + options.warmup, "delivery");
    }
    const drained = Math.max(options.limit.backlogSample, 3_000);
    const worker = await profileWorkerDrain(drained);
    const summary = summarizeCpuProfile(worker.file);
    report.profile.push({ mode: "worker", deliveries: drained, summary });
    printProfile(`CPU profile of one worker process draining ${drained} pending lab payments on SQLite (${worker.file}; ${worker.timing.perSecond}/s)`, summary, drained, "event");
  }

  if (options.sections.includes("flood")) {
    report.flood = [];
    // Counting with sampling (the default), then every refusal a decision row (what the receiver did before counting).
    const variants = [
      ["counted, 5 sampled per minute (default)", 5],
      ["every refusal a decision row (before)", 10_000],
    ] as const;
    for (const target of options.floodTargets) {
      for (const [label, samplePerMinute] of variants) {
        const flood = await measureFlood({ label, target, deliveries: options.floodDeliveries, perSecond: options.floodRate, gapMs: 20, samplePerMinute, maxSeconds: options.floodSeconds });
        report.flood.push(flood);
        console.log(`  ${target} ${label}: idle ${flood.idle.deliveries} deliveries p50 ${flood.idle.p50Ms} ms p99 ${flood.idle.p99Ms} ms; flood ${flood.flood.deliveries} deliveries p50 ${flood.flood.p50Ms} ms p99 ${flood.flood.p99Ms} ms`);
        if (samplePerMinute === 5) failed ||= !flood.ok;
      }
    }
    console.log(
      `\nUnsigned flood: up to ${options.floodDeliveries} real signed deliveries (at most ${options.floodSeconds} s per phase) one at a time (20 ms apart), idle and then under ${options.floodRate} unsigned posts/s (half to /lab, half to random unknown names); inline, SQLite`,
    );
    for (const flood of report.flood) {
      console.log(
        `  ${`${flood.target}: ${flood.label}`.padEnd(50)} idle (${flood.idle.deliveries}) p50 ${flood.idle.p50Ms} ms p99 ${flood.idle.p99Ms} ms; flood (${flood.flood.deliveries}) p50 ${flood.flood.p50Ms} ms p99 ${flood.flood.p99Ms} ms; ` +
          `p99 flood/idle ${flood.p99Ratio.toFixed(2)} (target <= 2${flood.p99Ratio <= 2 ? ", met" : ", NOT met"}); ${flood.floodPosts} posts at ${flood.floodPerSecond}/s${flood.floodSkipped ? ` (${flood.floodSkipped} skipped: 128 unanswered)` : ""} left ${flood.floodDecisionRows} decision rows, ${flood.countedRefusals} counted${flood.samplePerMinute !== 5 ? "" : flood.ok ? " - ok" : " - check FAILED"}`,
      );
    }
  }

  if (options.sections.includes("attacks")) {
    // Anonymous 9 MB server-action posts (refused before any decode; they used to take the server past its
    // heap) and 300 stalled 1 MiB bodies from one address; each run in the same order, ratios taken to the
    // idle phase of the same server in the same run.
    report.attacks = [];
    const attackRuns = options.runs;
    console.log(
      `\nAttacks: ${options.floodDeliveries} real signed deliveries per phase from 127.0.0.1 (at most ${options.floodSeconds} s), one at a time 20 ms apart, idle, then under each attack with its ` +
        `clients (127.0.0.3) placed ${options.attackPlacements.join(", ")}, then idle again; inline, SQLite; ${attackRuns} run(s)`,
    );
    for (let run = 1; run <= attackRuns; run++) {
      for (const target of options.attackTargets.filter((name) => name !== "receiver")) {
        const measurement = await measureActionFlood({ target: target as "server" | "next-start", attackers: 6, placements: options.attackPlacements, deliveries: options.floodDeliveries, gapMs: 20, maxSeconds: options.floodSeconds });
        report.attacks.push({ run, attack: "action", measurement });
        failed ||= !measurement.ok;
        printAttack(run, "6 anonymous 9 MB action posters", measurement);
      }
      for (const target of options.attackTargets) {
        const measurement = await measureSlowBodies({ target, stalled: 300, placements: options.attackPlacements, deliveries: options.floodDeliveries, gapMs: 20, maxSeconds: options.floodSeconds, readTimeoutMs: 10_000 });
        report.attacks.push({ run, attack: "slow-bodies", measurement });
        failed ||= !measurement.ok;
        printAttack(run, "300 stalled 1 MiB bodies", measurement);
      }
    }
    console.log("\nMedian p99 under attack / p99 idle over the runs (target <= 2):");
    const groups = new Map<string, number[]>();
    for (const { attack, measurement } of report.attacks) {
      for (const phase of measurement.phases) {
        const key = `${attack.padEnd(12)} ${measurement.target.padEnd(10)} attackers ${phase.placement}`;
        groups.set(key, [...(groups.get(key) ?? []), phase.p99Ratio]);
      }
    }
    for (const [key, ratios] of groups) console.log(`  ${key.padEnd(48)} ${median(ratios).toFixed(2)} (runs: ${ratios.map((ratio) => ratio.toFixed(2)).join(", ")})`);
  }

  if (options.sections.includes("limit")) {
    console.log(`\nApply limit: the bare-SQL apply of the worker's rows (bench/apply-limit.ts) beside Acredita, ${options.runs} run(s)`);
    const limit = await measureLimitBench({ ...options.limit, runs: options.runs, connections: options.connections, warmup: options.warmup });
    report.limit = limit;
    failed ||= !limit.checksOk;
    printLimitBench(limit);
  }

  if (process.argv.includes("--keep")) console.log("\nBenchmark databases kept (--keep): /tmp/acredita-bench-*");
  else removeBenchFolders();
  report.finishedAt = new Date().toISOString();
  mkdirSync("bench-results", { recursive: true });
  const out = path.join("bench-results", `bench-${report.startedAt.replace(/[:.]/g, "-")}.json`);
  writeFileSync(out, JSON.stringify(report, null, 2));
  writeFileSync(path.join("bench-results", "latest.json"), JSON.stringify(report, null, 2));
  console.log(`\nFigures written to ${out} (and bench-results/latest.json).`);
  return failed ? 1 : 0;
}

/** One attack measurement's lines: idle, each placement's phase with its ratio and how the attack was answered, idle after. */
function printAttack(run: number, what: string, measurement: AttackMeasurement): void {
  const latency = (name: string, value: { deliveries: number; p50Ms: number; p99Ms: number }) => `${name} (${value.deliveries}) p50 ${value.p50Ms} ms p99 ${value.p99Ms} ms`;
  const cpu = (value: number | undefined) => (value === undefined ? "?" : String(value));
  console.log(
    `  run ${run}, ${what}, ${measurement.target}: ${latency("idle", measurement.idle)} (CPU ms/s: server ${cpu(measurement.idleServerCpuMsPerS)}, bench ${measurement.idleBenchCpuMsPerS}); ` +
      `${latency("idle after", measurement.idleAfter)}${measurement.ok ? "" : " - check FAILED (server gone or a delivery not applied)"}`,
  );
  for (const phase of measurement.phases) {
    console.log(
      `    attackers ${phase.placement.padEnd(7)} ${latency("under attack", phase.flood)}; p99 attack/idle ${phase.p99Ratio.toFixed(2)} (target <= 2${phase.p99Ratio <= 2 ? ", met" : ", NOT met"}); ` +
        `CPU ms/s: server ${cpu(phase.serverCpuMsPerS)}, attackers ${phase.placement === "bench" ? "(in bench)" : cpu(phase.attackerCpuMsPerS)}, bench ${phase.benchCpuMsPerS}; ${phase.attack.sent} sent, answered ${JSON.stringify(phase.attack.answers)}`,
    );
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (!process.argv.includes("--keep")) removeBenchFolders();
    console.error(`bench: ${errorMessage(error)}`);
    process.exit(2);
  },
);
