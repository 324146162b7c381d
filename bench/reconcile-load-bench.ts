// A large Stripe report reconciled by the server (its reconciliation worker process, the default
// set-up) while signed lab deliveries arrive: the run's time, lines/s and the server's peak RSS, and the
// deliveries' p50/p99 during the run against idle in the same run. A benchmark, not a test.
import { createReadStream, createWriteStream, readFileSync, statSync } from "node:fs";
import { once } from "node:events";
import { Agent, request } from "node:http";
import path from "node:path";
import { BENCH_API_TOKEN, BENCH_SECRET, benchFolder, createBenchDatabase, openForLoading, prismaDate } from "@/bench/bench-data";
import { startAcredita } from "@/bench/bench-processes";
import { applyPostgresMigrations, createDatabase, dropDatabase, withConnection } from "@/lib/db/postgres-database";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";

/** The server's peak resident set size must stay under this (MB). */
export const RECONCILE_RSS_LIMIT_MB = 300;
const ACCOUNT = "acct_bench_reconcile";
/** Lab orders the deliveries pay (one each); more than any run sends. */
const LAB_ORDERS = 20_000;

/** Latency of one phase's deliveries (ms), and how many were answered 200. */
export interface PhaseLatency {
  deliveries: number;
  ok: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The five slowest (ms). */
  slowestMs: number[];
}

/** One reconciliation of a generated report by the server, with deliveries timed idle and during the run. */
export interface ReconcileLoadMeasurement {
  kind: "matching" | "mismatching";
  database: "SQLite" | "PostgreSQL";
  lines: number;
  reportMb: number;
  status: string;
  mismatches: number;
  expectedMismatches: number;
  /** From the upload's first byte to the run seen done (s), and the run's own startedAt..finishedAt. */
  seconds: number;
  runSeconds: number;
  linesPerSecond: number;
  /** The largest peak RSS (VmHWM, MB) of the server's processes (the server, its reconciliation worker) over the whole measurement, and before the upload. */
  peakRssMb: number;
  idleRssMb: number;
  rssRatio: number;
  /** The deliveries before the upload and after the run, pooled; and the p99 of each half. */
  idle: PhaseLatency;
  idleP99BeforeAfterMs: [number, number];
  during: PhaseLatency;
  /** p99 during the run ÷ p99 idle (target <= 2). */
  p99Ratio: number;
  /** Peak RSS (VmHWM, MB) of the server process itself and of its reconciliation worker process (0 when the worker runs in the server). */
  serverPeakRssMb: number;
  /** The server's own peak RSS when the upload was answered 202. */
  serverAfterUploadRssMb: number;
  workerPeakRssMb: number;
  /** CPU seconds spent during the run by the server, its worker process, and the database's PostgreSQL backends (0 on SQLite); and the machine's busy share (0..1, both cores). */
  cpu: { serverS: number; workerS: number; postgresS: number; machineBusy: number };
  /** CPU seconds of the server and the database's PostgreSQL backends during the idle deliveries. */
  idleCpu: { serverS: number; postgresS: number };
  /** The 1-minute load average when the measurement started and when the run ended. */
  load: [number, number];
  ok: boolean;
}

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]);
}

function latency(times: number[], ok: number): PhaseLatency {
  return { deliveries: times.length, ok, p50Ms: percentile(times, 50), p99Ms: percentile(times, 99), maxMs: round(Math.max(0, ...times)), slowestMs: [...times].sort((a, b) => b - a).slice(0, 5).map((ms) => round(ms)) };
}

/** The report: `lines` charges of 10.00 USD, payment `pi_b<i>` for order `ord_b<i>`, every documented column written (stripe-report-csv.ts). Streamed to disk. */
export async function writeReport(file: string, lines: number): Promise<void> {
  const out = createWriteStream(file);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, "drain");
  };
  await write(
    "\uFEFFbalance_transaction_id,created_utc,created,available_on_utc,currency,gross,fee,net,reporting_category,source_id,description,customer_facing_amount,customer_facing_currency,customer_id,customer_email,charge_id,payment_intent_id,charge_created_utc,payment_method_type,payment_metadata[order_id],payment_metadata[cart]\r\n",
  );
  const at = "2026-11-29 12:00:00";
  for (let i = 0; i < lines; i++) {
    const n = String(i).padStart(7, "0");
    await write(`txn_b${n},${at},${at},2026-12-02 00:00:00,usd,10.00,0.59,9.41,charge,ch_b${n},,10.00,usd,cus_1,buyer@example.com,ch_b${n},pi_b${n},${at},card,ord_b${n},"sku_1, sku_2"\r\n`);
  }
  out.end();
  await once(out, "finish");
}

