import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { Agent, request } from "node:http";
import { setPriority } from "node:os";
import Database from "better-sqlite3";
import { benchFolder, createBenchDatabase, labApprovals, seedOrders, type SignedDelivery } from "@/bench/bench-data";
import { startAttack, type Attack, type AttackSpec, type AttackStats } from "@/bench/flood-attacker";
import { startAcredita, startReceiverProcess } from "@/bench/bench-processes";

/** One phase's real deliveries: how many, their latency percentiles (ms) and how many were applied (HTTP 200). */
export interface DeliveryLatency {
  deliveries: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  ok: number;
}

/** The flood benchmark of one configuration: real deliveries idle and under an unsigned flood, and the rows the flood left. */
export interface FloodMeasurement {
  label: string;
  /** `next start` (the dashboard's server, the default set-up) or `npm run receiver`. */
  target: "next" | "receiver";
  /** REJECTION_SAMPLE_PER_MINUTE the server ran with. */
  samplePerMinute: number;
  idle: DeliveryLatency;
  flood: DeliveryLatency;
  /** p99 under flood ÷ p99 idle (target <= 2). */
  p99Ratio: number;
  /** Unsigned posts sent during the flood phase, and the rate achieved (posts/s). */
  floodPosts: number;
  /** Posts not sent because MAX_IN_FLIGHT were still unanswered (the server fell behind the rate). */
  floodSkipped: number;
  floodPerSecond: number;
  /** Answers to the flood by status (401 unsigned to /lab, 404 unknown names). */
  floodStatuses: Record<string, number>;
  /** Decision rows the flood left (unverified), and the refusals counted in RejectionCount after shutdown. */
  floodDecisionRows: number;
  countedRefusals: number;
  /** Every real delivery applied, and every flood post answered and counted. */
  ok: boolean;
}

