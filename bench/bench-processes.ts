import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { BENCH_API_TOKEN, BENCH_AUTH_SECRET, BENCH_SECRET } from "@/bench/bench-data";
import { serverArguments, serverProcessFlags } from "@/lib/config/server-process-flags";
import { settingFrom } from "@/lib/config/settings";
import { freePort } from "@/lib/net/free-port";

/** A server process started for a benchmark: where it listens, and how to stop it. */
export interface BenchServer {
  url: string;
  pid: number;
  /** Everything it printed on stderr (stdout is discarded: the decision log would dominate). */
  stderr: () => string;
  stop: () => Promise<void>;
}


/** Builds the production app when there is no build yet (a fresh clone), or always with `force`. */
export function ensureProductionBuild(force = false): void {
  if (existsSync(".next/BUILD_ID") && !force) return;
  console.log("Building the production app (next build) ...");
  const build = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], { stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
  if (build.status !== 0) throw new Error(`next build failed (exit ${build.status})`);
}

/** Waits until `url` answers (with 200 when `healthy`: Acredita's health check says its database is up). */
async function waitUntilUp(child: ChildProcess, url: string, stderr: () => string, healthy = false): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode}): ${stderr().slice(-2_000)}`);
    const up = await fetch(url).then((response) => !healthy || response.status === 200, () => false);
    if (up) return;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`server not ready in 60 s: ${stderr().slice(-2_000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function track(child: ChildProcess, url: string): BenchServer {
  let stderr = "";
  child.stderr?.on("data", (chunk) => (stderr += chunk));
  return {
    url,
    pid: child.pid!,
    stderr: () => stderr,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** The environment of an Acredita process under benchmark: production, the bench secret and token, info logs to stdout, `extra` last. */
function acreditaEnv(databaseFile: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: "production",
    // A SQLite file path, or a postgresql:// URL as it is.
    DATABASE_URL: /^postgres(ql)?:\/\//.test(databaseFile) ? databaseFile : `file:${databaseFile}`,
    LAB_WEBHOOK_SECRET: BENCH_SECRET,
    API_TOKEN: BENCH_API_TOKEN,
    AUTH_SECRET: BENCH_AUTH_SECRET,
    LOG_LEVEL: "info",
    LOG_FILE: "",
    ...extra,
  };
}

/**
 * Starts Acredita's production build as `npm start` runs it (scripts/server.mjs: Next.js's handler in
 * Acredita's bounded HTTP server, with the heap flags `npm start` gives it), or with `entry: "next-start"`
 * as a bare `next start` (no connection bounds), on a free port against the SQLite `databaseFile` (or a
 * postgresql:// URL), with the benchmark secret and token and `env` added. The load of a benchmark comes
 * from one address: the per-address connection bound is off unless `env` sets
 * RECEIVER_MAX_CONNECTIONS_PER_ADDRESS. With `cpuProfDir`, Node writes a V8 CPU profile there when the
 * process exits (`--cpu-prof`).
 */
export async function startAcredita(databaseFile: string, env: Record<string, string> = {}, cpuProfDir?: string, { entry = "server" }: { entry?: "server" | "next-start" } = {}): Promise<BenchServer> {
  const port = await freePort();
  const flags = [...serverProcessFlags(), ...(cpuProfDir ? ["--cpu-prof", `--cpu-prof-dir=${cpuProfDir}`] : [])];
  const processEnv = acreditaEnv(databaseFile, { PORT: String(port), AUTH_BASE_URL: `http://127.0.0.1:${port}`, NEXT_TELEMETRY_DISABLED: "1", RECEIVER_MAX_CONNECTIONS_PER_ADDRESS: "0", ...env });
  const setting = <K extends "WEBHOOK_BODY_READ_TIMEOUT_MS" | "RECEIVER_MAX_CONNECTIONS_PER_ADDRESS" | "RECEIVER_MAX_CONNECTIONS">(name: K) => settingFrom(name, processEnv);
  const command =
    entry === "server"
      ? serverArguments({ PORT: port, WEBHOOK_BODY_READ_TIMEOUT_MS: setting("WEBHOOK_BODY_READ_TIMEOUT_MS"), RECEIVER_MAX_CONNECTIONS_PER_ADDRESS: setting("RECEIVER_MAX_CONNECTIONS_PER_ADDRESS"), RECEIVER_MAX_CONNECTIONS: setting("RECEIVER_MAX_CONNECTIONS") }, "127.0.0.1")
      : ["node_modules/next/dist/bin/next", "start", "-p", String(port), "-H", "127.0.0.1"];
  const child = spawn(process.execPath, [...flags, ...command], { env: processEnv, stdio: ["ignore", "ignore", "pipe"] });
  const server = track(child, `http://127.0.0.1:${port}`);
  await waitUntilUp(child, `${server.url}/api/health`, server.stderr, true);
  return server;
}

/**
 * Starts `npm run receiver` (the dedicated webhook receiver, lib/receiver/) as one node process on a
 * free port against the SQLite `databaseFile`, with the same secret and settings as {@link startAcredita}.
 */
export async function startReceiverProcess(databaseFile: string, env: Record<string, string> = {}, cpuProfDir?: string): Promise<BenchServer> {
  const port = await freePort();
  const flags = cpuProfDir ? ["--cpu-prof", `--cpu-prof-dir=${cpuProfDir}`] : [];
  const child = spawn(process.execPath, [...flags, "--import", "tsx", "scripts/receiver.ts"], {
    // The load comes from one address: the per-address cap is off unless a measurement sets it.
    env: acreditaEnv(databaseFile, { RECEIVER_PORT: String(port), RECEIVER_MAX_CONNECTIONS_PER_ADDRESS: "0", ...env }),
    stdio: ["ignore", "ignore", "pipe"],
  });
  const server = track(child, `http://127.0.0.1:${port}`);
  await waitUntilUp(child, `${server.url}/api/health/live`, server.stderr, true);
  return server;
}

/** Starts one of the yardstick servers (bench/baseline-server.ts) on a free port. */
export async function startBaseline(kind: "limit" | "naive", databaseFile: string): Promise<BenchServer> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "bench/baseline-server.ts", kind, databaseFile, String(port), BENCH_SECRET], { stdio: ["ignore", "ignore", "pipe"] });
  const server = track(child, `http://127.0.0.1:${port}`);
  await waitUntilUp(child, server.url, server.stderr);
  return server;
}
