import { spawnSync } from "node:child_process";
import path from "node:path";
import { isPostgresUrl } from "@/lib/db/url";

/** What `prisma migrate deploy` did: exit status 0 means every committed migration is applied. */
export interface MigrateDeployResult {
  ok: boolean;
  output: string;
}

/**
 * Applies the committed migrations of the database `databaseUrl` selects with `prisma migrate deploy`
 * (prisma.config.ts picks prisma/migrations for SQLite, prisma/postgresql/migrations for PostgreSQL) and
 * records them in `_prisma_migrations`. On PostgreSQL the CLI runs with lib/db/cli/unref-long-timers.cjs
 * preloaded, else it lingers ~10 s after finishing (../shared/STACK.md). Runs synchronously; never throws
 * for a failed migration (see `ok`).
 */
export function migrateDeploy(databaseUrl: string, env: NodeJS.ProcessEnv = process.env): MigrateDeployResult {
  const preload = isPostgresUrl(databaseUrl) ? ["--require", path.join(process.cwd(), "lib", "db", "cli", "unref-long-timers.cjs")] : [];
  const result = spawnSync(process.execPath, [...preload, "node_modules/prisma/build/index.js", "migrate", "deploy"], {
    env: { ...env, DATABASE_URL: databaseUrl, CHECKPOINT_DISABLE: "1" },
    encoding: "utf8",
  });
  return { ok: result.status === 0, output: `${result.stdout ?? ""}${result.stderr ?? ""}` };
}
