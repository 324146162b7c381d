// npm run db:migration -- <topic>: after editing prisma/schema.prisma, writes the next migration for
// BOTH databases under one name (<UTC yyyymmddHHMMSS>_<topic>): prisma/migrations/... for SQLite and
// prisma/postgresql/migrations/... for PostgreSQL, regenerates prisma/postgresql/schema.prisma and both
// clients. The PostgreSQL diff needs a server for its shadow database: TEST_POSTGRES_URL if set, else a
// throwaway cluster started (and stopped) here. Exits 1 with nothing written when a diff fails.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startThrowawayCluster, type ThrowawayCluster } from "@/lib/db/postgres-cluster";
import { freshPostgresSchema, POSTGRES_SCHEMA_PATH } from "@/lib/db/postgres-schema";
import { childEnv, processIo, writeLine, type CliEnv, type CliIo } from "@/lib/background/cli-io";

/** Thrown when a `prisma migrate diff` fails: main prints its message and exits 1, nothing written. */
class DiffFailed extends Error {}

/** The SQL script of one `prisma migrate diff`, run with `baseEnv` and `env` added. Throws {@link DiffFailed}. */
function diff(label: string, args: string[], baseEnv: CliEnv, env: Record<string, string>, preload: string[] = []): string {
  const result = spawnSync(process.execPath, [...preload, "node_modules/prisma/build/index.js", "migrate", "diff", ...args, "--script"], { env: childEnv(baseEnv, { ...env, CHECKPOINT_DISABLE: "1" }), encoding: "utf8" });
  if (result.status !== 0) throw new DiffFailed(`${label}: prisma migrate diff failed:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** True when a diff script holds no statement (only comments or "This is an empty migration."). */
function isEmpty(script: string): boolean {
  return script.split("\n").every((line) => line.trim() === "" || line.trim().startsWith("--"));
}

/**
 * `npm run db:migration -- <topic>`: takes the arguments after the script, the environment
 * (TEST_POSTGRES_URL, and what the migration engine reads) and the streams; resolves with the exit status
 * (0 written or nothing to write, 1 a diff failed (nothing written) or the clients' generation failed,
 * 2 bad usage).
 */
export async function main(argv: string[], env: CliEnv, io: CliIo): Promise<number> {
  const topic = argv[0];
  if (!topic || !/^[a-z0-9_]+$/.test(topic)) {
    writeLine(io.stderr, "usage: npm run db:migration -- <topic>   (lower-case letters, digits and _)");
    return 2;
  }
  try {
    return await writeMigration(topic, env, io);
  } catch (error) {
    if (!(error instanceof DiffFailed)) throw error;
    writeLine(io.stderr, error.message);
    return 1;
  }
}

/** Writes both databases' migration for `topic` and regenerates the clients; resolves with the exit status. Throws {@link DiffFailed}. */
async function writeMigration(topic: string, env: CliEnv, io: CliIo): Promise<number> {
  writeFileSync(POSTGRES_SCHEMA_PATH, freshPostgresSchema());

  const scratch = `file:${path.join(mkdtempSync(path.join(tmpdir(), "acredita-migration-")), "scratch.db")}`;
  const sqlite = diff("SQLite", ["--from-migrations", "prisma/migrations", "--to-schema-datamodel", "prisma/schema.prisma"], env, { DATABASE_URL: scratch });

  let cluster: ThrowawayCluster | undefined;
  let postgres: string;
  try {
    let adminUrl = env.TEST_POSTGRES_URL;
    if (!adminUrl) {
      cluster = await startThrowawayCluster();
      adminUrl = cluster.url;
    }
    postgres = diff(
      "PostgreSQL",
      ["--config", "prisma/postgresql/prisma.config.ts", "--from-migrations", "prisma/postgresql/migrations", "--to-schema-datamodel", POSTGRES_SCHEMA_PATH],
      env,
      { DATABASE_URL: adminUrl },
      ["--require", "./lib/db/cli/unref-long-timers.cjs"],
    );
  } finally {
    cluster?.stop();
  }

  if (isEmpty(sqlite) && isEmpty(postgres)) {
    writeLine(io.stdout, "prisma/schema.prisma matches the committed migrations: nothing to write");
    return 0;
  }
  const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
  const name = `${stamp}_${topic}`;
  for (const [folder, script] of [["prisma/migrations", sqlite], ["prisma/postgresql/migrations", postgres]] as const) {
    mkdirSync(path.join(folder, name));
    writeFileSync(path.join(folder, name, "migration.sql"), script);
    writeLine(io.stdout, `wrote ${path.join(folder, name, "migration.sql")}`);
  }
  const generate = spawnSync("npm", ["run", "-s", "postinstall"], { stdio: "inherit", env: childEnv(env) });
  return generate.status ?? 1;
}

if (require.main === module) void main(process.argv.slice(2), process.env, processIo()).then((code) => process.exit(code));