/** The lab orders the deliveries pay and, for the all-matching report, an order and its Stripe credit per report line. */
export function seed(file: string, lines: number, matching: boolean): void {
  const database = openForLoading(file);
  try {
    const now = prismaDate(new Date());
    const order = database.prepare(`INSERT INTO "Order" (id, amount, currency, status, createdAt, updatedAt) VALUES (?, ?, ?, ?, ?, ?)`);
    const credit = database.prepare(
      `INSERT INTO "LedgerEntry" (id, businessKey, orderId, paymentKey, kind, amount, currency, provider, account, livemode, eventId, createdAt) VALUES (?, ?, ?, ?, 'credit', 1000, 'USD', 'stripe', ?, 1, ?, ?)`,
    );
    database.transaction(() => {
      for (let i = 0; i < LAB_ORDERS; i++) order.run(`ord_rl_${i}`, 1000, "ARS", "created", now, now);
      if (!matching) return;
      const bookedAt = prismaDate(new Date("2026-11-29T12:00:05Z"));
      for (let i = 0; i < lines; i++) {
        const n = String(i).padStart(7, "0");
        order.run(`ord_b${n}`, 1000, "USD", "paid", now, now);
        credit.run(`led_b${n}`, `credit:stripe:${ACCOUNT}:live:pi_b${n}`, `ord_b${n}`, `pi_b${n}`, ACCOUNT, `evt_b${n}`, bookedAt);
      }
    })();
  } finally {
    database.close();
  }
}

/** The same rows as {@link seed} on PostgreSQL, generated by the database itself. */
async function seedPostgres(url: string, lines: number, matching: boolean): Promise<void> {
  await withConnection(url, async (client) => {
    await client.query(`INSERT INTO "Order" ("id", "amount", "currency", "status", "createdAt", "updatedAt") SELECT 'ord_rl_' || i, 1000, 'ARS', 'created', now(), now() FROM generate_series(0, $1::int - 1) AS i`, [LAB_ORDERS]);
    if (!matching) return;
    await client.query(`INSERT INTO "Order" ("id", "amount", "currency", "status", "createdAt", "updatedAt") SELECT 'ord_b' || lpad(i::text, 7, '0'), 1000, 'USD', 'paid', now(), now() FROM generate_series(0, $1::int - 1) AS i`, [lines]);
    await client.query(
      `INSERT INTO "LedgerEntry" ("id", "businessKey", "orderId", "paymentKey", "kind", "amount", "currency", "provider", "account", "livemode", "eventId", "createdAt")
       SELECT 'led_b' || n, 'credit:stripe:' || $2::text || ':live:pi_b' || n, 'ord_b' || n, 'pi_b' || n, 'credit', 1000, 'USD', 'stripe', $2::text, true, 'evt_b' || n, timestamp '2026-11-29 12:00:05'
       FROM (SELECT lpad(i::text, 7, '0') AS n FROM generate_series(0, $1::int - 1) AS i) AS numbered`,
      [lines, ACCOUNT],
    );
    await client.query(`ANALYZE`);
  });
}

/** The largest peak RSS (VmHWM, MB) of process `pid` and its descendants (the reconciliation worker process). */
function peakRssMb(pid: number): number {
  const read = (id: number): number => {
    try {
      const status = readFileSync(`/proc/${id}/status`, "utf8");
      const own = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
      const children = readFileSync(`/proc/${id}/task/${id}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
      return Math.max(own, ...children.map(read));
    } catch {
      return 0;
    }
  };
  return Math.round(read(pid));
}

/** The pids of `pid`'s descendants. */
function descendants(pid: number): number[] {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
    return children.flatMap((child) => [child, ...descendants(child)]);
  } catch {
    return [];
  }
}

/** VmHWM (MB) of one process, 0 when gone. */
function ownPeakRssMb(pid: number): number {
  try {
    return Math.round(Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024);
  } catch {
    return 0;
  }
}

/** CPU seconds (user + system) of the processes `pids`, from /proc (clock ticks of 100 Hz). */
function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone
    }
  }
  return ticks / 100;
}

/** The machine's busy and total clock ticks so far (/proc/stat). */
function machineTicks(): { busy: number; total: number } {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0].split(/\s+/).slice(1).map(Number);
  const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - fields[3] - fields[4], total };
}

const loadAverage = () => Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]);

/**
 * Follows the CPU of database `name`'s PostgreSQL backends (pooled connections come and go): every
 * 500 ms the backends are listed and each one's CPU seconds read; `seconds()` is what they spent since
 * `start()` (a backend that started meanwhile counts from 0; one that left counts until last seen).
 */
function postgresCpu(adminUrl: string, name: string) {
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  let timer: NodeJS.Timeout | undefined;
  let started = false;
  const sample = async () => {
    for (const pid of await postgresBackends(adminUrl, name).catch(() => [] as number[])) {
      const cpu = cpuSeconds([pid]);
      if (!first.has(pid)) first.set(pid, started ? 0 : cpu);
      last.set(pid, cpu);
    }
  };
  return {
    async start() {
      await sample();
      started = true;
      timer = setInterval(() => void sample(), 500);
    },
    async seconds(): Promise<number> {
      if (timer) clearInterval(timer);
      await sample();
      let total = 0;
      for (const [pid, cpu] of last) total += cpu - (first.get(pid) ?? 0);
      first.clear();
      last.clear();
      started = false;
      return round(total, 2);
    },
  };
}

/** The pids of the PostgreSQL backends connected to database `name` (the cluster runs on this machine). */
async function postgresBackends(adminUrl: string, name: string): Promise<number[]> {
  return withConnection(adminUrl, async (client) => (await client.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = $1`, [name])).rows.map((row) => row.pid));
}