/** POSTs `body` to `url` + `path` on `agent`; resolves with the status and the time to the whole answer (ms). */
function post(agent: Agent, url: URL, path: string, body: string, headers: Record<string, string>): Promise<{ status: number; ms: number }> {
  return new Promise((resolve) => {
    const started = performance.now();
    const outgoing = request({ host: url.hostname, port: url.port, path, method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...headers } }, (response) => {
      response.resume();
      response.once("end", () => resolve({ status: response.statusCode ?? 0, ms: performance.now() - started }));
    });
    outgoing.once("error", () => resolve({ status: 0, ms: performance.now() - started }));
    // An answer slower than 30 s counts as a failure (status 0) rather than stalling the benchmark.
    outgoing.setTimeout(30_000, () => outgoing.destroy(new Error("timeout")));
    outgoing.end(body);
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/**
 * Sends `deliveries` one at a time, `gapMs` apart (a provider's real traffic, not a load test), for at
 * most `maxSeconds` (an overloaded server would otherwise hold the run for many minutes), and returns
 * the latency of those sent.
 */
async function timeDeliveries(url: URL, deliveries: SignedDelivery[], gapMs: number, maxSeconds = Infinity): Promise<DeliveryLatency> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  let ok = 0;
  const deadline = performance.now() + maxSeconds * 1000;
  try {
    for (const delivery of deliveries) {
      if (performance.now() > deadline) break;
      const answer = await post(agent, url, "/api/webhooks/lab", delivery.body, { "lab-signature": delivery.signature });
      times.push(answer.ms);
      if (answer.status === 200) ok += 1;
      await new Promise((resolve) => setTimeout(resolve, gapMs));
    }
  } finally {
    agent.destroy();
  }
  times.sort((a, b) => a - b);
  return { deliveries: times.length, p50Ms: round(percentile(times, 50)), p99Ms: round(percentile(times, 99)), maxMs: round(times[times.length - 1]), ok };
}

/**
 * Keeps posting unsigned bodies at `perSecond` (open loop: a batch every 20 ms whatever the answers),
 * half to /api/webhooks/lab without a signature (401) and half to a new random unknown name each (404),
 * until `stop()`; then resolves with what was sent and answered.
 */
/** Flood posts left unanswered at most: beyond it a post is skipped (counted), so an overloaded server cannot queue without bound. */
const MAX_IN_FLIGHT = 128;

function startFlood(url: URL, perSecond: number): { stop: () => Promise<{ posts: number; skipped: number; seconds: number; statuses: Record<string, number> }> } {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const statuses: Record<string, number> = {};
  const inFlight = new Set<Promise<void>>();
  const started = performance.now();
  let posts = 0;
  let skipped = 0;
  const tick = 20;
  const timer = setInterval(() => {
    // The posts due by now at the target rate, so a late timer catches up instead of lowering the rate.
    const due = Math.floor(((performance.now() - started) / 1000) * perSecond) - posts - skipped;
    for (let i = 0; i < due; i++) {
      if (inFlight.size >= MAX_IN_FLIGHT) {
        skipped += 1;
        continue;
      }
      const index = posts++;
      const path = index % 2 === 0 ? "/api/webhooks/lab" : `/api/webhooks/nonexistent-${randomBytes(6).toString("hex")}`;
      const body = JSON.stringify({ id: `evt_flood_${index}`, type: "payment.approved", data: { payment_id: `pay_flood_${index}`, order_id: "ord_f0", amount: 1, currency: "ARS" } });
      const pending = post(agent, url, path, body, {}).then((answer) => {
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        inFlight.delete(pending);
      });
      inFlight.add(pending);
    }
  }, tick);
  return {
    stop: async () => {
      clearInterval(timer);
      const seconds = (performance.now() - started) / 1000;
      await Promise.all(inFlight);
      agent.destroy();
      return { posts, skipped, seconds, statuses };
    },
  };
}

/**
 * Flood benchmark: Acredita's production build (`next start`) or `npm run receiver` (inline lab endpoint, SQLite) receives `deliveries` real
 * signed deliveries one at a time while idle, then `deliveries` more (each phase at most `maxSeconds`) while `perSecond` unsigned posts
 * per second arrive (half to /lab, half to random unknown names), in one run. Reports both phases' p50
 * and p99, their ratio (target p99 under flood <= 2x idle), and the rows the flood left after the server
 * stopped (its shutdown flushes the counts). `samplePerMinute` sets REJECTION_SAMPLE_PER_MINUTE; a huge
 * value stores every refusal as a decision row, as before counting.
 */
export async function measureFlood(options: { label: string; target: "next" | "receiver"; deliveries: number; perSecond: number; gapMs: number; samplePerMinute: number; maxSeconds: number }): Promise<FloodMeasurement> {
  const folder = benchFolder("flood");
  const file = createBenchDatabase(folder);
  seedOrders(file, "ord_fi", options.deliveries, 2_500);
  seedOrders(file, "ord_ff", options.deliveries, 2_500);
  seedOrders(file, "ord_fw", 50, 2_500);
  const env = { LAB_PROCESSING_MODE: "inline", REJECTION_SAMPLE_PER_MINUTE: String(options.samplePerMinute) };
  const server = options.target === "receiver" ? await startReceiverProcess(file, env) : await startAcredita(file, env);
  const url = new URL(server.url);
  let idle: DeliveryLatency;
  let flood: DeliveryLatency;
  let sent: { posts: number; skipped: number; seconds: number; statuses: Record<string, number> };
  try {
    await timeDeliveries(url, labApprovals("evt_fw", "ord_fw", 50, 2_500), 5);
    idle = await timeDeliveries(url, labApprovals("evt_fi", "ord_fi", options.deliveries, 2_500), options.gapMs, options.maxSeconds);
    const flooding = startFlood(url, options.perSecond);
    // Let the flood reach its rate before timing.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    try {
      flood = await timeDeliveries(url, labApprovals("evt_ff", "ord_ff", options.deliveries, 2_500), options.gapMs, options.maxSeconds);
    } finally {
      sent = await flooding.stop();
    }
  } finally {
    await server.stop();
  }
  const database = new Database(file, { readonly: true });
  const floodDecisionRows = (database.prepare(`SELECT COUNT(*) AS n FROM Decision WHERE verified = 0`).get() as { n: number }).n;
  const countedRefusals = (database.prepare(`SELECT COALESCE(SUM(count), 0) AS n FROM RejectionCount`).get() as { n: number }).n;
  database.close();
  const answered = Object.entries(sent.statuses).reduce((sum, [status, n]) => sum + (status === "401" || status === "404" ? n : 0), 0);
  return {
    label: options.label,
    target: options.target,
    samplePerMinute: options.samplePerMinute,
    idle,
    flood,
    p99Ratio: Math.round((flood.p99Ms / idle.p99Ms) * 100) / 100,
    floodPosts: sent.posts,
    floodSkipped: sent.skipped,
    floodPerSecond: Math.round((sent.posts / sent.seconds) * 10) / 10,
    floodStatuses: sent.statuses,
    floodDecisionRows,
    countedRefusals,
    ok: idle.ok === idle.deliveries && flood.ok === flood.deliveries && answered === sent.posts && countedRefusals === sent.posts,
  };
}

/**
 * Where the attacking clients run: in the benchmark's own process ("bench": their CPU delays the timing
 * of the real deliveries in the same event loop, as this benchmark did before), in a process of their
 * own ("process"), or in a process of their own at the lowest CPU priority ("niced", nice 19: the
 * nearest this two-core machine gets to an attacker on other machines, whose CPU is not the server's).
 */
export type AttackerPlacement = "bench" | "process" | "niced";

