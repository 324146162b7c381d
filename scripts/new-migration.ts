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

function diff(label: string, args: string[], env: Record<string, string>, preload: string[] = []): string {
  const result = spawnSync(process.execPath, [...preload, "node_modules/prisma/build/index.js", "migrate", "diff", ...args, "--script"], { env: { ...process.env, ...env, CHECKPOINT_DISABLE: "1" }, encoding: "utf8" });
  if (result.status !== 0) {
    console.error(`${label}: prisma migrate diff failed:\n${result.stdout}\n${result.stderr}`);
    process.exit(1);
  }
  return result.stdout;
}

/** True when a diff script holds no statement (only comments or "This is an empty migration."). */
function isEmpty(script: string): boolean {
  return script.split("\n").every((line) => line.trim() === "" || line.trim().startsWith("--"));
}

async function main(): Promise<void> {
  const topic = process.argv[2];
  if (!topic || !/^[a-z0-9_]+$/.test(topic)) {
    console.error("usage: npm run db:migration -- <topic>   (lower-case letters, digits and _)");
    process.exit(2);
  }
  writeFileSync(POSTGRES_SCHEMA_PATH, freshPostgresSchema());

  const scratch = `file:${path.join(mkdtempSync(path.join(tmpdir(), "acredita-migration-")), "scratch.db")}`;
  const sqlite = diff("SQLite", ["--from-migrations", "prisma/migrations", "--to-schema-datamodel", "prisma/schema.prisma"], { DATABASE_URL: scratch });

  let cluster: ThrowawayCluster | undefined;
  let postgres: string;
  try {
    let adminUrl = process.env.TEST_POSTGRES_URL;
    if (!adminUrl) {
      cluster = await startThrowawayCluster();
      adminUrl = cluster.url;
    }
    postgres = diff(
      "PostgreSQL",
      ["--config", "prisma/postgresql/prisma.config.ts", "--from-migrations", "prisma/postgresql/migrations", "--to-schema-datamodel", POSTGRES_SCHEMA_PATH],
      { DATABASE_URL: adminUrl },
      ["--require", "./lib/db/cli/unref-long-timers.cjs"],
    );
  } finally {
    cluster?.stop();
  }

  if (isEmpty(sqlite) && isEmpty(postgres)) {
    console.log("prisma/schema.prisma matches the committed migrations: nothing to write");
    return;
  }
  const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
  const name = `${stamp}_${topic}`;
  for (const [folder, script] of [["prisma/migrations", sqlite], ["prisma/postgresql/migrations", postgres]] as const) {
    mkdirSync(path.join(folder, name));
    writeFileSync(path.join(folder, name, "migration.sql"), script);
    console.log(`wrote ${path.join(folder, name, "migration.sql")}`);
  }
  const generate = spawnSync("npm", ["run", "-s", "postinstall"], { stdio: "inherit" });
  process.exit(generate.status ?? 1);
}

void main();
