import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { connect, type Socket } from "node:net";
import Database from "better-sqlite3";
import { benchFolder, createBenchDatabase, labApprovals, seedOrders, type SignedDelivery } from "@/bench/bench-data";
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

/** The anonymous server-action flood of one run: deliveries idle and under it, and how the attack was answered. */
export interface ActionFloodMeasurement {
  idle: DeliveryLatency;
  flood: DeliveryLatency;
  /** p99 under the attack ÷ p99 idle (target <= 2). */
  p99Ratio: number;
  /** Concurrent attackers, each posting again as soon as it is answered. */
  attackers: number;
  /** Attack posts answered, by status (403: refused by proxy.ts before any decode), and the bytes each carried. */
  attackStatuses: Record<string, number>;
  attackBytes: number;
  /** The server was still the same process at the end, and every real delivery was applied. */
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
 * The anonymous server-action decode attack, as a benchmark: `next start` (with the
 * start's heap cap) receives `deliveries` real signed deliveries one at a time idle, then as many while
 * `attackers` anonymous clients each post, again and again, ~9.5 MB fetch-action bodies (an object of
 * 800,000 keys) to the dead-letter retry action's real id. Reports both phases' p50 and p99 and their
 * ratio (target p99 under the attack <= 2x idle), and how the attack was answered.
 */
export async function measureActionFlood(options: { deliveries: number; attackers: number; gapMs: number; maxSeconds: number }): Promise<ActionFloodMeasurement> {
  const folder = benchFolder("action-flood");
  const file = createBenchDatabase(folder);
  seedOrders(file, "ord_ai", options.deliveries, 2_500);
  seedOrders(file, "ord_af", options.deliveries, 2_500);
  seedOrders(file, "ord_aw", 50, 2_500);
  const server = await startAcredita(file, { LAB_PROCESSING_MODE: "inline" });
  const url = new URL(server.url);
  const body = `[{${Array.from({ length: 800_000 }, (_, i) => `"k${i}":0`).join(",")}}]`;
  const actionId = retryActionId();
  const attackStatuses: Record<string, number> = {};
  let idle: DeliveryLatency;
  let flood: DeliveryLatency;
  let alive = true;
  try {
    await timeDeliveries(url, labApprovals("evt_aw", "ord_aw", 50, 2_500), 5);
    idle = await timeDeliveries(url, labApprovals("evt_ai", "ord_ai", options.deliveries, 2_500), options.gapMs, options.maxSeconds);
    let attacking = true;
    const agent = new Agent({ keepAlive: false, maxSockets: options.attackers });
    const attackers = Array.from({ length: options.attackers }, async () => {
      while (attacking) {
        const answer = await post(agent, url, "/dead-letters", body, { "next-action": actionId, "content-type": "text/plain;charset=UTF-8", origin: server.url });
        attackStatuses[answer.status] = (attackStatuses[answer.status] ?? 0) + 1;
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    try {
      flood = await timeDeliveries(url, labApprovals("evt_af", "ord_af", options.deliveries, 2_500), options.gapMs, options.maxSeconds);
    } finally {
      attacking = false;
      await Promise.all(attackers);
      agent.destroy();
    }
    alive = (await fetch(`${server.url}/api/health/live`).then((response) => response.status, () => 0)) === 200;
  } finally {
    await server.stop();
  }
  return {
    idle,
    flood,
    p99Ratio: Math.round((flood.p99Ms / idle.p99Ms) * 100) / 100,
    attackers: options.attackers,
    attackStatuses,
    attackBytes: Buffer.byteLength(body),
    ok: alive && idle.ok === idle.deliveries && flood.ok === flood.deliveries,
  };
}

/** The slow-body attack of one run: deliveries idle and under it, and how the stalled connections were answered. */
export interface SlowBodyMeasurement {
  target: "next" | "receiver";
  idle: DeliveryLatency;
  flood: DeliveryLatency;
  /** p99 under the attack ÷ p99 idle (target <= 2). */
  p99Ratio: number;
  /** Connections kept open at once from one address, each sending all but the last byte of a 1 MiB body. */
  stalled: number;
  /** How the stalled connections were answered, by the first line's status (408 read timeout, 503 over the caps), and those closed with no answer. */
  answers: Record<string, number>;
  /** Every real delivery applied. */
  ok: boolean;
}

const STALLING_BODY_BYTES = 1_048_576;
/** How long a closed attack connection waits before it is opened again (ms). */
const REOPEN_AFTER_MS = 100;

/**
 * The slow-body attack as a benchmark: `stalled` connections from 127.0.0.3 each send all but the last
 * byte of a 1 MiB webhook body and stall, each re-opened 100 ms after the server closes it, while `deliveries`
 * real signed deliveries from 127.0.0.1 are timed one at a time; the same deliveries idle first. Against
 * `npm run receiver` (its per-address and total connection caps and its read timeout) or `next start`
 * (its read timeout only: `next start` has no connection cap). Target: p99 under the attack <= 2x idle.
 */
export async function measureSlowBodies(options: { target: "next" | "receiver"; stalled: number; deliveries: number; gapMs: number; maxSeconds: number; readTimeoutMs: number }): Promise<SlowBodyMeasurement> {
  const folder = benchFolder(`slow-bodies-${options.target}`);
  const file = createBenchDatabase(folder);
  seedOrders(file, "ord_si", options.deliveries, 2_500);
  seedOrders(file, "ord_sf", options.deliveries, 2_500);
  seedOrders(file, "ord_sw", 50, 2_500);
  // The receiver with its default caps (20 per address, 256 in all): the subject here.
  const env = { LAB_PROCESSING_MODE: "inline", WEBHOOK_BODY_READ_TIMEOUT_MS: String(options.readTimeoutMs), RECEIVER_MAX_CONNECTIONS_PER_ADDRESS: "20" };
  const server = options.target === "receiver" ? await startReceiverProcess(file, env) : await startAcredita(file, env);
  const url = new URL(server.url);
  const head = `POST /api/webhooks/lab HTTP/1.1\r\nhost: acredita\r\ncontent-type: application/json\r\ncontent-length: ${STALLING_BODY_BYTES}\r\n\r\n`;
  const stallingRequest = head + " ".repeat(STALLING_BODY_BYTES - 1);
  const answers: Record<string, number> = {};
  const sockets = new Set<Socket>();
  let attacking = false;
  const open = (): void => {
    if (!attacking) return;
    const socket = connect({ host: url.hostname, port: Number(url.port), localAddress: "127.0.0.3" });
    sockets.add(socket);
    let first = "";
    socket.on("data", (chunk: Buffer) => {
      if (first.length < 12) first += chunk.toString("latin1");
    });
    socket.on("error", () => undefined);
    socket.on("close", () => {
      sockets.delete(socket);
      const status = /^HTTP\/1\.1 (\d{3})/.exec(first)?.[1] ?? "closed";
      answers[status] = (answers[status] ?? 0) + 1;
      // Re-opened after a pause: the attacker runs on the same two cores, and re-opening at once would
      // measure its own megabytes of writes (2 GB/s on loopback) rather than the server's defence.
      setTimeout(open, REOPEN_AFTER_MS);
    });
    socket.once("connect", () => socket.write(stallingRequest));
  };
  let idle: DeliveryLatency;
  let flood: DeliveryLatency;
  try {
    await timeDeliveries(url, labApprovals("evt_sw", "ord_sw", 50, 2_500), 5);
    idle = await timeDeliveries(url, labApprovals("evt_si", "ord_si", options.deliveries, 2_500), options.gapMs, options.maxSeconds);
    attacking = true;
    for (let i = 0; i < options.stalled; i++) open();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    try {
      flood = await timeDeliveries(url, labApprovals("evt_sf", "ord_sf", options.deliveries, 2_500), options.gapMs, options.maxSeconds);
    } finally {
      attacking = false;
      for (const socket of sockets) socket.destroy();
    }
  } finally {
    await server.stop();
  }
  return {
    target: options.target,
    idle,
    flood,
    p99Ratio: Math.round((flood.p99Ms / idle.p99Ms) * 100) / 100,
    stalled: options.stalled,
    answers,
    ok: idle.ok === idle.deliveries && flood.ok === flood.deliveries,
  };
}
