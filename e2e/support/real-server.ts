// Real processes for recovery tests: the built Next.js server (`next start`) and `npm run worker`
// (as `node --import tsx scripts/worker.ts`, one PID), each a child with its own environment, killed
// with real signals. Every test file gets its own SQLite file and free ports.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";
import { freePort } from "@/lib/net/free-port";
import { newTestDatabase, type TestDatabase } from "./test-database";

export const E2E_API_TOKEN = "e2e-api-token-0123456789abcdef-0001";
export const E2E_AUTH_SECRET = "e2e-auth-secret-0123456789abcdef-0123456789";
export const E2E_LAB_SECRET = "e2e_lab_secret_0001";

const ROOT = process.cwd();
const BUILD_LOCK = path.join(ROOT, ".next-e2e-build.lock");

function newestSourceMtime(entry: string): number {
  const full = path.join(ROOT, entry);
  if (!existsSync(full)) return 0;
  const stat = statSync(full);
  if (!stat.isDirectory()) return /\.test\.ts$/.test(entry) ? 0 : stat.mtimeMs;
  return Math.max(0, ...readdirSync(full).filter((name) => name !== "generated" && name !== "node_modules").map((name) => newestSourceMtime(path.join(entry, name))));
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Makes sure `.next` holds a production build of the current sources: builds once when there is none
 * or a source file is newer than it (`npm test` builds first, so CI never builds here). A lock folder
 * keeps two test files from building at the same time.
 */
/** Whether the build lock's holder (the pid it wrote) is no longer running; false while it is, or before it wrote its pid. */
function lockHolderGone(): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(path.join(BUILD_LOCK, "pid"), "utf8"));
  } catch {
    return false;
  }
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

export function ensureBuilt(): void {
  for (;;) {
    try {
      mkdirSync(BUILD_LOCK);
      writeFileSync(path.join(BUILD_LOCK, "pid"), String(process.pid));
      break;
    } catch {
      // A lock whose holder has died (a run stopped mid-build) is stale at once, not after ten minutes.
      if (lockHolderGone() || Date.now() - (statSync(BUILD_LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 600_000) rmSync(BUILD_LOCK, { recursive: true, force: true });
      sleepSync(200);
    }
  }
  try {
    const buildId = path.join(ROOT, ".next", "BUILD_ID");
    const built = existsSync(buildId) ? statSync(buildId).mtimeMs : 0;
    const sources = Math.max(...["app", "lib", "instrumentation.ts", "instrumentation-node.ts", "next.config.mjs", "package.json", "prisma/schema.prisma"].map(newestSourceMtime));
    if (built > sources) return;
    const result = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], { cwd: ROOT, env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" }, encoding: "utf8" });
    if (result.status !== 0) throw new Error(`next build failed:\n${result.stdout}\n${result.stderr}`);
  } finally {
    rmSync(BUILD_LOCK, { recursive: true, force: true });
  }
}

/** A new migrated database of the kind under test (SQLite file, or PostgreSQL with TEST_DATABASE=postgres). */
export function newDatabase(): TestDatabase {
  return newTestDatabase("e2e");
}

/** Polls `check` every `intervalMs` until it returns a truthy value; throws after `timeoutMs` naming `what`. */
export async function waitFor<T>(what: string, check: () => Promise<T> | T, { timeoutMs = 30_000, intervalMs = 50 } = {}): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as NonNullable<T>;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${lastError ? ` (last error: ${String(lastError)})` : ""}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** How long a test waits for a process to stop after SIGTERM or SIGINT before it kills it (ms). */
export const STOP_GRACE_MS = 60_000;

/** A child process with its output kept (for failure messages) and its exit awaited. */
export class Child {
  readonly output: string[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  constructor(readonly name: string, readonly process: ChildProcess) {
    process.stdout?.on("data", (chunk: Buffer) => this.output.push(chunk.toString("utf8")));
    process.stderr?.on("data", (chunk: Buffer) => this.output.push(chunk.toString("utf8")));
    this.exited = new Promise((resolve) => process.on("exit", (code, signal) => resolve({ code, signal })));
  }

  get alive(): boolean {
    return this.process.exitCode === null && this.process.signalCode === null;
  }

  /**
   * Sends `signal` (if still running) and waits for the exit. A process still running
   * {@link STOP_GRACE_MS} after a signal other than SIGKILL is killed, and the call throws naming it
   * with its last output: a stop that hangs fails its test instead of holding the whole run.
   */
  async kill(signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.alive) this.process.kill(signal);
    if (signal === "SIGKILL") return this.exited;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), STOP_GRACE_MS)));
    const result = await Promise.race([this.exited, late]);
    clearTimeout(timer);
    if (result !== "late") return result;
    this.process.kill("SIGKILL");
    await this.exited;
    throw new Error(`${this.name} did not exit within ${STOP_GRACE_MS / 1000} s of ${signal}; killed. Its last output:\n${this.log()}`);
  }

  log(): string {
    return this.output.join("").slice(-4_000);
  }
}

