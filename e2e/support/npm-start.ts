// `npm start` itself (scripts/start.ts: migration step, seeding, then `next start` as its child) as a
// test child. It runs in its own process group (`detached`), as under a supervisor, so a test can kill
// the whole group at once (SIGKILL to -pid: start.ts and the Next.js server together, nothing orphaned).
import { spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createDatabase } from "@/lib/db/postgres-database";
import { isPostgresUrl } from "@/lib/db/url";
import { after, before } from "node:test";
import { baseEnv, Child, ensureBuilt, startWorker, waitFor, type Env } from "./real-server";
import { onPostgres, testPostgresAdminUrl } from "./test-database";

/** A dashboard session secret of the length production requires (32+ characters), for servers these tests start. */
export const START_AUTH_SECRET = "restart-tests-auth-secret-0123456789abcdef";

/** A running `npm start`: its process group, and the URL its server answers on. */
export class StartedServer extends Child {
  /** Sends `signal` to the whole process group (start.ts and `next start`) and waits for start.ts to exit. */
  async killGroup(signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.alive && this.process.pid) {
      try {
        process.kill(-this.process.pid, signal);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
      }
    }
    return this.exited;
  }
}

/** Spawns `npm start` (as `node --import tsx scripts/start.ts`, one process group) with `env` and PORT=`port`. */
export function spawnStart(env: Env, port: number): StartedServer {
  return new StartedServer(
    "npm start",
    spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
      cwd: process.cwd(),
      env: { AUTH_SECRET: START_AUTH_SECRET, ...env, PORT: String(port), HOST: "127.0.0.1" } as unknown as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    }),
  );
}

/** Runs `npm start` on `port` and resolves once its server answers the liveness probe; throws with its output when it exits first. */
export async function startAcredita(env: Env, port: number, { timeoutMs = 60_000 } = {}): Promise<{ server: StartedServer; url: string }> {
  const server = spawnStart(env, port);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(
    `npm start on ${url}`,
    async () => {
      if (!server.alive) throw new Error(`npm start exited:\n${server.log()}`);
      return (await fetch(`${url}/api/health/live`)).status === 200;
    },
    { timeoutMs, intervalMs: 100 },
  );
  return { server, url };
}

/**
 * A new EMPTY database of the kind under test, for `npm start` to migrate (the migrated test copies of
 * newDatabase() are already migrated, and record it in `_prisma_migrations`): a path to a SQLite file not yet created, or a new
 * PostgreSQL database on the test cluster. Returns its URL, and the file on SQLite.
 */
export async function emptyDatabase(label = "restart"): Promise<{ url: string; file?: string }> {
  if (onPostgres) return { url: await createDatabase(testPostgresAdminUrl(), `acredita_${label}_${Math.random().toString(36).slice(2, 10)}`) };
  const file = path.join(mkdtempSync(path.join(tmpdir(), `acredita-${label}-`)), `${label}.db`);
  return { url: `file:${file}`, file };
}

/**
 * Applies every committed migration but the last to the NEW database at `url` (SQLite file or
 * PostgreSQL) with the real `prisma migrate deploy`, so `_prisma_migrations` records them: the database
 * of the previous release, for upgrade tests. Runs the CLI with a config in a temporary folder that
 * points at a copy of the migrations without the last one (and, on PostgreSQL, with the preload that
 * keeps it from lingering, see lib/db/migrate-deploy.ts). Returns the name of the migration left
 * pending; throws when the CLI fails.
 */
