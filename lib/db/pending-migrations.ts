// The migration step of `npm start`: look first, migrate only when something is pending.
//
// Prisma's migration engine opens SQLite with `PRAGMA main.locking_mode=EXCLUSIVE`; on a WAL database
// that any other process holds open (a worker, a receiver, a server still running) its first read waits
// out the busy timeout and fails ("unknown variant SocketTimeout"). Running it on every start made a
// killed server impossible to restart while workers ran. So the committed migrations are compared with
// `_prisma_migrations` over a normal connection (WAL readers never block, nor are blocked), and the
// engine runs only for a fresh database or a pending migration. On PostgreSQL the engine serialises
// concurrent runs with an advisory lock (`pg_advisory_lock(72707369)`, waited for 10 s), so N servers
// starting at once apply a migration once.
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { migrateDeploy, type MigrateDeployResult } from "@/lib/db/migrate-deploy";
import { withConnection } from "@/lib/db/postgres-database";
import { isPostgresUrl, sqliteFilePath } from "@/lib/db/url";

/** Exit status of `npm start` when a migration is pending but other processes hold the SQLite database. */
export const EXIT_DATABASE_HELD = 3;
/** Exit status of `npm start` for every other migration failure. */
export const EXIT_MIGRATION_FAILED = 1;

/** What the database records against the committed migrations. */
export type MigrationCheck =
  /** No database file, or no `_prisma_migrations` table: the engine sets it up. */
  | { state: "fresh" }
  /** Every committed migration is applied; `unknown` are applied ones this code does not have (a newer release's). */
  | { state: "up-to-date"; applied: string[]; unknown: string[] }
  /** `pending` are committed migrations not applied yet, in the order the engine applies them. */
  | { state: "pending"; applied: string[]; pending: string[] }
  /** A migration started and never finished (nor was marked rolled back): `migrate deploy` refuses (P3009). */
  | { state: "failed"; failed: string[] };

/** A row of `_prisma_migrations` (Prisma's own table; both columns are NULL until set). */
interface MigrationRow {
  migration_name: string;
  finished_at: unknown;
  rolled_back_at: unknown;
}

/** The migrations folder `prisma.config.ts` picks for `databaseUrl`. */
export function migrationsDir(databaseUrl: string, root = process.cwd()): string {
  return isPostgresUrl(databaseUrl) ? path.join(root, "prisma", "postgresql", "migrations") : path.join(root, "prisma", "migrations");
}

/** The committed migrations in `dir` (folder names holding a migration.sql), in name order, the order Prisma applies them. */
export function committedMigrations(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => /^\d/.test(name) && existsSync(path.join(dir, name, "migration.sql")))
    .sort();
}

/**
 * Compares `rows` of `_prisma_migrations` with the `committed` migration names, as `migrate deploy`
 * does: a migration is applied when a row has `finished_at` and no `rolled_back_at`; failed when a row
 * has neither (it started and never finished); a row with `rolled_back_at` (set by
 * `npm run db:resolve -- --rolled-back`, or `prisma migrate resolve`) counts for nothing, so the migration is pending again.
 * Pure; any failed migration makes the whole state "failed".
 */
export function compareMigrations(committed: string[], rows: MigrationRow[]): Exclude<MigrationCheck, { state: "fresh" }> {
  const applied = new Set<string>();
  const failed = new Set<string>();
  for (const row of rows) {
    if (row.rolled_back_at != null) continue;
    (row.finished_at != null ? applied : failed).add(row.migration_name);
  }
  if (failed.size > 0) return { state: "failed", failed: [...failed].sort() };
  const pending = committed.filter((name) => !applied.has(name));
  const appliedList = [...applied].sort();
  if (pending.length > 0) return { state: "pending", applied: appliedList, pending };
  return { state: "up-to-date", applied: appliedList, unknown: appliedList.filter((name) => !committed.includes(name)) };
}

/** The SQLite error code of `error` (better-sqlite3 sets `code`), if any. */
function sqliteCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "string" ? (error as { code: string }).code : undefined;
}

/** Thrown when the SQLite migrations table cannot be read because another process locks the whole file (another `npm start` migrating). */
export class DatabaseLockedError extends Error {}

