import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { appliedMigrationRow, PRISMA_MIGRATIONS_TABLE } from "@/lib/db/migration-records";

/** The committed PostgreSQL migrations (prisma/postgresql/migrations/<name>/migration.sql). */
export const POSTGRES_MIGRATIONS_DIR = path.join("prisma", "postgresql", "migrations");

/** `url` with its database name replaced by `database` (user, host, port and parameters kept). */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(database)}`;
  return parsed.toString();
}

/** The migration scripts in name order, as `{ name, sql }`. */
export function postgresMigrations(dir = path.join(process.cwd(), POSTGRES_MIGRATIONS_DIR)): { name: string; sql: string }[] {
  return readdirSync(dir)
    .filter((entry) => /^\d/.test(entry))
    .sort()
    .map((name) => ({ name, sql: readFileSync(path.join(dir, name, "migration.sql"), "utf8") }));
}

/** A short SHA-256 (hex) of every migration's name and text, and of how they are applied: changes when any migration does. */
export function migrationsFingerprint(migrations = postgresMigrations()): string {
  const hash = createHash("sha256");
  // How the migrations are applied counts too: templates made before they were recorded in _prisma_migrations are not reused.
  hash.update("recorded in _prisma_migrations\n");
  for (const migration of migrations) hash.update(`${migration.name}\n${migration.sql}\n`);
  return hash.digest("hex").slice(0, 12);
}

/** Runs `work` with one connection to `url`, closing it afterwards. */
export async function withConnection<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Applies the committed PostgreSQL migrations, in order, to the EMPTY database at `url`, each in its own
 * transaction, recording each in `_prisma_migrations` as `prisma migrate deploy` would. For throwaway
 * databases (tests, benchmarks); the product uses `prisma migrate deploy`. Throws the first failing
 * statement's error.
 */
export async function applyPostgresMigrations(url: string, migrations = postgresMigrations()): Promise<void> {
  await withConnection(url, async (client) => {
    // Recorded as the engine would, so the CLIs (which apply pending migrations first) find none pending.
    await client.query(PRISMA_MIGRATIONS_TABLE.postgres);
    for (const migration of migrations) {
      const row = appliedMigrationRow(migration.name, migration.sql);
      await client.query(`BEGIN;\n${migration.sql}\n;`);
      await client.query("INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, $4, $3, 1)", [row.id, row.checksum, row.finishedAt, row.name]);
      await client.query("COMMIT");
    }
  });
}

/** Quotes a PostgreSQL identifier. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * Creates database `name` on the server of `adminUrl` (a URL whose role may CREATE DATABASE), copied
 * from `template` when given. Returns the new database's URL.
 */
export async function createDatabase(adminUrl: string, name: string, template?: string): Promise<string> {
  await withConnection(adminUrl, (client) => client.query(`CREATE DATABASE ${quoteIdentifier(name)}${template ? ` TEMPLATE ${quoteIdentifier(template)}` : ""}`));
  return withDatabase(adminUrl, name);
}

/** Drops database `name` (if it exists), closing its other sessions first (`WITH (FORCE)`, PostgreSQL 13+). */
export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  await withConnection(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`));
}