/**
 * CPU time a process has used so far (ms, user + system, from /proc: Linux), or undefined where it
 * cannot be read. Under a shared machine's load a latency mostly measures the queue for the CPU; the
 * CPU each process spends per second of an attack is what the attack costs it.
 */
function processCpuMs(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

/** This process's own CPU time so far (ms, user + system). */
function ownCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/** CPU used per second of wall time between two readings (ms/s), or undefined without readings. */
function cpuPerSecond(from: number | undefined, to: number | undefined, wallMs: number): number | undefined {
  return from === undefined || to === undefined ? undefined : Math.round(((to - from) / wallMs) * 1000);
}

/** Starts `spec` where `placement` says, and resolves once it is attacking, with the attacker's pid (this process's for "bench"). */
async function launchAttack(spec: AttackSpec, placement: AttackerPlacement): Promise<Attack & { pid: number }> {
  if (placement === "bench") return { ...startAttack(spec), pid: process.pid };
  const child = spawn(process.execPath, ["--import", "tsx", "bench/flood-attacker.ts", JSON.stringify(spec)], { stdio: ["ignore", "pipe", "inherit"] });
  if (placement === "niced") setPriority(child.pid!, 19);
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  const deadline = Date.now() + 60_000;
  while (!output.includes("attacking\n")) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the attacker did not start: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    pid: child.pid!,
    stop: () =>
      new Promise<AttackStats>((resolve, reject) => {
        child.once("exit", () => {
          const line = output.split("\n").find((entry) => entry.startsWith("{"));
          if (line) resolve(JSON.parse(line) as AttackStats);
          else reject(new Error(`the attacker printed no figures: ${output}`));
        });
        child.kill("SIGTERM");
      }),
  };
}

/** Real deliveries timed while one attack ran, with its attackers placed as `placement` says. */
export interface AttackPhase {
  placement: AttackerPlacement;
  flood: DeliveryLatency;
  /** p99 under the attack ÷ p99 idle before it (target <= 2). */
  p99Ratio: number;
  attack: AttackStats;
  /** CPU used per second of the phase (ms/s): the server, the attacking clients (for "bench", none of their own: see `benchCpuMsPerS`), and this process, which times the deliveries. */
  serverCpuMsPerS?: number;
  attackerCpuMsPerS?: number;
  benchCpuMsPerS: number;
}

/** One attack against one server: deliveries idle before and after, and under the attack for each attacker placement. */
export interface AttackMeasurement {
  /** The server: npm start's (scripts/server.mjs, "server"), a bare `next start` ("next-start"), or `npm run receiver`. */
  target: "server" | "next-start" | "receiver";
  idle: DeliveryLatency;
  phases: AttackPhase[];
  /** The same deliveries idle again after the last attack: how much the machine itself moved during the run. */
  idleAfter: DeliveryLatency;
  /** CPU the server and this process used per second of the first idle phase (ms/s). */
  idleServerCpuMsPerS?: number;
  idleBenchCpuMsPerS: number;
  /** The server answered its liveness probe at the end, and every real delivery was applied. */
  ok: boolean;
}

/** The id of the dead-letter retry action in the current build (its server-reference manifest). */
function retryActionId(): string {
  const manifest = JSON.parse(readFileSync(".next/server/server-reference-manifest.json", "utf8")) as { node: Record<string, { exportedName?: string }> };
  const id = Object.entries(manifest.node).find(([, entry]) => entry.exportedName === "retryDeadLettersAction")?.[0];
  if (!id) throw new Error("the build has no retryDeadLettersAction");
  return id;
}

/**
 * Times `deliveries` real signed lab deliveries from 127.0.0.1, one at a time `gapMs` apart (each phase
 * at most `maxSeconds`), against `target` (inline lab endpoint, SQLite): idle, then under the attack
 * `attack(url)` once per attacker placement in `placements` (the same server; the attack stopped and the
 * server given a second between phases), then idle again. The attackers come from 127.0.0.3.
 */