async function readMigrationRows(databaseUrl: string, busyTimeoutMs: number): Promise<MigrationRow[] | undefined> {
  if (isPostgresUrl(databaseUrl)) {
    const schema = new URL(databaseUrl).searchParams.get("schema") ?? "public";
    // Bounded: a black-holed host must not hang the start (the engine then reports what is wrong).
    const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 10_000, statement_timeout: 10_000 });
    await client.connect();
    try {
      const table = await client.query<{ name: string | null }>("SELECT to_regclass(quote_ident($1) || '._prisma_migrations')::text AS name", [schema]);
      if (!table.rows[0]?.name) return undefined;
      // The name is PostgreSQL's own rendering of a regclass, quoted where needed.
      return (await client.query<MigrationRow>(`SELECT migration_name, finished_at, rolled_back_at FROM ${table.rows[0].name}`)).rows;
    } finally {
      await client.end();
    }
  }
  const file = sqliteFilePath(databaseUrl);
  if (!existsSync(file) || statSync(file).size === 0) return undefined;
  // A normal connection, reads only: it changes nothing and, in WAL mode, neither waits for the
  // workers nor makes them wait.
  const database = new Database(file, { fileMustExist: true, timeout: busyTimeoutMs });
  try {
    const table = database.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'").get();
    if (!table) return undefined;
    return database.prepare("SELECT migration_name, finished_at, rolled_back_at FROM _prisma_migrations").all() as MigrationRow[];
  } catch (error) {
    if (sqliteCode(error)?.startsWith("SQLITE_BUSY")) throw new DatabaseLockedError(`the SQLite database ${file} is locked by another process`);
    throw error;
  } finally {
    database.close();
  }
}

/**
 * Reads what the database at `databaseUrl` (SQLite `file:` or PostgreSQL) has applied and compares it
 * with the committed migrations of its kind, without taking any lock beyond a reader's. Returns
 * "fresh" when there is no database file or no `_prisma_migrations` table. Throws
 * {@link DatabaseLockedError} when a SQLite file stays locked for `busyTimeoutMs` (only the migration
 * engine locks readers out), and the driver's error when the database cannot be reached.
 */
export async function checkMigrations(databaseUrl: string, { dir = migrationsDir(databaseUrl), busyTimeoutMs = 2_000 } = {}): Promise<MigrationCheck> {
  const rows = await readMigrationRows(databaseUrl, busyTimeoutMs);
  if (!rows) return { state: "fresh" };
  return compareMigrations(committedMigrations(dir), rows);
}

/**
 * True when another connection holds the SQLite file at `file` open, so that the migration engine
 * could not run: tries exactly what the engine does (`locking_mode=EXCLUSIVE`, then a read, then a
 * write lock) for at most `timeoutMs`, and releases it at once. Every open WAL connection keeps a
 * shared lock on the file, so an idle worker counts too. Changes nothing in the file.
 */
export function sqliteHeldByOthers(file: string, timeoutMs = 1_000): boolean {
  const database = new Database(file, { fileMustExist: true, timeout: timeoutMs });
  try {
    database.pragma("locking_mode = EXCLUSIVE");
    database.prepare("SELECT count(*) FROM sqlite_master").get();
    database.exec("BEGIN EXCLUSIVE; COMMIT");
    return false;
  } catch (error) {
    if (sqliteCode(error)?.startsWith("SQLITE_BUSY")) return true;
    throw error;
  } finally {
    database.close();
  }
}

/** {@link sqliteHeldByOthers}, false when the probe itself fails otherwise (a damaged file: the engine reports it). */
function heldOrUnknown(file: string, timeoutMs: number): boolean {
  try {
    return sqliteHeldByOthers(file, timeoutMs);
  } catch {
    return false;
  }
}

/** How the engine says SQLite was busy: better-sqlite3's code, or the adapter's name for it in the engine's error. */
const ENGINE_BUSY = /SQLITE_BUSY|database is locked|SocketTimeout/;
/** The engine waited 10 s for another engine's advisory lock (PostgreSQL, P1002): another server is migrating. */
const ENGINE_LOCK_TIMEOUT = /Timed out trying to acquire a postgres advisory lock/;

/** The outcome of the migration step of `npm start`. */
export type StartMigration =
  | { ok: true; message: string }
  /** `message` is the one line to print; `output` the engine's own output, when it ran and failed. */
  | { ok: false; exitCode: number; message: string; output?: string };

function heldMessage(pending: string[], file: string): string {
  return (
    `Acredita cannot start: migration ${pending.join(", ")} is pending and other processes hold the SQLite database ${file} ` +
    `(workers, receivers, or a server still running); stop them, run npm start (it migrates), then start them again ` +
    `(docs/operations.md, "Upgrade with a migration"). Nothing was applied.`
  );
}

function failedMessage(failed: string[]): string {
  return (
    `Acredita cannot start: migration ${failed.join(", ")} failed part-way in an earlier run (started in _prisma_migrations, never finished); ` +
    `repair the database, then record the outcome with "npm run db:resolve -- --rolled-back <name>" (or --applied <name>) ` +
    `and run npm start again (docs/operations.md, "A migration that failed").`
  );
}

/**
 * The migration step of `npm start` for the database at `databaseUrl`:
 * - nothing pending: the engine does not run (no exclusive lock; workers and receivers keep running);
 * - a fresh database, or a pending migration: `prisma migrate deploy` (lib/db/migrate-deploy.ts) runs;
 *   on SQLite only after {@link sqliteHeldByOthers} found nobody else on the file, else the answer is
 *   {@link EXIT_DATABASE_HELD} with one line naming the pending migrations, and nothing is applied (the
 *   engine is not started; if another process opens the file between the probe and the engine, the
 *   engine fails at its first read, before applying anything, and the answer is the same);
 * - a migration that failed part-way earlier: {@link EXIT_MIGRATION_FAILED} with a line naming it
 *   (on PostgreSQL the engine still runs first: an unfinished row may be another server migrating right
 *   now, and the engine waits for it under its advisory lock);
 * - on PostgreSQL a run that timed out waiting for another server's advisory lock is repeated, up to
 *   `lockAttempts` runs in all.
 * `deploy` is the engine (injectable for tests). Never throws for a migration outcome; a database that
 * cannot be reached while checking is left to the engine, which reports it.
 */
