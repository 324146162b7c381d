// `npm run bench -- --only limit`: Acredita's apply against the bare-SQL apply limit measured in the
// same run (bench/apply-limit.ts), on the same rows: the worker drain (SQLite and PostgreSQL) as a
// ratio to the batched limit, inline mode as a ratio to the per-event limit, and the worker's cost per
// event at two backlog sizes (the claim must not grow with the backlog).
import { spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { fillPostgresInbox, fillSqliteInbox, pendingInboxRows, runPostgresLimit, runSqliteLimit, seedPostgresOrders, type LimitRun } from "@/bench/apply-limit";
import { acreditaCounts, BENCH_API_TOKEN, BENCH_SECRET, benchFolder, createBenchDatabase, seedOrders } from "@/bench/bench-data";
import { measureIngest } from "@/bench/ingest-bench";
import { median } from "@/bench/machine";
import { postgresBinDir, startThrowawayCluster, type ThrowawayCluster } from "@/lib/db/postgres-cluster";
import { applyPostgresMigrations, createDatabase, withConnection } from "@/lib/db/postgres-database";
import { openSqlite } from "@/lib/db/client";
import { InboxWorker } from "@/lib/inbox/inbox-worker";
import { logger } from "@/lib/log/logger";

export interface LimitBenchOptions {
  runs: number;
  /** Pending events in the inbox each shape starts from. */
  events: number;
  /** The same on PostgreSQL (its durable commits are slow on a busy shared disk). */
  postgresEvents: number;
  /** Events the Acredita worker is timed over (from the same backlog of `events`), first to last processedAt. */
  workerEvents: number;
  /** Inline deliveries posted per run (0, `--no-inline`: inline not measured, and no production build needed). */
  inlineDeliveries: number;
  connections: number;
  warmup: number;
  /** Backlog sizes the worker's cost per event is measured at (e.g. 20,000 and 200,000). */
  backlogs: number[];
  /** Events timed at each backlog size. */
  backlogSample: number;
  postgres: boolean;
}

/** One run of the section: every figure measured back to back, so the ratios share the machine's state. */
export interface LimitBenchRun {
  sqlitePerEvent: LimitRun;
  sqliteBatched: LimitRun;
  sqliteWorker: WorkerTiming;
  inline?: { perSecond: number; ok: boolean };
  postgresPerEvent?: LimitRun;
  postgresBatched?: LimitRun;
  postgresWorker?: WorkerTiming;
  /** Worker cost per event at each backlog size: the worker process's wall time, and the drain's CPU in one process. */
  backlog: { backlog: number; timing: WorkerTiming; drain: DrainCost }[];
  load: number[];
}

export interface WorkerTiming {
  events: number;
  perSecond: number;
  msPerEvent: number;
  ok: boolean;
  detail: string;
}

/** The inbox drain's cost in one process (InboxWorker.runBatch, as the worker runs it) over a sample of a backlog. */
export interface DrainCost {
  events: number;
  /** Milliseconds of this process's CPU (user + system) per applied event. */
  cpuMsPerEvent: number;
  /** Milliseconds of wall time per applied event. */
  wallMsPerEvent: number;
  ok: boolean;
}

export interface LimitBenchReport {
  options: LimitBenchOptions;
  loadAtStart: number[];
  loadAtEnd: number[];
  runs: LimitBenchRun[];
  summary: Record<string, number | null>;
  checksOk: boolean;
}

const AMOUNT = 2_500;
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
const load = () => os.loadavg().map((value) => round(value, 2));

/** A SQLite file with `events` pending approvals (and their orders), filled in chunks so 200,000 rows stay small in memory. */
function filledSqlite(label: string, events: number): string {
  const file = createBenchDatabase(benchFolder(label));
  const chunk = 20_000;
  for (let start = 0, part = 0; start < events; start += chunk, part++) {
    const count = Math.min(chunk, events - start);
    seedOrders(file, `ord_l${part}_`, count, AMOUNT);
    fillSqliteInbox(file, pendingInboxRows(`evt_l${part}_`, `ord_l${part}_`, count, AMOUNT, new Date(Date.now() - 60_000)));
  }
  // Fresh statistics, as a long-running database would have.
  const database = new Database(file);
  database.exec("ANALYZE");
  database.close();
  return file;
}

function copyOf(file: string, label: string): string {
  const copy = path.join(benchFolder(label), "acredita.db");
  copyFileSync(file, copy);
  return copy;
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

/**
 * Starts ONE `npm run worker` process (scripts/worker.ts) on `databaseUrl` and stops it once `count`
 * events are processed. Returns the rate between the first and the last processedAt (start-up
 * excluded) and the wall time per event. `progress` reads the processed count and times.
 */
async function timeWorker(
  databaseUrl: string,
  count: number,
  progress: () => Promise<{ done: number; first: number | null; last: number | null }>,
  nodeFlags: string[] = [],
): Promise<WorkerTiming> {
  const worker = spawn(process.execPath, [...nodeFlags, "--import", "tsx", "scripts/worker.ts"], {
    env: { ...process.env, DATABASE_URL: databaseUrl, LAB_WEBHOOK_SECRET: BENCH_SECRET, API_TOKEN: BENCH_API_TOKEN, LAB_PROCESSING_MODE: "inbox", LOG_LEVEL: "warn", LOG_FILE: "" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  worker.stderr!.on("data", (chunk) => (stderr = (stderr + chunk).slice(-4_000)));
  let state = await progress();
  try {
    const deadline = Date.now() + 1_800_000;
    while (state.done < count) {
      if (worker.exitCode !== null) throw new Error(`worker exited (${worker.exitCode}): ${stderr}`);
      if (Date.now() > deadline) throw new Error(`worker did not apply ${count} events in 30 min: ${state.done}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
      state = await progress();
    }
  } finally {
    await stop(worker);
  }
  state = await progress();
  const span = state.first !== null && state.last !== null ? Math.max(0.001, (state.last - state.first) / 1_000) : Number.NaN;
  // The first processedAt opens the span: events after it are the ones timed.
  const timed = Math.max(1, state.done - 1);
  return { events: state.done, perSecond: round(timed / span), msPerEvent: round((span * 1_000) / timed, 2), ok: state.done >= count, detail: `${state.done} processed` };
}

/**
 * Profiles ONE `npm run worker` process (node --cpu-prof) while it drains `events` pending lab payments
 * on SQLite, and returns the path of the `.cpuprofile` it wrote on exit (SIGTERM) with the timing.
 * Throws when the worker wrote no profile.
 */
export async function profileWorkerDrain(events: number): Promise<{ file: string; timing: WorkerTiming }> {
  const database = filledSqlite("profile-worker", events);
  const folder = benchFolder("profile-worker-cpu");
  const timing = await timeSqliteWorker(database, events, ["--cpu-prof", `--cpu-prof-dir=${folder}`]);
  // The profile is written as the process exits; give the file system a moment after the exit.
  for (let attempt = 0; attempt < 50; attempt++) {
    const file = readdirSync(folder).find((name) => name.endsWith(".cpuprofile"));
    if (file) return { file: path.join(folder, file), timing };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the worker wrote no CPU profile in ${folder}`);
}

/**
 * Drains `count` events of the SQLite backlog in `file` with the worker's own step
 * (InboxWorker.runBatch: the claim of INBOX_CLAIM_BATCH due events and their apply in one transaction)
 * in this process, and measures its CPU and wall time per event. CPU time is what the drain costs; on a
 * shared machine it is far steadier than the wall time of a separate process. `ok` when every claimed
 * event was applied.
 */
async function drainCost(file: string, count: number): Promise<DrainCost> {
  const database = await openSqlite(`file:${file}`, 5_000);
  // As the timed worker process runs (LOG_LEVEL=warn): a decision line per event is not the drain's cost.
  const level = logger.level;
  logger.level = "warn";
  try {
    const worker = new InboxWorker(async () => database, { owner: "bench-backlog" });
    let applied = 0;
    let claimed = 0;
    const cpu = process.cpuUsage();
    const started = process.hrtime.bigint();
    while (applied < count) {
      const results = await worker.runBatch();
      if (results.length === 0) break;
      claimed += results.length;
      applied += results.filter((result) => result.kind === "applied").length;
    }
    const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
    const used = process.cpuUsage(cpu);
    return { events: applied, cpuMsPerEvent: round((used.user + used.system) / 1_000 / applied, 3), wallMsPerEvent: round(wallMs / applied, 3), ok: applied >= count && applied === claimed };
  } finally {
    logger.level = level;
    await database.$disconnect();
  }
}

/** Reads the worker's progress on a SQLite file through one read-only connection kept open (closed by `close`). */
function sqliteProgress(file: string) {
  let database: Database.Database | undefined;
  let statement: Database.Statement | undefined;
  const read = async () => {
    database ??= new Database(file, { readonly: true, timeout: 5_000 });
    statement ??= database.prepare(`SELECT COUNT(*) AS n, MIN("processedAt") AS first, MAX("processedAt") AS last FROM "WebhookEvent" WHERE "status" = 'processed'`);
    const row = statement.get() as { n: number; first: string | null; last: string | null };
    return { done: row.n, first: row.first ? Date.parse(row.first) : null, last: row.last ? Date.parse(row.last) : null };
  };
  return Object.assign(read, { close: () => database?.close() });
}

async function timeSqliteWorker(file: string, count: number, nodeFlags: string[] = []): Promise<WorkerTiming> {
  const progress = sqliteProgress(file);
  try {
    return await timeWorker(`file:${file}`, count, progress, nodeFlags);
  } finally {
    progress.close();
  }
}

function postgresProgress(url: string) {
  return () =>
    withConnection(url, async (client) => {
      const row = (await client.query(`SELECT COUNT(*)::int AS n, MIN("processedAt") AS first, MAX("processedAt") AS last FROM "WebhookEvent" WHERE "status" = 'processed'`)).rows[0] as { n: number; first: Date | null; last: Date | null };
      return { done: row.n, first: row.first?.getTime() ?? null, last: row.last?.getTime() ?? null };
    });
}

/** The limit's rows are right: every event applied once (one credit, one paid order, one decision, one delivery each). */
function sqliteLimitOk(file: string, run: LimitRun, events: number): boolean {
  const counts = acreditaCounts(file);
  return run.events === events && counts.ledger === events && counts.paidOrders === events && counts.decisions === events;
}

async function postgresCounts(url: string): Promise<{ ledger: number; paid: number; decisions: number }> {
  return withConnection(url, async (client) => {
    const n = async (sql: string) => ((await client.query(sql)).rows[0] as { n: number }).n;
    return { ledger: await n(`SELECT COUNT(*)::int AS n FROM "LedgerEntry"`), paid: await n(`SELECT COUNT(*)::int AS n FROM "Order" WHERE status = 'paid'`), decisions: await n(`SELECT COUNT(*)::int AS n FROM "Decision"`) };
  });
}

/** A durable throwaway PostgreSQL cluster (fsync, synchronous_commit, full_page_writes on) with a migrated, filled template database. */
async function filledPostgres(events: number): Promise<{ cluster: ThrowawayCluster; template: string }> {
  const cluster = await startThrowawayCluster({ maxConnections: 50 });
  try {
    await withConnection(cluster.url, async (client) => {
      for (const setting of ["fsync = on", "synchronous_commit = on", "full_page_writes = on"]) await client.query(`ALTER SYSTEM SET ${setting}`);
      await client.query("SELECT pg_reload_conf()");
    });
    const url = await createDatabase(cluster.url, "limit_filled");
    await applyPostgresMigrations(url);
    const chunk = 20_000;
    for (let start = 0, part = 0; start < events; start += chunk, part++) {
      const count = Math.min(chunk, events - start);
      await seedPostgresOrders(url, `ord_l${part}_`, count, AMOUNT);
      await fillPostgresInbox(url, pendingInboxRows(`evt_l${part}_`, `ord_l${part}_`, count, AMOUNT, new Date(Date.now() - 60_000)));
    }
    await withConnection(url, (client) => client.query(`VACUUM ANALYZE`));
    return { cluster, template: "limit_filled" };
  } catch (error) {
    cluster.stop();
    throw error;
  }
}

/**
 * Runs the section: per run, the SQLite limit per event and batched, the Acredita worker over
 * `workerEvents` of the same backlog, inline ingest, the same three on PostgreSQL, and the worker's
 * cost per event at each backlog size. Returns every run and the medians with their ratios.
 */
export async function measureLimitBench(options: LimitBenchOptions, log: (line: string) => void = console.log): Promise<LimitBenchReport> {
  const loadAtStart = load();
  const sqliteTemplate = filledSqlite("limit-template", options.events);
  const backlogTemplates = options.backlogs.map((size) => ({ size, file: filledSqlite(`limit-backlog-${size}`, size) }));
  const postgres = options.postgres && postgresBinDir() !== undefined ? await filledPostgres(options.postgresEvents) : undefined;
  const onSignal = () => {
    postgres?.cluster.stop();
    process.exit(130);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const runs: LimitBenchRun[] = [];
  let checksOk = true;
  try {
    for (let run = 1; run <= options.runs; run++) {
      const perEventFile = copyOf(sqliteTemplate, "limit-per-event");
      const sqlitePerEvent = runSqliteLimit(perEventFile, 1);
      const batchedFile = copyOf(sqliteTemplate, "limit-batched");
      const sqliteBatched = runSqliteLimit(batchedFile, 64);
      checksOk &&= sqliteLimitOk(perEventFile, sqlitePerEvent, options.events) && sqliteLimitOk(batchedFile, sqliteBatched, options.events);
      const workerFile = copyOf(sqliteTemplate, "limit-worker");
      const sqliteWorker = await timeSqliteWorker(workerFile, options.workerEvents);
      checksOk &&= sqliteWorker.ok;
      log(`  run ${run}: SQLite limit per event ${round(sqlitePerEvent.perSecond)}/s, batched ${round(sqliteBatched.perSecond)}/s; Acredita worker ${sqliteWorker.perSecond}/s over ${sqliteWorker.events} events`);
      const entry: LimitBenchRun = { sqlitePerEvent, sqliteBatched, sqliteWorker, backlog: [], load: [] };

      if (options.inlineDeliveries > 0) {
        const inline = await measureIngest("inline", { deliveries: options.inlineDeliveries, connections: options.connections, warmup: options.warmup });
        entry.inline = { perSecond: inline.perSecond, ok: inline.check.ok };
        checksOk &&= inline.check.ok;
        log(`  run ${run}: Acredita inline ${round(inline.perSecond)} deliveries/s (${inline.check.detail})`);
      }

      if (postgres) {
        const copy = async (label: string) => createDatabase(postgres.cluster.url, `limit_${label}_${run}`, postgres.template);
        const perEventUrl = await copy("per_event");
        entry.postgresPerEvent = await runPostgresLimit(perEventUrl, 1);
        const batchedUrl = await copy("batched");
        entry.postgresBatched = await runPostgresLimit(batchedUrl, 64);
        for (const [url, limit] of [[perEventUrl, entry.postgresPerEvent], [batchedUrl, entry.postgresBatched]] as const) {
          const counts = await postgresCounts(url);
          checksOk &&= limit.events === options.postgresEvents && counts.ledger === options.postgresEvents && counts.paid === options.postgresEvents && counts.decisions === options.postgresEvents;
        }
        const workerUrl = await copy("worker");
        entry.postgresWorker = await timeWorker(workerUrl, options.workerEvents, postgresProgress(workerUrl));
        checksOk &&= entry.postgresWorker.ok;
        log(`  run ${run}: PostgreSQL limit per event ${round(entry.postgresPerEvent.perSecond)}/s, batched ${round(entry.postgresBatched.perSecond)}/s; Acredita worker ${entry.postgresWorker.perSecond}/s`);
      }

      // Alternate which size goes first, so a change of the machine's load does not favour one size.
      for (const { size, file } of run % 2 === 1 ? backlogTemplates : [...backlogTemplates].reverse()) {
        const timing = await timeSqliteWorker(copyOf(file, `limit-backlog-${size}-run`), options.backlogSample);
        const drain = await drainCost(copyOf(file, `limit-backlog-${size}-drain`), options.backlogSample);
        checksOk &&= timing.ok && drain.ok;
        entry.backlog.push({ backlog: size, timing, drain });
        log(`  run ${run}: at a ${size}-event backlog: worker process ${timing.msPerEvent} ms per event (${timing.perSecond}/s over ${timing.events}); drain in one process ${drain.cpuMsPerEvent} ms CPU, ${drain.wallMsPerEvent} ms wall per event over ${drain.events}`);
      }
      entry.load = load();
      runs.push(entry);
    }
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    postgres?.cluster.stop();
  }

  const med = (pick: (run: LimitBenchRun) => number | undefined): number | null => {
    const values = runs.map(pick).filter((value): value is number => value !== undefined && Number.isFinite(value));
    return values.length === runs.length && values.length > 0 ? median(values) : null;
  };
  const backlogMs = (size: number) => med((run) => run.backlog.find((b) => b.backlog === size)?.timing.msPerEvent);
  const [small, large] = [Math.min(...options.backlogs), Math.max(...options.backlogs)];
  const summary: Record<string, number | null> = {
    sqlitePerEventLimit: med((run) => run.sqlitePerEvent.perSecond),
    sqliteBatchedLimit: med((run) => run.sqliteBatched.perSecond),
    sqliteWorker: med((run) => run.sqliteWorker.perSecond),
    sqliteWorkerOfBatchedLimit: med((run) => run.sqliteWorker.perSecond / run.sqliteBatched.perSecond),
    inline: med((run) => run.inline?.perSecond),
    inlineOfPerEventLimit: med((run) => (run.inline ? run.inline.perSecond / run.sqlitePerEvent.perSecond : undefined)),
    postgresPerEventLimit: med((run) => run.postgresPerEvent?.perSecond),
    postgresBatchedLimit: med((run) => run.postgresBatched?.perSecond),
    postgresWorker: med((run) => run.postgresWorker?.perSecond),
    postgresWorkerOfBatchedLimit: med((run) => (run.postgresWorker && run.postgresBatched ? run.postgresWorker.perSecond / run.postgresBatched.perSecond : undefined)),
    backlogSmall: small,
    backlogLarge: large,
    msPerEventSmallBacklog: backlogMs(small),
    msPerEventLargeBacklog: backlogMs(large),
    largeOverSmallBacklog: med((run) => backlogRatio(run, small, large, (b) => b.timing.msPerEvent)),
    cpuMsPerEventSmallBacklog: med((run) => run.backlog.find((b) => b.backlog === small)?.drain.cpuMsPerEvent),
    cpuMsPerEventLargeBacklog: med((run) => run.backlog.find((b) => b.backlog === large)?.drain.cpuMsPerEvent),
    largeOverSmallBacklogCpu: med((run) => backlogRatio(run, small, large, (b) => b.drain.cpuMsPerEvent)),
  };
  return { options, loadAtStart, loadAtEnd: load(), runs, summary, checksOk };
}

/** The large backlog's cost per event over the small one's in one run, by `pick`; undefined when a size is missing. */
function backlogRatio(run: LimitBenchRun, small: number, large: number, pick: (entry: LimitBenchRun["backlog"][number]) => number): number | undefined {
  const a = run.backlog.find((b) => b.backlog === small);
  const b = run.backlog.find((entry) => entry.backlog === large);
  return a !== undefined && b !== undefined ? pick(b) / pick(a) : undefined;
}

/** Prints the section's table: medians of the runs, each Acredita figure as a ratio to its limit of the same run. */
export function printLimitBench(report: LimitBenchReport, log: (line: string) => void = console.log): void {
  const { summary: s, options: o } = report;
  const f = (value: number | null, digits = 1) => (value === null ? "-" : value.toFixed(digits));
  log(`\nApply against the bare-SQL limit: ${o.events} pending lab payments per shape, median of ${o.runs} run(s); load ${report.loadAtStart.join(" / ")} at start, ${report.loadAtEnd.join(" / ")} at end (2-core machine shared with other work)`);
  log(`  ${"".padEnd(58)} ${"events/s".padStart(9)} ${"ratio".padStart(7)}`);
  log(`  ${"SQLite limit, one transaction per event".padEnd(58)} ${f(s.sqlitePerEventLimit).padStart(9)}`);
  log(`  ${"SQLite limit, 64 a transaction, a savepoint each".padEnd(58)} ${f(s.sqliteBatchedLimit).padStart(9)}`);
  log(`  ${`Acredita worker, SQLite (first ${o.workerEvents} events) / batched limit`.padEnd(58)} ${f(s.sqliteWorker).padStart(9)} ${f(s.sqliteWorkerOfBatchedLimit, 3).padStart(7)}`);
  if (s.inline !== null) log(`  ${`Acredita inline, SQLite (${o.inlineDeliveries} deliveries) / per-event limit`.padEnd(58)} ${f(s.inline).padStart(9)} ${f(s.inlineOfPerEventLimit, 3).padStart(7)}`);
  if (s.postgresBatchedLimit !== null) {
    log(`  PostgreSQL: ${o.postgresEvents} pending lab payments per shape`);
    log(`  ${"PostgreSQL limit, one transaction per event".padEnd(58)} ${f(s.postgresPerEventLimit).padStart(9)}`);
    log(`  ${"PostgreSQL limit, 64 a transaction, a savepoint each".padEnd(58)} ${f(s.postgresBatchedLimit).padStart(9)}`);
    log(`  ${"Acredita worker, PostgreSQL, 1 process / batched limit".padEnd(58)} ${f(s.postgresWorker).padStart(9)} ${f(s.postgresWorkerOfBatchedLimit, 3).padStart(7)}`);
  }
  const target = (ratio: number | null) => `(target <= 1.2${ratio !== null ? (ratio <= 1.2 ? ", met" : ", NOT met") : ""})`;
  log(`  Drain cost per event at a ${s.backlogSmall}-event backlog ${f(s.cpuMsPerEventSmallBacklog, 3)} ms CPU, at ${s.backlogLarge} ${f(s.cpuMsPerEventLargeBacklog, 3)} ms CPU: ratio ${f(s.largeOverSmallBacklogCpu, 2)} ${target(s.largeOverSmallBacklogCpu)}`);
  log(`  Worker process wall time per event at ${s.backlogSmall} ${f(s.msPerEventSmallBacklog, 2)} ms, at ${s.backlogLarge} ${f(s.msPerEventLargeBacklog, 2)} ms: ratio ${f(s.largeOverSmallBacklog, 2)} ${target(s.largeOverSmallBacklog)}`);
  log(`  row checks (every event applied once by each shape and by the worker): ${report.checksOk ? "ok" : "FAILED"}`);
}
