// What `prisma migrate deploy` records of the migrations it applied, for the helpers that apply the
// committed migrations to throwaway databases without the engine.
import { createHash, randomUUID } from "node:crypto";

/**
 * Prisma's own bookkeeping table, as `prisma migrate deploy` creates it on SQLite (its DDL, copied from
 * an engine-migrated file) and on PostgreSQL (Prisma's migration connector).
 */
export const PRISMA_MIGRATIONS_TABLE = {
  sqlite: `CREATE TABLE "_prisma_migrations" ("id" TEXT PRIMARY KEY NOT NULL, "checksum" TEXT NOT NULL, "finished_at" DATETIME, "migration_name" TEXT NOT NULL, "logs" TEXT, "rolled_back_at" DATETIME, "started_at" DATETIME NOT NULL DEFAULT current_timestamp, "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0)`,
  postgres: `CREATE TABLE "_prisma_migrations" ("id" VARCHAR(36) PRIMARY KEY NOT NULL, "checksum" VARCHAR(64) NOT NULL, "finished_at" TIMESTAMPTZ, "migration_name" VARCHAR(255) NOT NULL, "logs" TEXT, "rolled_back_at" TIMESTAMPTZ, "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(), "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`,
} as const;

/**
 * The row `prisma migrate deploy` records for a migration it applied: the checksum is the SHA-256 (hex)
 * of its migration.sql, times in the engine's RFC 3339 text. Recording them keeps a throwaway database
 * indistinguishable from a migrated one for the checks that read the table (lib/db/pending-migrations.ts).
 */
export function appliedMigrationRow(name: string, sql: string, at = new Date()): { id: string; checksum: string; finishedAt: string; name: string } {
  return { id: randomUUID(), checksum: createHash("sha256").update(sql).digest("hex"), finishedAt: at.toISOString().replace("Z", "+00:00"), name };
}