async function measureAttack(options: { target: AttackMeasurement["target"]; env: Record<string, string>; attack: (url: string) => AttackSpec; placements: AttackerPlacement[]; deliveries: number; gapMs: number; maxSeconds: number }): Promise<AttackMeasurement> {
  const folder = benchFolder(`attack-${options.target}`);
  const file = createBenchDatabase(folder);
  const phases = ["idle", ...options.placements, "after"].map((name, index) => ({ name, prefix: `a${index}` }));
  seedOrders(file, "ord_aw", 50, 2_500);
  for (const phase of phases) seedOrders(file, `ord_${phase.prefix}`, options.deliveries, 2_500);
  const env = { LAB_PROCESSING_MODE: "inline", ...options.env };
  const server = options.target === "receiver" ? await startReceiverProcess(file, env) : await startAcredita(file, env, undefined, { entry: options.target === "server" ? "server" : "next-start" });
  const url = new URL(server.url);
  const timePhase = (prefix: string) => timeDeliveries(url, labApprovals(`evt_${prefix}`, `ord_${prefix}`, options.deliveries, 2_500), options.gapMs, options.maxSeconds);
  let idle: DeliveryLatency;
  let idleAfter: DeliveryLatency;
  let idleCpu: { server?: number; bench: number };
  const measured: AttackPhase[] = [];
  let alive = false;
  try {
    await timeDeliveries(url, labApprovals("evt_aw", "ord_aw", 50, 2_500), 5);
    const idleStart = { at: performance.now(), server: processCpuMs(server.pid), bench: ownCpuMs() };
    idle = await timePhase(phases[0].prefix);
    const idleMs = performance.now() - idleStart.at;
    idleCpu = { server: cpuPerSecond(idleStart.server, processCpuMs(server.pid), idleMs), bench: cpuPerSecond(idleStart.bench, ownCpuMs(), idleMs)! };
    for (const [index, placement] of options.placements.entries()) {
      const attack = await launchAttack(options.attack(server.url), placement);
      let flood: DeliveryLatency;
      let stats: AttackStats;
      // Let the attack reach its pace before timing.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const start = { at: performance.now(), server: processCpuMs(server.pid), attacker: processCpuMs(attack.pid), bench: ownCpuMs() };
      let cpu: { server?: number; attacker?: number; bench: number };
      try {
        flood = await timePhase(phases[index + 1].prefix);
      } finally {
        const wallMs = performance.now() - start.at;
        cpu = { server: cpuPerSecond(start.server, processCpuMs(server.pid), wallMs), attacker: placement === "bench" ? undefined : cpuPerSecond(start.attacker, processCpuMs(attack.pid), wallMs), bench: cpuPerSecond(start.bench, ownCpuMs(), wallMs)! };
        stats = await attack.stop();
      }
      measured.push({ placement, flood, p99Ratio: Math.round((flood.p99Ms / idle.p99Ms) * 100) / 100, attack: stats, serverCpuMsPerS: cpu.server, attackerCpuMsPerS: cpu.attacker, benchCpuMsPerS: cpu.bench });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    idleAfter = await timePhase(phases.at(-1)!.prefix);
    alive = (await fetch(`${server.url}/api/health/live`).then((response) => response.status, () => 0)) === 200;
  } finally {
    await server.stop();
  }
  const applied = (latency: DeliveryLatency) => latency.ok === latency.deliveries;
  return { target: options.target, idle, phases: measured, idleAfter, idleServerCpuMsPerS: idleCpu.server, idleBenchCpuMsPerS: idleCpu.bench, ok: alive && applied(idle) && applied(idleAfter) && measured.every((phase) => applied(phase.flood)) };
}

/**
 * The anonymous server-action decode attack: `attackers` clients from one address each post, again
 * and again, a ~9 MB fetch-action body (an object of 800,000 keys) to the dead-letter retry action's
 * real id, against npm start's server (refused 403 before a byte of the body is read) or a bare
 * `next start` (refused 403 by proxy.ts after Next.js has read the whole body). See {@link measureAttack}.
 */
export function measureActionFlood(options: { target: "server" | "next-start"; attackers: number; placements: AttackerPlacement[]; deliveries: number; gapMs: number; maxSeconds: number }): Promise<AttackMeasurement> {
  const actionId = retryActionId();
  // The attackers' own address: the per-address bound (the default 20) applies to them, not to the deliveries.
  return measureAttack({ ...options, env: { RECEIVER_MAX_CONNECTIONS_PER_ADDRESS: "20" }, attack: (url) => ({ kind: "action", url, attackers: options.attackers, actionId, keys: 800_000, localAddress: "127.0.0.3" }) });
}

/**
 * The slow-body attack: `stalled` connections from 127.0.0.3 each send all but the last byte of a 1 MiB
 * webhook body and stall, each re-opened 100 ms after the server closes it, against `npm run receiver` or
 * npm start's server (both with their default bounds: 20 connections per address, 256 in all, and the
 * read timeout) or a bare `next start` (the read timeout only). See {@link measureAttack}.
 */
export function measureSlowBodies(options: { target: AttackMeasurement["target"]; stalled: number; placements: AttackerPlacement[]; deliveries: number; gapMs: number; maxSeconds: number; readTimeoutMs: number }): Promise<AttackMeasurement> {
  return measureAttack({
    ...options,
    env: { WEBHOOK_BODY_READ_TIMEOUT_MS: String(options.readTimeoutMs), RECEIVER_MAX_CONNECTIONS_PER_ADDRESS: "20" },
    attack: (url) => ({ kind: "slow-bodies", url, stalled: options.stalled, localAddress: "127.0.0.3", reopenAfterMs: 100 }),
  });
}