export async function migrateOnStart(
  databaseUrl: string,
  { deploy = migrateDeploy, probeTimeoutMs = 1_000, lockAttempts = 6 }: { deploy?: (url: string) => MigrateDeployResult; probeTimeoutMs?: number; lockAttempts?: number } = {},
): Promise<StartMigration> {
  const postgres = isPostgresUrl(databaseUrl);
  const kind = postgres ? "PostgreSQL" : "SQLite";
  const file = postgres ? "" : sqliteFilePath(databaseUrl);
  let check: MigrationCheck | undefined;
  try {
    check = await checkMigrations(databaseUrl);
  } catch (error) {
    if (error instanceof DatabaseLockedError) {
      return { ok: false, exitCode: EXIT_DATABASE_HELD, message: `Acredita cannot start: ${error.message} (another npm start migrating?); try again when it is done (docs/operations.md).` };
    }
    // Unreachable database, bad credentials...: the engine's own message says which.
  }
  if (check?.state === "up-to-date") {
    const newer = check.unknown.length > 0 ? `; the database also has ${check.unknown.join(", ")}, which this release does not know (a newer release's)` : "";
    return { ok: true, message: `Migrations: none pending (${check.applied.length} applied, ${kind})${newer}.` };
  }
  if (check?.state === "failed" && !postgres) return { ok: false, exitCode: EXIT_MIGRATION_FAILED, message: failedMessage(check.failed) };
  const pending = check?.state === "pending" ? check.pending : committedMigrations(migrationsDir(databaseUrl));
  if (!postgres && existsSync(file) && heldOrUnknown(file, probeTimeoutMs)) {
    return { ok: false, exitCode: EXIT_DATABASE_HELD, message: heldMessage(pending, file) };
  }
  let result = deploy(databaseUrl);
  for (let attempt = 1; postgres && !result.ok && ENGINE_LOCK_TIMEOUT.test(result.output) && attempt < lockAttempts; attempt++) result = deploy(databaseUrl);
  if (result.ok) return { ok: true, message: `Migrations applied (${kind}): ${/No pending migrations/.test(result.output) ? "none pending" : pending.join(", ")}.` };
  const after = await checkMigrations(databaseUrl).catch(() => undefined);
  if (after?.state === "failed") return { ok: false, exitCode: EXIT_MIGRATION_FAILED, message: failedMessage(after.failed), output: result.output };
  if (!postgres && ENGINE_BUSY.test(result.output)) return { ok: false, exitCode: EXIT_DATABASE_HELD, message: heldMessage(pending, file), output: result.output };
  return { ok: false, exitCode: EXIT_MIGRATION_FAILED, message: "Acredita cannot start: migrations failed", output: result.output };
}

/** How an operator settles a failed migration: undone (`rolled-back`, applied again by the next start) or completed by hand (`applied`). */
export type MigrationResolution = "rolled-back" | "applied";

/**
 * Records how the failed migration `name` (a row with neither `finished_at` nor `rolled_back_at`) was
 * settled, as `prisma migrate resolve --rolled-back|--applied` would: sets `rolled_back_at`, or
 * `finished_at`, to now. That CLI command needs the native schema-engine binary, which Prisma 6.19
 * does not ship with the WebAssembly engine (../shared/STACK.md), so `npm run db:resolve` does it with a
 * plain UPDATE. Returns the number of rows changed (0: no failed row of that name). Throws the driver's
 * error when the database cannot be reached.
 */
export async function resolveFailedMigration(databaseUrl: string, name: string, resolution: MigrationResolution): Promise<number> {
  const column = resolution === "rolled-back" ? "rolled_back_at" : "finished_at";
  if (isPostgresUrl(databaseUrl)) {
    return withConnection(databaseUrl, async (client) => (await client.query(`UPDATE _prisma_migrations SET ${column} = now() WHERE migration_name = $1 AND finished_at IS NULL AND rolled_back_at IS NULL`, [name])).rowCount ?? 0);
  }
  const database = new Database(sqliteFilePath(databaseUrl), { fileMustExist: true, timeout: 5_000 });
  try {
    // The engine writes these DATETIME columns as RFC 3339 text ("2026-12-01T10:14:05.694+00:00").
    const now = new Date().toISOString().replace("Z", "+00:00");
    return database.prepare(`UPDATE _prisma_migrations SET ${column} = ? WHERE migration_name = ? AND finished_at IS NULL AND rolled_back_at IS NULL`).run(now, name).changes;
  } finally {
    database.close();
  }
}
