import { spawnSync } from "node:child_process";
import { appendFileSync, chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { freePort } from "@/lib/net/free-port";

/** A running throwaway PostgreSQL cluster: its admin URL (database `postgres`, trust auth) and how to stop it. */
export interface ThrowawayCluster {
  /** postgresql://postgres@127.0.0.1:<port>/postgres */
  url: string;
  port: number;
  dataDir: string;
  /** Stops the server (fast shutdown) and deletes its folder. Safe to call twice. */
  stop: () => void;
}

/**
 * The folder holding `initdb` and `pg_ctl`: `PG_BIN` when set, else the newest
 * /usr/lib/postgresql/<version>/bin (Debian's layout), else undefined (then `pg_ctl` must be on PATH).
 */
export function postgresBinDir(): string | undefined {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((entry) => /^\d+$/.test(entry) && existsSync(path.join(root, entry, "bin", "pg_ctl")))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? path.join(root, versions[0], "bin") : undefined;
}


/** Numeric uid/gid of a system user, from `id` (no native binding needed). */
function idsOf(user: string): { uid: number; gid: number } {
  const uid = spawnSync("id", ["-u", user], { encoding: "utf8" });
  const gid = spawnSync("id", ["-g", user], { encoding: "utf8" });
  if (uid.status !== 0 || gid.status !== 0) throw new Error(`PostgreSQL refuses to run as root and there is no "${user}" user to run it as`);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * Starts a throwaway PostgreSQL cluster for tests: `initdb` in a new temporary folder, a free port on
 * 127.0.0.1, its Unix socket in that folder (never the system's /var/run/postgresql), trust auth for the
 * `postgres` role. PostgreSQL refuses to run as root, so as root (CI) the folder is given to the
 * `postgres` system user (or `PG_RUN_AS`) and the binaries run as that user through `runuser`.
 * Durability is switched off (fsync, synchronous_commit, full_page_writes): the data is thrown away,
 * and the tests measure correctness, not disk speed. Throws when the binaries are missing or a step fails.
 */
export async function startThrowawayCluster(options: { maxConnections?: number } = {}): Promise<ThrowawayCluster> {
  const bin = postgresBinDir();
  const tool = (name: string) => (bin ? path.join(bin, name) : name);
  if (bin === undefined && spawnSync("pg_ctl", ["--version"]).status !== 0) {
    throw new Error("PostgreSQL binaries not found: install postgresql (Debian: apt-get install -y postgresql-15) or set PG_BIN");
  }
  const root = userInfo().uid === 0;
  // initdb runs its helpers with output sent to /dev/null as the unprivileged user. A root process that
  // copies a file onto /dev/null (Node's copyFile keeps the source's mode) leaves it 0644, and initdb
  // then fails with "cannot create /dev/null: Permission denied": give it back its standard mode.
  if (root && (statSync("/dev/null").mode & 0o666) !== 0o666) {
    console.warn("/dev/null was not writable by other users; restoring its standard mode 0666");
    chmodSync("/dev/null", 0o666);
  }
  const runAs = process.env.PG_RUN_AS ?? "postgres";
  const dataDir = mkdtempSync(path.join(tmpdir(), "acredita-pg-"));
  const ids = root ? idsOf(runAs) : undefined;
  if (ids) chownSync(dataDir, ids.uid, ids.gid);
  const run = (command: string, args: string[]) => {
    const [file, argv] = root ? ["runuser", ["-u", runAs, "--", command, ...args]] : [command, args];
    const result = spawnSync(file, argv, { encoding: "utf8", cwd: dataDir });
    if (result.status !== 0) throw new Error(`${path.basename(command)} failed (${result.status ?? result.signal}): ${result.stderr || result.stdout}`);
    return result;
  };

  let port: number;
  try {
    run(tool("initdb"), ["-D", path.join(dataDir, "data"), "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-instructions"]);
    port = await freePort();
    const conf = [
      `port = ${port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${dataDir}'`,
      `max_connections = ${options.maxConnections ?? 300}`,
      "fsync = off",
      "synchronous_commit = off",
      "full_page_writes = off",
      "shared_buffers = 64MB",
      "log_min_messages = warning",
    ].join("\n");
    // Later lines of postgresql.conf win over initdb's defaults.
    appendFileSync(path.join(dataDir, "data", "postgresql.conf"), `\n# acredita throwaway cluster\n${conf}\n`);
    run(tool("pg_ctl"), ["-D", path.join(dataDir, "data"), "-l", path.join(dataDir, "server.log"), "-w", "-t", "60", "start"]);
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }

  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      run(tool("pg_ctl"), ["-D", path.join(dataDir, "data"), "-m", "fast", "-w", "stop"]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  };
  return { url: `postgresql://postgres@127.0.0.1:${port}/postgres`, port, dataDir, stop };
}