export function migrateAllButLast(url: string): string {
  const root = process.cwd();
  const postgres = isPostgresUrl(url);
  const folder = mkdtempSync(path.join(tmpdir(), "acredita-previous-release-"));
  const source = postgres ? path.join(root, "prisma", "postgresql", "migrations") : path.join(root, "prisma", "migrations");
  const names = readdirSync(source).filter((name) => /^\d/.test(name)).sort();
  mkdirSync(path.join(folder, "migrations"));
  for (const name of names.slice(0, -1)) cpSync(path.join(source, name), path.join(folder, "migrations", name), { recursive: true });
  cpSync(path.join(source, "migration_lock.toml"), path.join(folder, "migrations", "migration_lock.toml"));
  const adapter = postgres ? { name: "postgresCliAdapter", file: "postgres-cli-adapter" } : { name: "sqliteCliAdapter", file: "sqlite-cli-adapter" };
  const config = path.join(folder, "prisma.config.ts");
  writeFileSync(
    config,
    [
      `import { defineConfig } from ${JSON.stringify(path.join(root, "node_modules", "prisma", "config"))};`,
      `import { ${adapter.name} } from ${JSON.stringify(path.join(root, "lib", "db", "cli", adapter.file))};`,
      `export default defineConfig({ experimental: { adapter: true }, engine: "js", schema: ${JSON.stringify(path.join(path.dirname(source), "schema.prisma"))}, migrations: { path: ${JSON.stringify(path.join(folder, "migrations"))} }, adapter: async () => ${adapter.name}(${JSON.stringify(url)}) });`,
    ].join("\n"),
  );
  const preload = postgres ? ["--require", path.join(root, "lib", "db", "cli", "unref-long-timers.cjs")] : [];
  const result = spawnSync(process.execPath, [...preload, "node_modules/prisma/build/index.js", "migrate", "deploy", "--config", config], { cwd: root, env: { ...process.env, DATABASE_URL: url, CHECKPOINT_DISABLE: "1" }, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`migrate deploy of the previous release failed:\n${result.stdout}\n${result.stderr}`);
  return names.at(-1)!;
}

/**
 * The env of a restart test's processes on `databaseUrl`: lab endpoint in inbox mode, the inbox applied
 * only by `npm run worker` processes (INBOX_WORKER_IN_PROCESS=false), short leases, and fast retries of
 * a refund that arrives before its approval (never parked for good).
 */
export function restartEnv(databaseUrl: string): Env {
  return baseEnv(databaseUrl, { LAB_PROCESSING_MODE: "inbox", INBOX_WORKER_IN_PROCESS: "false", INBOX_LEASE_MS: "1000", INBOX_RETRY_BASE_MS: "100", INBOX_RETRY_MAX_DELAY_MS: "1000", INBOX_MAX_ATTEMPTS: "200" });
}

/** The pids of the server processes `npm start` (pid `pid`) runs (from `ps`; tsx's esbuild service is a child too). */
export function serverProcessesOf(pid: number): number[] {
  return (spawnSync("ps", ["-o", "pid=,args=", "--ppid", String(pid)], { encoding: "utf8" }).stdout ?? "")
    .split("\n")
    .filter((line) => /next-server|scripts\/server\.mjs/.test(line))
    .map((line) => Number(line.trim().split(/\s+/)[0]))
    .filter((child) => child > 0);
}

/**
 * For a test file that starts `npm start` and workers: registers its hooks (build once before; SIGKILL
 * every process group and worker it started after, whatever the tests left) and returns the starters.
 * Call once, at the top level of the file.
 */
export function trackedProcesses(): { start: (env: Env, port: number) => Promise<{ server: StartedServer; url: string }>; worker: (env: Env) => Child; children: Child[]; groups: StartedServer[] } {
  const children: Child[] = [];
  const groups: StartedServer[] = [];
  before(() => ensureBuilt());
  after(async () => {
    await Promise.all([...children.map((child) => child.kill("SIGKILL")), ...groups.map((group) => group.killGroup("SIGKILL"))]);
  });
  return {
    children,
    groups,
    start: async (env, port) => {
      const started = await startAcredita(env, port);
      groups.push(started.server);
      return started;
    },
    worker: (env) => {
      const child = startWorker(env);
      children.push(child);
      return child;
    },
  };
}
