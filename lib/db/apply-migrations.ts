import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { appliedMigrationRow, PRISMA_MIGRATIONS_TABLE } from "@/lib/db/migration-records";

/**
 * Applies the committed SQLite migrations (prisma/migrations/<name>/migration.sql, in name order) to a
 * NEW database file with better-sqlite3, and records each in `_prisma_migrations` as the engine would
 * (so the CLIs, which apply pending migrations first, find none). For throwaway databases (tests, lab
 * --compare, benchmarks); the product itself uses `prisma migrate deploy`.
 */
export function applySqliteMigrations(filePath: string, migrationsDir = path.join(process.cwd(), "prisma", "migrations")): void {
  const database = new Database(filePath);
  try {
    database.pragma("journal_mode = WAL");
    database.exec(PRISMA_MIGRATIONS_TABLE.sqlite);
    const record = database.prepare("INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES (?, ?, ?, ?, ?, 1)");
    for (const name of readdirSync(migrationsDir).filter((entry) => /^\d/.test(entry)).sort()) {
      const sql = readFileSync(path.join(migrationsDir, name, "migration.sql"), "utf8");
      database.exec(sql);
      const row = appliedMigrationRow(name, sql);
      record.run(row.id, row.checksum, row.finishedAt, row.name, row.finishedAt);
    }
  } finally {
    database.close();
  }
}
