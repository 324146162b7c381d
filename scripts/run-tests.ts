// npm test: the whole suite, in tiers (docs/testing.md), each run where it proves something:
//   unit     lib/**/*.test.ts and tests/unit/**: no database, no process; run once, in ONE process
//            (but a file that changes the process: `// own-process: <reason>`).
//   db       tests/integration/**: lib and SQL against a database, in process; on SQLite and on PostgreSQL.
//   process  e2e/http/**: real servers, workers, CLIs and signals; on SQLite. Those whose subject is the
//            database itself (`*.database.test.ts`: scale-out, reconnect, restart with an upgrade) on
//            PostgreSQL too.
//   browser  e2e/browser/** (Playwright, Debian's Chromium headless shell): once, on PostgreSQL.
// Order: the import rules and the docs' links, the production build; then two lanes side by side (two
// cores: one each): the browser specs then db + the database's process tests on PostgreSQL; and unit +
// db + process on SQLite. Within a node stage the longest files start first (process, db, unit). The
// PostgreSQL work runs in the time zone America/Argentina/Buenos_Aires unless TZ is set, so a time
// written in local time fails a test, on a throwaway cluster (lib/db/postgres-cluster.ts) unless
// TEST_POSTGRES_URL names one already running.
// Every node test file's wall and CPU time is recorded (scripts/test-file-timer.ts) and Playwright's
// per spec: the 20 slowest are printed, and a node file over SLOW_FILE_SECONDS of CPU (or twice that
// in wall time) fails the run unless it says why it is slow (a `// slow-test: <reason>` line). The
// whole run has one budget (BUDGET_SECONDS): a stage still running when it is spent is stopped and the
// run fails.
// Exits non-zero when any stage fails.
//   npm test [-- lint|build|unit|sqlite|postgres|browser]   one stage only
import { spawn, spawnSync } from "node:child_process";
import { createWriteStream, existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fillDatabasePool } from "@/e2e/support/postgres-test-database";
import { startThrowawayCluster, type ThrowawayCluster } from "@/lib/db/postgres-cluster";
import { dropDatabase } from "@/lib/db/postgres-database";
import { errorMessage } from "@/lib/log/error-message";

/**
 * A node test file that costs more than this fails the run unless it carries a `// slow-test: <reason>`
 * line: more CPU seconds (its own process and the children it waited for: servers, workers, CLIs), or
 * more than twice this in wall seconds (a file that mostly waits still holds one of the two places).
 * CPU seconds, because the machine is shared: the node stages run beside the browser specs, and a
 * file's wall time says as much about what ran beside it as about the file.
 */
const SLOW_FILE_SECONDS = 30;
/** The stages whose file times the slow-file rule judges (see {@link reportTimes}): the node stages. */
const JUDGED_STAGES: ReadonlySet<string> = new Set(["sqlite", "unit", "postgres"]);
/** A single test still running after this is failed and named (node:test's --test-timeout). */
const TEST_TIMEOUT_MS = 150_000;

function findTests(folder: string, pattern: RegExp): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder).flatMap((entry) => {
    const full = path.join(folder, entry);
    if (entry === "node_modules" || entry === "generated") return [];
    if (statSync(full).isDirectory()) return findTests(full, pattern);
    return pattern.test(entry) ? [full] : [];
  });
}

/** A unit file's reason to run in a process of its own (`// own-process: <reason>`), or undefined. */
function ownProcessReason(file: string): string | undefined {
  return /^\s*\/\/\s*own-process:\s*(\S.*)$/m.exec(readFileSync(file, "utf8"))?.[1]?.trim();
}

