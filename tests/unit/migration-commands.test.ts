// The migration commands an operator runs by hand, their main called in process on SQLite files of
// their own: `npm run db:resolve` records how a failed migration was settled and says so in one line;
// `npm run db:schema -- --check` and `npm run db:migration` answer a bad call without touching anything.
// The scripts themselves run once each in e2e/http/cli-smoke.test.ts.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import Database from "better-sqlite3";
import { checkMigrations, committedMigrations, migrationsDir } from "@/lib/db/pending-migrations";
import { runMain } from "@/e2e/support/cli";
import { main as resolveMigration } from "@/scripts/resolve-migration";
import { main as postgresSchema } from "@/scripts/generate-postgres-schema";
import { main as newMigration } from "@/scripts/new-migration";

const COMMITTED = committedMigrations(migrationsDir("file:x.db"));
const LAST = COMMITTED.at(-1)!;
const folder = mkdtempSync(path.join(tmpdir(), "acredita-migration-commands-"));
let files = 0;

/** A SQLite file whose `_prisma_migrations` has every committed migration finished but the last, which started and never finished. */
function databaseWithLastFailed(): string {
  const file = path.join(folder, `db${files++}.db`);
  const database = new Database(file);
  database.exec("CREATE TABLE _prisma_migrations (id TEXT PRIMARY KEY, migration_name TEXT NOT NULL, started_at DATETIME, finished_at DATETIME, rolled_back_at DATETIME)");
  const insert = database.prepare("INSERT INTO _prisma_migrations (id, migration_name, finished_at) VALUES (?, ?, ?)");
  COMMITTED.forEach((name, i) => insert.run(String(i), name, name === LAST ? null : "2026-11-30T10:00:00Z"));
  database.close();
  return `file:${file}`;
}

describe("npm run db:resolve", () => {
  const USAGE = "db:resolve: usage: npm run db:resolve -- --rolled-back <migration> | --applied <migration>\n";

  test("--rolled-back records a failed migration, which is then pending; a second time there is none of that name: exit 2 naming the failed ones", async () => {
    const url = databaseWithLastFailed();
    assert.deepEqual(await runMain(resolveMigration, ["--rolled-back", LAST], { DATABASE_URL: url }), { code: 0, stdout: `Migration ${LAST} recorded as rolled-back; run npm start.\n`, stderr: "" });
    assert.deepEqual(await checkMigrations(url), { state: "pending", applied: COMMITTED.slice(0, -1), pending: [LAST] });
    assert.deepEqual(await runMain(resolveMigration, ["--rolled-back", LAST], { DATABASE_URL: url }), { code: 2, stdout: "", stderr: `db:resolve: no failed migration named ${LAST} (failed migrations: none)\n` });
  });

  test("--applied records it as applied; a name that is not the failed one is refused, naming the failed one", async () => {
    const url = databaseWithLastFailed();
    assert.deepEqual(await runMain(resolveMigration, ["--applied", COMMITTED[0]], { DATABASE_URL: url }), { code: 2, stdout: "", stderr: `db:resolve: no failed migration named ${COMMITTED[0]} (failed migrations: ${LAST})\n` });
    assert.deepEqual(await runMain(resolveMigration, ["--applied", LAST], { DATABASE_URL: url }), { code: 0, stdout: `Migration ${LAST} recorded as applied; run npm start.\n`, stderr: "" });
    assert.deepEqual(await checkMigrations(url), { state: "up-to-date", applied: COMMITTED, unknown: [] });
  });

  test("a missing, unknown or extra argument is the usage, exit 2; a database that cannot be read is exit 1, in one line", async () => {
    for (const argv of [[], ["--rolled-back"], ["--undo", LAST], ["--applied", LAST, "extra"]]) {
      assert.deepEqual(await runMain(resolveMigration, argv, {}), { code: 2, stdout: "", stderr: USAGE }, argv.join(" "));
    }
    const unreadable = await runMain(resolveMigration, ["--applied", LAST], { DATABASE_URL: `file:${path.join(folder, "no-folder", "none.db")}` });
    assert.equal(unreadable.code, 1);
    assert.match(unreadable.stderr, /^db:resolve: .+\n$/);
  });
});

test("npm run db:schema -- --check: the committed PostgreSQL schema is a fresh generation, exit 0", async () => {
  assert.deepEqual(await runMain(postgresSchema, ["--check"], {}), { code: 0, stdout: "prisma/postgresql/schema.prisma is up to date\n", stderr: "" });
});

test("npm run db:migration without a topic, or with one that is not lower-case letters, digits and _: the usage, exit 2, nothing written", async () => {
  const usage = { code: 2, stdout: "", stderr: "usage: npm run db:migration -- <topic>   (lower-case letters, digits and _)\n" };
  const written = () => [statSync("prisma/postgresql/schema.prisma").mtimeMs, readdirSync("prisma/migrations").length, readdirSync("prisma/postgresql/migrations").length];
  const before = written();
  for (const argv of [[], ["Add-Column"], ["add column"]]) assert.deepEqual(await runMain(newMigration, argv, {}), usage, argv.join(" "));
  assert.deepEqual(written(), before);
});