function postJson(agent: Agent, url: URL, body: string, headers: Record<string, string>): Promise<{ status: number; ms: number }> {
  return new Promise((resolve) => {
    const started = performance.now();
    const outgoing = request({ host: url.hostname, port: url.port, path: url.pathname, method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...headers } }, (response) => {
      response.resume();
      response.once("end", () => resolve({ status: response.statusCode ?? 0, ms: performance.now() - started }));
    });
    outgoing.once("error", () => resolve({ status: 0, ms: performance.now() - started }));
    outgoing.setTimeout(30_000, () => outgoing.destroy(new Error("timeout")));
    outgoing.end(body);
  });
}

/** Sends signed lab approvals one at a time, `gapMs` apart, each signed just before it is sent, until `until()` or `count` sent. */
async function deliveries(server: string, first: number, count: number, gapMs: number, until: () => boolean = () => false): Promise<{ times: number[]; ok: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const url = new URL("/api/webhooks/lab", server);
  const times: number[] = [];
  let ok = 0;
  try {
    for (let i = first; i < first + count && !until(); i++) {
      const t = Math.floor(Date.now() / 1000);
      const body = JSON.stringify({ id: `evt_rl_${i}`, type: "payment.approved", created: t, data: { payment_id: `pay_rl_${i}`, order_id: `ord_rl_${i}`, amount: 1000, currency: "ARS" } });
      const answer = await postJson(agent, url, body, { "lab-signature": signTimestamped(BENCH_SECRET, t, body) });
      times.push(answer.ms);
      if (answer.status === 200) ok++;
      await new Promise((resolve) => setTimeout(resolve, gapMs));
    }
  } finally {
    agent.destroy();
  }
  return { times, ok };
}

/** Streams the report file to POST /api/reconciliations; resolves with the run id. */
function upload(server: string, file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const url = new URL("/api/reconciliations?source=bench", server);
    const outgoing = request({ host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, method: "POST", headers: { authorization: `Bearer ${BENCH_API_TOKEN}`, "content-type": "text/csv", "content-length": statSync(file).size } }, (response) => {
      let text = "";
      response.on("data", (chunk) => (text += chunk));
      response.once("end", () => (response.statusCode === 202 ? resolve((JSON.parse(text) as { runId: string }).runId) : reject(new Error(`upload answered ${response.statusCode}: ${text.slice(0, 300)}`))));
    });
    outgoing.once("error", reject);
    createReadStream(file).pipe(outgoing);
  });
}

interface RunState {
  status: string;
  rows: number;
  mismatchCount: number;
  startedAt: string;
  finishedAt: string | null;
}

async function runState(server: string, runId: string): Promise<RunState> {
  const answer = (await (await fetch(`${server}/api/reconciliations/${runId}?mismatches=none`, { headers: { authorization: `Bearer ${BENCH_API_TOKEN}` } })).json()) as { run: { status: string; progress: { rows: number }; mismatchCount: number; startedAt: string; finishedAt: string | null } };
  return { status: answer.run.status, rows: answer.run.progress.rows, mismatchCount: answer.run.mismatchCount, startedAt: answer.run.startedAt, finishedAt: answer.run.finishedAt };
}

