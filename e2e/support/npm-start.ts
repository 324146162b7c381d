// `npm start` itself (lib/cli/start.ts: migration step, seeding, then `next start` as its child) as a
// test child. It runs in its own process group (`detached`), as under a supervisor, so a test can kill
// the whole group at once (SIGKILL to -pid: start.ts and the Next.js server together, nothing orphaned).
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createDatabase } from "@/lib/db/postgres-database";
import { Child, waitFor, type Env } from "./real-server";
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

/** Spawns `npm start` (as `node --import tsx lib/cli/start.ts`, one process group) with `env` and PORT=`port`. */
export function spawnStart(env: Env, port: number): StartedServer {
  return new StartedServer(
    "npm start",
    spawn(process.execPath, ["--import", "tsx", "lib/cli/start.ts"], {
      cwd: process.cwd(),
      env: { AUTH_SECRET: START_AUTH_SECRET, ...env, PORT: String(port), HOST: "127.0.0.1" } as NodeJS.ProcessEnv,
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
 * newDatabase() have no `_prisma_migrations`): a path to a SQLite file not yet created, or a new
 * PostgreSQL database on the test cluster. Returns its URL, and the file on SQLite.
 */
export async function emptyDatabase(label = "restart"): Promise<{ url: string; file?: string }> {
  if (onPostgres) return { url: await createDatabase(testPostgresAdminUrl(), `acredita_${label}_${Math.random().toString(36).slice(2, 10)}`) };
  const file = path.join(mkdtempSync(path.join(tmpdir(), `acredita-${label}-`)), `${label}.db`);
  return { url: `file:${file}`, file };
}