/** What a unit file does to its whole process: sets, assigns or deletes environment variables, or changes directory. */
const PROCESS_WIDE = /process\.env(\.\w+|\[[^\]]+\])?\s*=(?!=)|Object\.assign\(\s*process\.env\b|delete process\.env|process\.chdir\(/;

/**
 * The unit tier's files split by how they run: `shared`, imported together into ONE process (a unit
 * file costs ~0.7 CPU s to start on its own: tsx, zod and the modules it loads, against milliseconds
 * for its tests; 60 of them cost 44 CPU s apart, 8 together), and `own`, each in a process of its own:
 * those that change the whole process (its environment, time zone or directory) and say so
 * (`// own-process: <reason>`). Throws when a file changes the process without saying so: in the
 * shared process it would change the other files' tests.
 */
function unitFiles(): { shared: string[]; own: string[] } {
  const files = [...findTests("lib", /\.test\.ts$/), ...findTests("tests/unit", /\.test\.ts$/)].sort();
  const own = files.filter((file) => ownProcessReason(file) !== undefined);
  const unmarked = files.filter((file) => !own.includes(file) && PROCESS_WIDE.test(readFileSync(file, "utf8")));
  if (unmarked.length > 0) throw new Error(`unit test files that change the whole process (process.env, process.chdir) must run in a process of their own and say why (// own-process: <reason>): ${unmarked.join(", ")}`);
  return { shared: files.filter((file) => !own.includes(file)), own };
}

/** The name of the file that imports the shared unit files into one process (written into the run's scratch folder). */
const SHARED_UNIT_ENTRY = "unit-tier-shared.test.ts";

/** Writes the entry that imports `files` (the shared unit files) into one node:test process; returns its path. */
function writeSharedUnitEntry(scratch: string, files: string[]): string {
  const entry = path.join(scratch, SHARED_UNIT_ENTRY);
  const lines = [`// The unit tier's ${files.length} shared files, in one process (scripts/run-tests.ts, unitFiles).`, ...files.map((file) => `import ${JSON.stringify(path.resolve(file))};`)];
  writeFileSync(entry, `${lines.join("\n")}\n`);
  return entry;
}

/** The test files of each tier (see the header); the unit tier's as {@link unitFiles} splits them. */
function testTiers(): { unit: { shared: string[]; own: string[] }; db: string[]; process: string[]; processOnBoth: string[]; browser: string[] } {
  const process = findTests("e2e/http", /\.test\.ts$/).sort();
  return {
    unit: unitFiles(),
    db: findTests("tests/integration", /\.test\.ts$/).sort(),
    process,
    processOnBoth: process.filter((file) => file.endsWith(".database.test.ts")),
    browser: findTests("e2e/browser", /\.spec\.ts$/).sort(),
  };
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
 * The whole run's budget (seconds): past it, whatever stage is running is stopped with the processes it
 * started named, and the run fails. One budget for the suite, not one per stage, so the suite cannot grow
 * stage by stage: 15 minutes on a 2-core machine of CI's kind (the suite took 12 minutes there on
 * 2026-12-03). TEST_BUDGET_SECONDS sets another for a slower machine (docs/testing.md).
 */
const BUDGET_SECONDS = Number(process.env.TEST_BUDGET_SECONDS ?? 900);

/** When the budget runs out (ms since the epoch), from the start of the run. */
const deadline = Date.now() + BUDGET_SECONDS * 1000;

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

/** The stages running now, stopped with everything below them when this process is interrupted. */
const running = new Set<number>();

function killTree(pid: number): void {
  for (const id of processTree(pid)) {
    try {
      process.kill(id, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

interface StageResult {
  label: string;
  ok: boolean;
  seconds: number;
}

/**
 * Runs one stage; a stage still running when the run's budget ({@link BUDGET_SECONDS}) is spent is
 * stopped with everything it started, after printing what was still running. `logFile`: its output goes
 * there (a stage running beside another), printed when it ends. Resolves with whether it passed; never
 * exits.
 */
async function run(label: string, command: string, args: string[], env: NodeJS.ProcessEnv, logFile?: string): Promise<StageResult> {
  console.log(`\n== ${label}: ${command} ${args.length > 6 ? `${args.slice(0, 6).join(" ")} …` : args.join(" ")}${logFile ? ` (output: ${logFile})` : ""}`);
  const started = Date.now();
  const child = spawn(command, args, { stdio: logFile ? ["ignore", "pipe", "pipe"] : "inherit", env });
  if (logFile) {
    const log = createWriteStream(logFile);
    child.stdout!.pipe(log);
    child.stderr!.pipe(log);
  }
  running.add(child.pid!);
  let overran = false;
  const limit = setTimeout(
    () => {
      overran = true;
      console.error(`\nnpm test spent its budget of ${BUDGET_SECONDS} s during ${label}; the processes still running:`);
      console.error(spawnSync("ps", ["-o", "pid,ppid,etimes,pcpu,args", "-p", processTree(child.pid!).join(",")], { encoding: "utf8" }).stdout);
      killTree(child.pid!);
    },
    Math.max(0, deadline - Date.now()),
  );
  const result = await new Promise<{ status: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (status, signal) => resolve({ status, signal })));
  clearTimeout(limit);
  running.delete(child.pid!);
  const seconds = (Date.now() - started) / 1000;
  if (logFile) {
    // Let the pipes drain before printing what the stage wrote.
    await new Promise((resolve) => setTimeout(resolve, 200));
    console.log(`\n== ${label}: its output\n${readFileSync(logFile, "utf8")}`);
  }
  const ok = result.status === 0;
  console.log(`== ${label}: ${ok ? "passed" : overran ? `STOPPED: the run's budget of ${BUDGET_SECONDS} s is spent` : `FAILED (exit ${result.status ?? result.signal})`} in ${seconds.toFixed(1)} s`);
  return { label, ok, seconds };
}

/** Every test file's wall time recorded so far in this run. */
const times: FileTime[] = [];

/** Stops the run when a stage failed, after the time report of what ran. */
function mustPass(result: StageResult): void {
  if (result.ok) return;
  console.error(`\n${result.label} failed`);
  // A stage still running beside it is stopped: the run has failed.
  stopEverything();
  if (times.length > 0) reportTimes(times);
  process.exit(1);
}

/** Stops every stage still running (with what it started) and the throwaway cluster. */
function stopEverything(): void {
  for (const pid of running) killTree(pid);
  stopCluster();
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    stopEverything();
    process.exit(130);
  });
}

/** One test file's wall time in one stage. */
interface FileTime {
  stage: string;
  file: string;
  /** Wall seconds. */
  seconds: number;
  /** CPU seconds of the file's process and the children it waited for (node test files only). */
  cpuSeconds?: number;
}

/** The node test files' wall times a stage recorded (scripts/test-file-timer.ts). */
function nodeFileTimes(stage: string, folder: string): FileTime[] {
  return readdirSync(folder).flatMap((entry) => {
    try {
      const { file, ms, cpuOwn, cpuChildren } = JSON.parse(readFileSync(path.join(folder, entry), "utf8")) as { file: string; ms: number; cpuOwn?: number; cpuChildren?: number };
      const shown = path.basename(file) === SHARED_UNIT_ENTRY ? `the unit tier's shared files (one process)` : file;
      return [{ stage, file: shown, seconds: ms / 1000, ...(cpuOwn === undefined ? {} : { cpuSeconds: cpuOwn + (cpuChildren ?? 0) }) }];
    } catch {
      return [];
    }
  });
}

/** Playwright's per-spec durations from its JSON report (the sum of its tests' results). */
function browserFileTimes(stage: string, reportFile: string): FileTime[] {
  if (!existsSync(reportFile)) return [];
  type Suite = { file?: string; specs?: { tests?: { results?: { duration?: number }[] }[] }[]; suites?: Suite[] };
  const totals = new Map<string, number>();
  const walk = (suite: Suite, file: string | undefined) => {
    const here = suite.file ?? file;
    for (const spec of suite.specs ?? []) {
      const ms = (spec.tests ?? []).flatMap((one) => one.results ?? []).reduce((sum, result) => sum + (result.duration ?? 0), 0);
      if (here) totals.set(here, (totals.get(here) ?? 0) + ms);
    }
    for (const child of suite.suites ?? []) walk(child, here);
  };
  try {
    for (const suite of (JSON.parse(readFileSync(reportFile, "utf8")) as { suites?: Suite[] }).suites ?? []) walk(suite, undefined);
  } catch {
    return [];
  }
  return [...totals].map(([file, ms]) => ({ stage, file: path.join("e2e/browser", file), seconds: ms / 1000 }));
}

/** The reason a file gives for being slow (`// slow-test: <reason>`), or undefined. */
function slowReason(file: string): string | undefined {
  try {
    return /^\s*\/\/\s*slow-test:\s*(\S.*)$/m.exec(readFileSync(file, "utf8"))?.[1]?.trim();
  } catch {
    return undefined;
  }
}

/** Whether a node test file costs more than {@link SLOW_FILE_SECONDS} allows (CPU, or twice it in wall time). */
function overBudget(time: FileTime): boolean {
  return time.cpuSeconds !== undefined && (time.cpuSeconds > SLOW_FILE_SECONDS || time.seconds > 2 * SLOW_FILE_SECONDS);
}

/**
 * Prints the 20 slowest files (wall seconds, and CPU seconds for node files) and returns the node files
 * over budget ({@link overBudget}) that do not say why. Browser specs are shown, not judged: their time
 * is Chromium's and the server's, not the spec file's process.
 */
function reportTimes(times: FileTime[]): FileTime[] {
  const sorted = [...times].sort((a, b) => b.seconds - a.seconds);
  console.log(`\n== the 20 slowest test files (of ${times.length} runs; wall s, CPU s; a node file over ${SLOW_FILE_SECONDS} CPU s or ${2 * SLOW_FILE_SECONDS} wall s must say why: // slow-test: <reason>)`);
  for (const time of sorted.slice(0, 20)) {
    const reason = overBudget(time) ? slowReason(time.file) : undefined;
    const cpu = time.cpuSeconds === undefined ? "" : time.cpuSeconds.toFixed(1);
    console.log(`${time.seconds.toFixed(1).padStart(7)} ${cpu.padStart(6)}  ${time.stage.padEnd(8)} ${time.file}${reason ? `  (slow: ${reason})` : ""}`);
  }
  return sorted.filter((time) => JUDGED_STAGES.has(time.stage) && overBudget(time) && slowReason(time.file) === undefined);
}

/** Drops the pool's databases that no test file took (their `.url` files are still there). */
async function dropUnclaimed(adminUrl: string, pool: string): Promise<void> {
  for (const entry of readdirSync(pool).filter((name) => name.endsWith(".url"))) {
    await dropDatabase(adminUrl, entry.slice(0, -".url".length)).catch((error: unknown) => console.error(`could not drop ${entry}: ${errorMessage(error)}`));
  }
}

async function main(): Promise<void> {
  const only = process.argv[2];
  if (only && !["lint", "build", "unit", "sqlite", "postgres", "browser"].includes(only)) {
    console.error("usage: npm test [-- lint|build|unit|sqlite|postgres|browser]");
    process.exit(2);
  }
  const stage = (name: string) => !only || only === name;
  const tiers = testTiers();
  const started = Date.now();
  const scratch = mkdtempSync(path.join(tmpdir(), "acredita-test-run-"));
  const unitTier = [writeSharedUnitEntry(scratch, tiers.unit.shared), ...tiers.unit.own];
  const nodeArgs = (files: string[]) => ["--import", "tsx", "--import", "./scripts/test-file-timer.ts", "--test", "--test-concurrency=2", `--test-timeout=${TEST_TIMEOUT_MS}`, "--test-reporter=spec", ...files];
  const nodeEnv = (name: string, extra: Record<string, string>) => {
    const folder = path.join(scratch, name);
    spawnSync("mkdir", ["-p", folder]);
    return { env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? "silent", TEST_DURATIONS_DIR: folder, ...extra }, folder };
  };
  const playwright = ["node_modules/@playwright/test/cli.js", "test", "--reporter=list,json"];
  const playwrightEnv = (reportFile: string, extra: Record<string, string>) => ({ ...process.env, PLAYWRIGHT_JSON_OUTPUT_FILE: reportFile, ...extra });

  if (stage("lint")) {
    mustPass(await run("lint:arch", process.execPath, ["--import", "tsx", "scripts/lint-arch.ts"], process.env));
    mustPass(await run("lint:docs", process.execPath, ["--import", "tsx", "scripts/check-doc-links.ts"], process.env));
  }
  if (stage("build")) mustPass(await run("build", process.execPath, ["node_modules/next/dist/bin/next", "build"], process.env));
  if (only === "unit") {
    const { env, folder } = nodeEnv("unit", { TEST_DATABASE: "sqlite" });
    const result = await run("unit tests", process.execPath, nodeArgs(unitTier), env);
    times.push(...nodeFileTimes("unit", folder));
    mustPass(result);
  }
  const sqlite = stage("sqlite");
  const postgresNode = stage("postgres");
  const browser = stage("browser") && tiers.browser.length > 0;
  let adminUrl = process.env.TEST_POSTGRES_URL;
  if ((postgresNode || browser) && !adminUrl) {
    const clusterStarted = Date.now();
    cluster = await startThrowawayCluster();
    adminUrl = cluster.url;
    console.log(`\n== PostgreSQL test cluster on port ${cluster.port} (${cluster.dataDir}), ready in ${((Date.now() - clusterStarted) / 1000).toFixed(1)} s`);
  }
  const pool = path.join(scratch, "postgres-pool");
  try {
    const reportFile = path.join(scratch, "browser.json");
    // Two lanes, one core each: the browser specs (one Playwright worker) then the PostgreSQL node
    // stage; beside them the SQLite node stage. Each lane takes about half the run's CPU, so both cores
    // stay busy from the build to the end.
    const browserStage = browser
      ? // No review screenshots (E2E_SCREENSHOTS=0, e2e/browser/support/roles.ts): they assert nothing and cost ~25 s of Chromium.
        run("browser tests on PostgreSQL", process.execPath, playwright, playwrightEnv(reportFile, { TEST_DATABASE: "postgres", TEST_POSTGRES_URL: adminUrl!, E2E_SCREENSHOTS: process.env.E2E_SCREENSHOTS ?? "0" }), sqlite || postgresNode ? path.join(scratch, "browser.log") : undefined)
      : undefined;
    // The node files' PostgreSQL databases, made from the migrated template while the first stages run,
    // so each file takes one with a rename instead of a child process of its own.
    const poolFilled = postgresNode
      ? (async () => {
          spawnSync("mkdir", ["-p", pool]);
          const poolStarted = Date.now();
          const made = await fillDatabasePool(adminUrl!, pool, tiers.db.length + 10 * tiers.processOnBoth.length);
          console.log(`\n== ${made} PostgreSQL test databases made from the template in ${((Date.now() - poolStarted) / 1000).toFixed(1)} s`);
        })()
      : undefined;
    // Awaited before the PostgreSQL stage, not left as an unhandled rejection while other stages run.
    poolFilled?.catch(() => undefined);
    const browserThenPostgres = (async () => {
      const browserResult = browserStage ? await browserStage : undefined;
      if (browserResult) {
        times.push(...browserFileTimes("browser", reportFile));
        mustPass(browserResult);
      }
      if (!postgresNode) return;
      await poolFilled;
      const { env, folder } = nodeEnv("postgres", { TZ: process.env.TZ ?? "America/Argentina/Buenos_Aires", TEST_DATABASE: "postgres", TEST_POSTGRES_URL: adminUrl!, TEST_POSTGRES_POOL: pool });
      const result = await run("node tests on PostgreSQL (the database's process tests, db)", process.execPath, nodeArgs([...tiers.processOnBoth, ...tiers.db]), env, sqlite ? path.join(scratch, "postgres.log") : undefined);
      times.push(...nodeFileTimes("postgres", folder));
      mustPass(result);
    })();
    // A failure there (the pool could not be filled) ends the run at once, the SQLite stage stopped with it.
    browserThenPostgres.catch(abort);
    // Within a stage the longest files start first (the process tier, then db, then unit), so that the
    // short ones fill the cores at the end instead of one long file running alone.
    if (sqlite) {
      const { env, folder } = nodeEnv("sqlite", { TEST_DATABASE: "sqlite" });
      const result = await run("node tests on SQLite (process, db, unit)", process.execPath, nodeArgs([...tiers.process, ...tiers.db, ...unitTier]), env);
      times.push(...nodeFileTimes("sqlite", folder));
      mustPass(result);
    }
    await browserThenPostgres;
    // On a cluster of the caller's (TEST_POSTGRES_URL), the databases no file took are dropped; a throwaway cluster goes whole.
    if (!cluster && postgresNode && adminUrl) await dropUnclaimed(adminUrl, pool);
  } finally {
    stopCluster();
  }
  if (times.length > 0) {
    const unexplained = reportTimes(times);
    if (unexplained.length > 0) {
      console.error(`\n${unexplained.length} test file(s) cost more than ${SLOW_FILE_SECONDS} CPU s or ${2 * SLOW_FILE_SECONDS} wall s without saying why (add a line // slow-test: <reason>, or make them faster):`);
      for (const time of unexplained) console.error(`  ${time.file} (${time.stage}, ${time.seconds.toFixed(1)} s wall, ${time.cpuSeconds?.toFixed(1)} s CPU)`);
      process.exit(1);
    }
  }
  console.log(`\n== npm test: passed in ${((Date.now() - started) / 1000).toFixed(1)} s (budget ${BUDGET_SECONDS} s)`);
}

/** Ends the run on an error: every stage still running is stopped with what it started. */
function abort(error: unknown): never {
  console.error(errorMessage(error));
  stopEverything();
  process.exit(1);
}

main().catch(abort);