/**
 * Generates a `lines`-line Stripe balance report (every line matching a booked credit, or every line a
 * missing credit), starts Acredita's production server on a fresh SQLite database (or a new database on
 * the PostgreSQL cluster of `postgresAdminUrl`, dropped at the end) (its
 * reconciliation worker, inline lab processing), times `idleDeliveries` signed lab deliveries idle,
 * uploads the report through the API (streamed from disk) and keeps timing deliveries until the run is
 * done, then times `idleDeliveries` more idle (pooled with the first: the shared machine's load drifts
 * over a long run). Returns the figures; `ok` when the run ended done with exactly the expected mismatches and
 * every delivery was answered 200.
 */
export async function measureReconcileLoad(options: { lines: number; matching: boolean; idleDeliveries: number; gapMs?: number; env?: Record<string, string>; postgresAdminUrl?: string }): Promise<ReconcileLoadMeasurement> {
  const gapMs = options.gapMs ?? 50;
  const folder = benchFolder("reconcile-load");
  const report = path.join(folder, "report.csv");
  await writeReport(report, options.lines);
  const postgresName = options.postgresAdminUrl ? `acredita_bench_reconcile_${process.pid}_${Date.now()}` : undefined;
  let database: string;
  if (options.postgresAdminUrl && postgresName) {
    database = await createDatabase(options.postgresAdminUrl, postgresName);
    await applyPostgresMigrations(database);
    await seedPostgres(database, options.lines, options.matching);
  } else {
    database = createBenchDatabase(folder);
    seed(database, options.lines, options.matching);
  }
  const server = await startAcredita(database, {
    STRIPE_ACCOUNT_ID: ACCOUNT,
    LAB_PROCESSING_MODE: "inline",
    LOG_LEVEL: "warn",
    RECONCILIATION_SPOOL_DIR: path.join(folder, "spool"),
    RECONCILIATION_UPLOAD_MAX_BYTES: String(2_147_483_647),
    ...options.env,
  });
  try {
    const loadAtStart = loadAverage();
    const pgCpu = options.postgresAdminUrl && postgresName ? postgresCpu(options.postgresAdminUrl, postgresName) : undefined;
    await pgCpu?.start();
    const idleServerCpu = cpuSeconds([server.pid]);
    const idleBefore = await deliveries(server.url, 0, options.idleDeliveries, gapMs);
    const idleRssMb = peakRssMb(server.pid);
    const workerPids = descendants(server.pid);
    const idleCpu = { serverS: round(cpuSeconds([server.pid]) - idleServerCpu, 2), postgresS: (await pgCpu?.seconds()) ?? 0 };
    await pgCpu?.start();
    const cpuBefore = { server: cpuSeconds([server.pid]), worker: cpuSeconds(workerPids), machine: machineTicks() };
    const started = performance.now();
    const runId = await upload(server.url, report);
    const afterUploadRssMb = ownPeakRssMb(server.pid);
    let state = await runState(server.url, runId);
    const poll = (async () => {
      while (state.status === "queued" || state.status === "running") {
        await new Promise((resolve) => setTimeout(resolve, 250));
        state = await runState(server.url, runId);
      }
    })();
    const duringTimes = await deliveries(server.url, options.idleDeliveries, LAB_ORDERS - 2 * options.idleDeliveries, gapMs, () => state.status !== "queued" && state.status !== "running");
    await poll;
    const during = latency(duringTimes.times, duringTimes.ok);
    const seconds = (performance.now() - started) / 1_000;
    const peak = peakRssMb(server.pid);
    const serverPeakRssMb = ownPeakRssMb(server.pid);
    const workerPeakRssMb = Math.max(0, ...workerPids.map(ownPeakRssMb));
    const postgresS = (await pgCpu?.seconds()) ?? 0;
    const machine = machineTicks();
    const cpu = {
      serverS: round(cpuSeconds([server.pid]) - cpuBefore.server),
      workerS: round(cpuSeconds(workerPids) - cpuBefore.worker),
      postgresS,
      machineBusy: round((machine.busy - cpuBefore.machine.busy) / Math.max(1, machine.total - cpuBefore.machine.total), 2),
    };
    // Idle again once the run is done (the machine is shared: its load drifts), pooled with the deliveries before the upload.
    const idleAfter = await deliveries(server.url, options.idleDeliveries + during.deliveries, options.idleDeliveries, gapMs);
    const idle = latency([...idleBefore.times, ...idleAfter.times], idleBefore.ok + idleAfter.ok);
    const idleBeforeP99 = latency(idleBefore.times, idleBefore.ok).p99Ms;
    const idleAfterP99 = latency(idleAfter.times, idleAfter.ok).p99Ms;
    const runSeconds = state.finishedAt ? (Date.parse(state.finishedAt) - Date.parse(state.startedAt)) / 1_000 : seconds;
    const expectedMismatches = options.matching ? 0 : options.lines;
    return {
      kind: options.matching ? "matching" : "mismatching",
      database: postgresName ? "PostgreSQL" : "SQLite",
      lines: options.lines,
      reportMb: round(statSync(report).size / 1024 / 1024),
      status: state.status,
      mismatches: state.mismatchCount,
      expectedMismatches,
      seconds: round(seconds),
      runSeconds: round(runSeconds),
      linesPerSecond: Math.round(options.lines / runSeconds),
      peakRssMb: peak,
      idleRssMb,
      rssRatio: round(peak / RECONCILE_RSS_LIMIT_MB, 2),
      idle,
      idleP99BeforeAfterMs: [idleBeforeP99, idleAfterP99],
      during,
      p99Ratio: round(during.p99Ms / Math.max(idle.p99Ms, 0.1), 2),
      serverPeakRssMb,
      serverAfterUploadRssMb: afterUploadRssMb,
      workerPeakRssMb,
      cpu,
      idleCpu,
      load: [loadAtStart, loadAverage()],
      ok: state.status === "done" && state.rows === options.lines && state.mismatchCount === expectedMismatches && idle.ok === idle.deliveries && during.ok === during.deliveries,
    };
  } finally {
    await server.stop();
    if (process.env.RB_DEBUG && postgresName) await withConnection(database, async (c) => console.error(JSON.stringify((await c.query(`SELECT relname, seq_scan, seq_tup_read, idx_scan, idx_tup_fetch, n_tup_ins, n_tup_del FROM pg_stat_user_tables WHERE seq_tup_read > 0 OR n_tup_ins > 0 ORDER BY seq_tup_read DESC`)).rows)));
    if (options.postgresAdminUrl && postgresName) await dropDatabase(options.postgresAdminUrl, postgresName);
  }
}