/** Environment shared by the server and the workers of one test: its database, secrets, fast polling. */
export type Env = Record<string, string | undefined>;

export function baseEnv(databaseUrl: string, extra: Env = {}): Env {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NEXT_TELEMETRY_DISABLED: "1",
    DATABASE_URL: databaseUrl,
    API_TOKEN: E2E_API_TOKEN,
    AUTH_SECRET: E2E_AUTH_SECRET,
    LAB_WEBHOOK_SECRET: E2E_LAB_SECRET,
    LAB_PROCESSING_MODE: "inbox",
    // A worker process finds a stored event within 200 ms (the server's own worker is woken at once). At
    // 50 ms each idle server and worker used a tenth of a core polling (measured: 1.0 CPU s per 10 s
    // idle, 0.4-0.5 at 200 ms, 0.2-0.35 at the default 500), which the tests beside them paid for.
    INBOX_POLL_INTERVAL_MS: "200",
    LOG_LEVEL: "warn",
    // Every test client connects from 127.0.0.1: the receiver's per-address cap (20) would refuse a
    // concurrent burst by timing. The caps are the subject of the slow-body tests, which set their own.
    RECEIVER_MAX_CONNECTIONS_PER_ADDRESS: "0",
    ...extra,
  };
}

/** Starts `next start` on a free port; resolves once it answers. */
export async function startServer(env: Env): Promise<{ child: Child; url: string }> {
  const port = await freePort();
  const child = new Child("server", spawn(process.execPath, ["node_modules/next/dist/bin/next", "start", "-p", String(port), "-H", "127.0.0.1"], { cwd: ROOT, env: env as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"] }));
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`server on ${url}`, async () => {
    if (!child.alive) throw new Error(`server exited:\n${child.log()}`);
    return (await fetch(`${url}/api/metrics`, { headers: { authorization: `Bearer ${E2E_API_TOKEN}` } })).status === 200;
  });
  return { child, url };
}

/** Starts `npm run worker` (as one node process). `env` may arm a test crash point. */
export function startWorker(env: Env): Child {
  return new Child("worker", spawn(process.execPath, ["--import", "tsx", "scripts/worker.ts"], { cwd: ROOT, env: { ...env, NODE_ENV: "test" } as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"] }));
}

/** Starts `npm run receiver` (as one node process) on a free port; resolves once it answers its liveness probe. */
export async function startReceiver(env: Env): Promise<{ child: Child; url: string }> {
  const port = await freePort();
  const child = new Child("receiver", spawn(process.execPath, ["--import", "tsx", "scripts/receiver.ts"], { cwd: ROOT, env: { ...env, RECEIVER_PORT: String(port) } as unknown as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"] }));
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`receiver on ${url}`, async () => {
    if (!child.alive) throw new Error(`receiver exited:\n${child.log()}`);
    return (await fetch(`${url}/api/health/live`)).status === 200;
  });
  return { child, url };
}

// Each post on its own connection: a pooled keep-alive socket the server is closing at that instant
// (its 5 s idle timeout, under load) resets the request before the server reads it, and a test asserting
// the one answer of one delivery must not read that as the server's.
const FRESH_CONNECTION = { connection: "close" } as const;

/** Posts a signed lab delivery to a running server (on a connection of its own); `signal` can bound the wait. */
export async function postLab(url: string, body: string, timestamp = Math.floor(Date.now() / 1000), signal?: AbortSignal): Promise<{ status: number; json: { outcome: string; reason: string } }> {
  const response = await fetch(`${url}/api/webhooks/lab`, { method: "POST", body, signal, headers: { ...FRESH_CONNECTION, "content-type": "application/json", "Lab-Signature": signTimestamped(E2E_LAB_SECRET, timestamp, body) } });
  return { status: response.status, json: await response.json() };
}

/** Creates an order on a running server. */
export async function postOrder(url: string, id: string, amount: number, currency = "ARS"): Promise<number> {
  const response = await fetch(`${url}/api/orders`, { method: "POST", body: JSON.stringify({ id, amount, currency }), headers: { ...FRESH_CONNECTION, "content-type": "application/json", authorization: `Bearer ${E2E_API_TOKEN}` } });
  await response.arrayBuffer();
  return response.status;
}
