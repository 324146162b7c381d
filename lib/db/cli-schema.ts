// The schema step of the CLIs that use the database. Before this, `npm run create-user` on a new
// production database (before the first `npm start`) printed Prisma's 40-line "table `main.User` does
// not exist" and left an empty SQLite file behind, which the next `npm start` then had to migrate.
import { existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { checkMigrations, DatabaseLockedError, EXIT_MIGRATION_FAILED, migrateOnStart } from "@/lib/db/pending-migrations";
import { migrateDeploy, type MigrateDeployResult } from "@/lib/db/migrate-deploy";
import { isPostgresUrl, sqliteFilePath } from "@/lib/db/url";

/** Exit status of a long-running process (worker, receiver) whose database is not migrated yet. */
export const EXIT_SCHEMA_NOT_READY = 1;

/** What a CLI does about its database's schema before using it. */
export type CliSchema = { ok: true; message?: string } | { ok: false; exitCode: number; message: string };

/** How `npm start` words a refusal; a CLI says its own name instead. */
const START_REFUSAL = /^Acredita cannot start: /;

/** The last non-empty line of the migration engine's output: what went wrong, without its banner. */
function lastLine(output: string | undefined): string | undefined {
  return output?.split("\n").map((line) => line.trim()).filter(Boolean).at(-1);
}

/** True when the SQLite file at `file` holds no table at all (what a client opening a missing file leaves). */
function sqliteFileIsEmpty(file: string): boolean {
  if (!existsSync(file)) return false;
  if (statSync(file).size === 0) return true;
  try {
    const database = new Database(file, { fileMustExist: true, readonly: true });
    try {
      return !database.prepare("SELECT 1 FROM sqlite_master LIMIT 1").get();
    } finally {
      database.close();
    }
  } catch {
    return false;
  }
}

/**
 * Gets the database at `databaseUrl` ready for the CLI `who` (its name, as it prefixes its lines):
 * - `apply` (the administrative commands: create-user, dead-letters, outbox, reconcile, retention):
 *   applies pending migrations exactly as `npm start` does ({@link migrateOnStart}: the engine runs only
 *   for a fresh database or a pending migration; on SQLite only when no other process holds the file,
 *   else exit 3 naming the pending migrations; the SQLite file's folder is created first, as `npm start`
 *   creates data/). `message` says what was applied (nothing when none was pending).
 * - otherwise (the processes started beside a server: worker, receiver): applies nothing and, unless
 *   every migration is applied, refuses in one line that says to run `npm start` once.
 * A refusal is one line prefixed `<who>: `, never the engine's or Prisma's stack; a SQLite file that
 * did not exist before and was left empty by a failed attempt is removed. Never throws for a
 * migration outcome.
 */
export async function prepareCliSchema(
  who: string,
  databaseUrl: string,
  { apply, deploy = migrateDeploy }: { apply: boolean; deploy?: (url: string) => MigrateDeployResult },
): Promise<CliSchema> {
  const file = isPostgresUrl(databaseUrl) ? undefined : sqliteFilePath(databaseUrl);
  const existedBefore = file !== undefined && existsSync(file);
  const refuse = (exitCode: number, message: string): CliSchema => {
    if (file && !existedBefore && sqliteFileIsEmpty(file)) for (const suffix of ["", "-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true });
    return { ok: false, exitCode, message: `${who}: ${message}` };
  };
  if (!apply) {
    const where = file ?? "the PostgreSQL database";
    try {
      const check = await checkMigrations(databaseUrl);
      if (check.state === "up-to-date") return { ok: true };
      if (check.state === "fresh") return refuse(EXIT_SCHEMA_NOT_READY, `the database is not set up yet (no migrations applied to ${where}); run npm start once to apply them`);
      if (check.state === "pending") return refuse(EXIT_SCHEMA_NOT_READY, `migration ${check.pending.join(", ")} is pending on ${where}; run npm start once to apply it (docs/operations.md, "Upgrade with a migration")`);
      return refuse(EXIT_MIGRATION_FAILED, `migration ${check.failed.join(", ")} failed part-way in an earlier run; see docs/operations.md, "A migration that failed"`);
    } catch (error) {
      if (error instanceof DatabaseLockedError) return refuse(EXIT_SCHEMA_NOT_READY, `${error.message} (an npm start migrating?); try again when it is done`);
      return refuse(EXIT_SCHEMA_NOT_READY, `cannot read the database's migrations (${lastLine(error instanceof Error ? error.message : String(error))})`);
    }
  }
  // As `npm start` does: the engine creates the SQLite file, not its folder (data/ on a fresh clone).
  if (file) mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const migration = await migrateOnStart(databaseUrl, { deploy });
  if (!migration.ok) {
    const message = migration.message.replace(START_REFUSAL, "");
    // The engine's own last line says why (a path that cannot be opened, a refused connection).
    const why = migration.message === "Acredita cannot start: migrations failed" ? lastLine(migration.output) : undefined;
    return refuse(migration.exitCode, why ? `${message} (${why})` : message);
  }
  return /none pending/.test(migration.message) ? { ok: true } : { ok: true, message: `${who}: ${migration.message}` };
}

/**
 * {@link prepareCliSchema} on `databaseUrl` (the command's DATABASE_URL setting), its line written to
 * `stderr` (a CLI's stdout is its product): returns undefined when the database is ready, else the exit status.
 */
export async function cliSchemaExitCode(who: string, databaseUrl: string, { apply, stderr }: { apply: boolean; stderr: NodeJS.WritableStream }): Promise<number | undefined> {
  const schema = await prepareCliSchema(who, databaseUrl, { apply });
  if (schema.message) stderr.write(`${schema.message}\n`);
  return schema.ok ? undefined : schema.exitCode;
}
