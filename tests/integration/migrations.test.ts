// slow-test: runs prisma migrate deploy, the command npm start runs, on new databases
// The committed migrations of the database under test (SQLite, or PostgreSQL with TEST_DATABASE=postgres)
// build exactly the schema's models, and `prisma migrate deploy` (what `npm start` runs) applies them to
// an empty database. Runs the real Prisma CLI through prisma.config.ts.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { migrateDeploy } from "@/lib/db/migrate-deploy";
import { createDatabase, withConnection } from "@/lib/db/postgres-database";
import { onPostgres, testPostgresAdminUrl, TEST_DATABASE } from "@/e2e/support/test-database";

/** One table per model of prisma/schema.prisma (no model is renamed with @@map). */
const TABLES = [...readFileSync("prisma/schema.prisma", "utf8").matchAll(/^model (\w+) \{/gm)].map((match) => match[1]).sort();

/** A new EMPTY database (no tables) of the kind under test; returns its URL. */
async function emptyDatabase(): Promise<string> {
  if (onPostgres) return createDatabase(testPostgresAdminUrl(), `acredita_empty_${Math.random().toString(36).slice(2, 10)}`);
  return `file:${path.join(mkdtempSync(path.join(tmpdir(), "acredita-migrate-")), "empty.db")}`;
}

describe(`migrations on ${TEST_DATABASE}`, () => {
  test("prisma migrate deploy applies every committed migration to an empty database", async () => {
    const url = await emptyDatabase();
    const result = migrateDeploy(url);
    assert.equal(result.ok, true, result.output);
    assert.match(result.output, /All migrations have been successfully applied/);
    const again = migrateDeploy(url);
    assert.equal(again.ok, true, again.output);
    assert.match(again.output, /No pending migrations to apply/);
    if (onPostgres) {
      const tables = await withConnection(url, (client) => client.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' ORDER BY 1"));
      assert.deepEqual(tables.rows.map((row) => row.name).sort(), TABLES);
      assert.ok(TABLES.length >= 16, TABLES.join(","));
    }
  });

  test("the committed migrations produce exactly the models of the schema (no drift)", async () => {
    const folder = onPostgres ? "prisma/postgresql" : "prisma";
    const url = await emptyDatabase();
    const preload = onPostgres ? ["--require", "./lib/db/cli/unref-long-timers.cjs"] : [];
    const diff = spawnSync(
      process.execPath,
      [...preload, "node_modules/prisma/build/index.js", "migrate", "diff", "--from-migrations", `${folder}/migrations`, "--to-schema-datamodel", `${folder}/schema.prisma`, "--exit-code"],
      { env: { ...process.env, DATABASE_URL: url, CHECKPOINT_DISABLE: "1" }, encoding: "utf8" },
    );
    // --exit-code: 0 = no difference, 2 = the schema has changes no migration holds, 1 = error.
    assert.equal(diff.status, 0, `${diff.stdout}\n${diff.stderr}\nadd a migration for the schema change (see docs/postgresql-and-scale-out.md)`);
    assert.match(diff.stdout, /No difference detected/);
  });
});
