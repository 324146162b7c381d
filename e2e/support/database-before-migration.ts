// A database of the test's kind (SQLite file, or a PostgreSQL database on the test cluster) holding the
// rows a previous release wrote, then migrated by one committed migration: what an upgrade does to a
// real database. For the tests of migrations that rewrite or reinterpret existing rows.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { createDatabase, dropDatabase, postgresMigrations, withConnection } from "@/lib/db/postgres-database";
import { onPostgres, testPostgresAdminUrl } from "./test-database";

/** The migrated database, as the test reads it: the SQLite connection, or the PostgreSQL database's URL. */
export type MigratedDatabase = { kind: "sqlite"; database: Database.Database } | { kind: "postgres"; url: string };

/**
 * Applies every committed migration before `migration`, runs `oldRows` (SQL written for PostgreSQL;
 * `true`/`false` become 1/0 on SQLite), applies `migration`, then hands the database to `use`; the
 * database is closed (SQLite) or dropped (PostgreSQL) afterwards. Fails when `migration` is not committed.
 * With `options.andLater`, every migration committed after it is applied too before `use` (a test that
 * runs today's code on the migrated rows needs today's schema).
 */
export async function withDatabaseMigratedFrom(migration: string, oldRows: readonly string[], use: (migrated: MigratedDatabase) => Promise<void>, options: { andLater?: boolean } = {}): Promise<void> {
  if (!onPostgres) {
    const dir = path.join(process.cwd(), "prisma", "migrations");
    const names = readdirSync(dir).filter((entry) => /^\d/.test(entry)).sort();
    assert.ok(names.includes(migration), `${migration} is committed`);
    const database = new Database(path.join(mkdtempSync(path.join(tmpdir(), "acredita-migration-")), "migration.db"));
    try {
      for (const name of names.filter((entry) => entry < migration)) database.exec(readFileSync(path.join(dir, name, "migration.sql"), "utf8"));
      for (const statement of oldRows) database.exec(statement.replaceAll("true", "1").replaceAll("false", "0"));
      database.exec(readFileSync(path.join(dir, migration, "migration.sql"), "utf8"));
      if (options.andLater) for (const name of names.filter((entry) => entry > migration)) database.exec(readFileSync(path.join(dir, name, "migration.sql"), "utf8"));
      await use({ kind: "sqlite", database });
    } finally {
      database.close();
    }
    return;
  }
  const adminUrl = testPostgresAdminUrl();
  const name = `acredita_test_migration_${process.pid}_${Date.now()}`;
  const url = await createDatabase(adminUrl, name);
  try {
    const migrations = postgresMigrations();
    assert.ok(migrations.some((entry) => entry.name === migration), `${migration} is committed`);
    await withConnection(url, async (client) => {
      for (const entry of migrations.filter((one) => one.name < migration)) await client.query(entry.sql);
      for (const statement of oldRows) await client.query(statement);
      await client.query(migrations.find((entry) => entry.name === migration)!.sql);
      if (options.andLater) for (const entry of migrations.filter((one) => one.name > migration)) await client.query(entry.sql);
    });
    await use({ kind: "postgres", url });
  } finally {
    await dropDatabase(adminUrl, name);
  }
}