/** Prints the rows of {@link measureReconcileLoad}'s measurements. */
export function printReconcileLoad(measurements: ReconcileLoadMeasurement[], inProcess = false): void {
  const where = inProcess ? "the worker on the server's event loop (RECONCILIATION_WORKER_PROCESS=false)" : "the server's reconciliation worker process";
  console.log(`\nReconciliation under webhooks: a generated Stripe balance report uploaded to the server (${where}), signed lab deliveries one at a time (50 ms apart) idle (before the upload and after the run) and during the run`);
  for (const m of measurements) {
    console.log(
      `  ${`${m.database}: ${m.lines} lines, all ${m.kind}`.padEnd(42)} ${m.runSeconds} s (${m.seconds} s from upload), ${m.linesPerSecond} lines/s, ${m.reportMb} MB; peak RSS ${m.peakRssMb} MB (largest process; idle ${m.idleRssMb} MB; ${m.rssRatio.toFixed(2)} of ${RECONCILE_RSS_LIMIT_MB} MB${m.peakRssMb <= RECONCILE_RSS_LIMIT_MB ? ", met" : ", NOT met"}); ` +
        `deliveries idle (${m.idle.deliveries}, before and after the run) p50 ${m.idle.p50Ms} ms p99 ${m.idle.p99Ms} ms (p99 before ${m.idleP99BeforeAfterMs[0]}, after ${m.idleP99BeforeAfterMs[1]}), during (${m.during.deliveries}) p50 ${m.during.p50Ms} ms p99 ${m.during.p99Ms} ms (slowest ${m.during.slowestMs.join(", ")}); p99 during/idle ${m.p99Ratio.toFixed(2)} (target <= 2${m.p99Ratio <= 2 ? ", met" : ", NOT met"}); ` +
        `${m.status}, ${m.mismatches} mismatches (${m.expectedMismatches} expected)${m.ok ? " - ok" : " - FAILED"}; ` +
        `peak RSS server ${m.serverPeakRssMb} MB (${m.serverAfterUploadRssMb} MB when the upload was answered), worker process ${m.workerPeakRssMb} MB; CPU during the run: server ${m.cpu.serverS} s, worker ${m.cpu.workerS} s${m.database === "PostgreSQL" ? `, PostgreSQL backends ${m.cpu.postgresS} s` : ""}, machine ${Math.round(m.cpu.machineBusy * 100)}% busy (idle deliveries: server ${m.idleCpu.serverS} s${m.database === "PostgreSQL" ? `, PostgreSQL ${m.idleCpu.postgresS} s` : ""}); load average ${m.load[0]} to ${m.load[1]}`,
    );
  }
}
