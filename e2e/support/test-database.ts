// Which database the tests run on, and fresh databases of that kind. `npm test` runs the node tests
// twice: on SQLite (default), then with TEST_DATABASE=postgres and TEST_POSTGRES_URL (an admin URL of a
// throwaway cluster that scripts/run-tests.ts starts). Each test file and each server gets its own database.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { applySqliteMigrations } from "@/lib/db/apply-migrations";
import { withConnection } from "@/lib/db/postgres-database";
import { claimPooledDatabase } from "./postgres-test-database";

export type TestDatabaseKind = "sqlite" | "postgres";

/** The database the node tests run on: TEST_DATABASE=postgres, else SQLite. */
export const TEST_DATABASE: TestDatabaseKind = process.env.TEST_DATABASE === "postgres" ? "postgres" : "sqlite";
export const onPostgres = TEST_DATABASE === "postgres";

/** Admin URL of the test cluster (TEST_POSTGRES_URL). Throws when it is not set. */
export function testPostgresAdminUrl(): string {
  const url = process.env.TEST_POSTGRES_URL;
  if (!url) throw new Error("TEST_DATABASE=postgres needs TEST_POSTGRES_URL (npm test starts a throwaway cluster and sets it)");
  return url;
}

export interface TestDatabase {
  url: string;
  /** The SQLite file (undefined on PostgreSQL). */
  file?: string;
}

/**
 * A new, migrated, empty database of the kind under test, made synchronously (test-env runs before any
 * await). SQLite: a file in its own temporary folder. PostgreSQL: a copy of the migrated template on the
 * test cluster: one the runner made beforehand (TEST_POSTGRES_POOL), else one made by
 * e2e/support/postgres-test-database.ts run as a child process. Throws on failure.
 */
export function newTestDatabase(label = "test"): TestDatabase {
  if (!onPostgres) {
    const file = path.join(mkdtempSync(path.join(tmpdir(), `acredita-${label}-`)), `${label}.db`);
    applySqliteMigrations(file);
    return { url: `file:${file}`, file };
  }
  const pool = process.env.TEST_POSTGRES_POOL;
  const pooled = pool ? claimPooledDatabase(pool) : undefined;
  if (pooled) return { url: pooled };
  const made = spawnSync(process.execPath, ["--import", "tsx", "e2e/support/postgres-test-database.ts", testPostgresAdminUrl(), label.replace(/\W/g, "_")], { encoding: "utf8" });
  if (made.status !== 0) throw new Error(`could not create a PostgreSQL test database: ${made.stderr}`);
  return { url: made.stdout.trim() };
}

/**
 * Everything the database at `database` stores, as text, for the secrets grep. SQLite: the file and
 * its WAL (checkpoint first if the caller needs the WAL folded in). PostgreSQL: every row of every
 * table in `public`, as JSON.
 */
export async function storedText(database: TestDatabase): Promise<string> {
  if (database.file) {
    return [database.file, `${database.file}-wal`].filter((file) => existsSync(file)).map((file) => readFileSync(file).toString("latin1")).join("\n");
  }
  return withConnection(database.url, async (client) => {
    const tables = await client.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1");
    const parts: string[] = [];
    for (const { name } of tables.rows) {
      const rows = await client.query<{ row: string }>(`SELECT row_to_json(t)::text AS row FROM "${name.replaceAll('"', '""')}" t`);
      parts.push(...rows.rows.map((row) => row.row));
    }
    return parts.join("\n");
  });
}
