// npm test: checks the import rules (npm run lint:arch) and the docs' links (lint:docs), builds the
// production app, runs every node:test file (unit tests beside the code in lib/** and in tests/unit/**, integration tests in
// tests/integration/**, end-to-end tests over HTTP in e2e/http/**) on SQLite, then again on PostgreSQL
// (in the time zone America/Argentina/Buenos_Aires unless TZ is set, so a time written in local time
// fails a test) with the Playwright specs (real Chromium) on PostgreSQL too, then the Playwright specs on SQLite. For
// the PostgreSQL pass it starts a throwaway cluster (lib/db/postgres-cluster.ts) and stops it at the
// end, unless TEST_POSTGRES_URL names one already running. Exits non-zero when any stage fails.
//   npm test [-- lint|build|unit|sqlite|postgres|browser]   one stage only (unit = both databases)
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { startThrowawayCluster, type ThrowawayCluster } from "@/lib/db/postgres-cluster";
import { errorMessage } from "@/lib/log/error-message";

function findTests(folder: string, pattern: RegExp): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder).flatMap((entry) => {
    const full = path.join(folder, entry);
    if (entry === "node_modules" || entry === "generated") return [];
    if (statSync(full).isDirectory()) return findTests(full, pattern);
    return pattern.test(entry) ? [full] : [];
  });
}

let cluster: ThrowawayCluster | undefined;

function stopCluster(): void {
  try {
    cluster?.stop();
  } catch (error) {
    console.error(`could not stop the PostgreSQL test cluster: ${errorMessage(error)}`);
  }
  cluster = undefined;
}

/**
 * How long one stage may take (minutes) before it is stopped and reported as failed. Each stage takes a
 * third of this or less here; the limits keep the whole run inside CI's 90 minutes, so a hang (a test
 * file whose process never exits) fails with the processes it left named instead of a silent time-out.
 */
const STAGE_LIMIT_MINUTES: Record<string, number> = { build: 10, node: 22, browser: 16 };

/** `pid` and every process below it, children before their parents (from `ps`). */
function processTree(pid: number): number[] {
  const ps = spawnSync("ps", ["-eo", "pid=,ppid="], { encoding: "utf8" });
  const children = new Map<number, number[]>();
  for (const line of (ps.stdout ?? "").trim().split("\n")) {
    const [child, parent] = line.trim().split(/\s+/).map(Number);
    children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  const below = (id: number): number[] => [...(children.get(id) ?? []).flatMap(below), id];
  return below(pid);
}

/** The stage running now, stopped with everything below it when this process is interrupted. */
let current: number | undefined;

function killTree(pid: number): void {
  for (const id of processTree(pid)) {
    try {
      process.kill(id, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

/** Runs one stage; a stage past `limitMinutes` is stopped with everything it started, after printing what was still running. */
async function run(label: string, command: string, args: string[], env: NodeJS.ProcessEnv = process.env, limitMinutes = 0): Promise<void> {
  console.log(`\n== ${label}: ${command} ${args.length > 6 ? `${args.slice(0, 6).join(" ")} …` : args.join(" ")}`);
  const started = Date.now();
  const child = spawn(command, args, { stdio: "inherit", env });
  current = child.pid;
  let overran = false;
  const limit =
    limitMinutes > 0
      ? setTimeout(() => {
          overran = true;
          console.error(`\n${label} did not end within ${limitMinutes} minutes; the processes still running:`);
          console.error(spawnSync("ps", ["-o", "pid,ppid,etimes,pcpu,args", "-p", processTree(child.pid!).join(",")], { encoding: "utf8" }).stdout);
          killTree(child.pid!);
        }, limitMinutes * 60_000)
      : undefined;
  const result = await new Promise<{ status: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (status, signal) => resolve({ status, signal })));
  clearTimeout(limit);
  current = undefined;
  console.log(`== ${label}: ${result.status === 0 ? "passed" : overran ? `STOPPED after its limit of ${limitMinutes} min` : "FAILED"} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (result.status !== 0) {
    console.error(`\n${label} failed (exit ${result.status ?? result.signal})`);
    stopCluster();
    process.exit(result.status ?? 1);
  }
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (current) killTree(current);
    stopCluster();
    process.exit(130);
  });
}

async function main(): Promise<void> {
  const only = process.argv[2];
  const stage = (name: string) => !only || only === name || (only === "unit" && (name === "sqlite" || name === "postgres"));
  const nodeTests = [...findTests("lib", /\.test\.ts$/), ...findTests("tests/unit", /\.test\.ts$/), ...findTests("tests/integration", /\.test\.ts$/), ...findTests("e2e/http", /\.test\.ts$/)].sort();
  // A test still running after 10 minutes fails (the longest take about 90 s here), so one that hangs
  // is named and its file's after() hooks stop what it started.
  const nodeArgs = ["--import", "tsx", "--test", "--test-concurrency=2", "--test-timeout=600000", "--test-reporter=spec", ...nodeTests];
  const testEnv = { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? "silent" };
  const playwright = ["node_modules/@playwright/test/cli.js", "test"];
  const hasBrowserTests = findTests("e2e/browser", /\.spec\.ts$/).length > 0;

  if (stage("lint")) {
    await run("lint:arch", process.execPath, ["--import", "tsx", "scripts/lint-arch.ts"]);
    await run("lint:docs", process.execPath, ["--import", "tsx", "scripts/check-doc-links.ts"]);
  }
  if (stage("build")) await run("build", process.execPath, ["node_modules/next/dist/bin/next", "build"], process.env, STAGE_LIMIT_MINUTES.build);
  if (stage("sqlite")) await run("node tests on SQLite", process.execPath, nodeArgs, { ...testEnv, TEST_DATABASE: "sqlite" }, STAGE_LIMIT_MINUTES.node);
  if (stage("postgres")) {
    let adminUrl = process.env.TEST_POSTGRES_URL;
    if (!adminUrl) {
      const started = Date.now();
      cluster = await startThrowawayCluster();
      adminUrl = cluster.url;
      console.log(`\n== PostgreSQL test cluster on port ${cluster.port} (${cluster.dataDir}), ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
    try {
      // A host whose clock is not UTC (Buenos Aires, UTC-3 all year): every stored time must still be UTC.
      await run("node tests on PostgreSQL", process.execPath, nodeArgs, { ...testEnv, TZ: process.env.TZ ?? "America/Argentina/Buenos_Aires", TEST_DATABASE: "postgres", TEST_POSTGRES_URL: adminUrl }, STAGE_LIMIT_MINUTES.node);
      if (!only && hasBrowserTests) await run("browser tests on PostgreSQL", process.execPath, playwright, { ...process.env, TEST_DATABASE: "postgres", TEST_POSTGRES_URL: adminUrl }, STAGE_LIMIT_MINUTES.browser);
    } finally {
      stopCluster();
    }
  }
  if (stage("browser") && hasBrowserTests) await run("browser tests on SQLite", process.execPath, playwright, { ...process.env, TEST_DATABASE: "sqlite" }, STAGE_LIMIT_MINUTES.browser);
}

main().catch((error: unknown) => {
  console.error(errorMessage(error));
  stopCluster();
  process.exit(1);
});
