import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";

/**
 * Applies the committed SQLite migrations (prisma/migrations/<name>/migration.sql, in name order) to a
 * NEW database file with better-sqlite3. For throwaway databases (tests, lab --compare, benchmarks); the
 * product itself uses `prisma migrate deploy`.
 */
export function applySqliteMigrations(filePath: string, migrationsDir = path.join(process.cwd(), "prisma", "migrations")): void {
  const database = new Database(filePath);
  try {
    database.pragma("journal_mode = WAL");
    for (const name of readdirSync(migrationsDir).filter((entry) => /^\d/.test(entry)).sort()) {
      database.exec(readFileSync(path.join(migrationsDir, name, "migration.sql"), "utf8"));
    }
  } finally {
    database.close();
  }
}
