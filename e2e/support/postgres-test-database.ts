// Fresh PostgreSQL databases for tests: one migrated template per set of migrations (made once, under
// an advisory lock so parallel test files do not race), then `CREATE DATABASE ... TEMPLATE`, which
// copies it in a few milliseconds. npm test's runner fills a pool of them before the PostgreSQL stage
// (TEST_POSTGRES_POOL), from which a test file takes one synchronously; without a pool (or once it is
// empty) this file runs as a script and prints the new database's URL: test-env.ts needs a database
// synchronously (test files are CommonJS, no top-level await) and calls it with spawnSync.
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { applyPostgresMigrations, createDatabase, migrationsFingerprint, quoteIdentifier, withConnection, withDatabase } from "@/lib/db/postgres-database";

/** Any fixed 64-bit number: the advisory lock that serialises making the template. */
const TEMPLATE_LOCK = 4_206_613;

/** Creates (once) the migrated template database for the current migrations and returns its name. */
export async function ensureTemplate(adminUrl: string): Promise<string> {
  const name = `acredita_template_${migrationsFingerprint()}`;
  await withConnection(adminUrl, async (client) => {
    await client.query("SELECT pg_advisory_lock($1)", [TEMPLATE_LOCK]);
    try {
      const exists = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
      if (exists.rowCount === 0) {
        const building = `${name}_building`;
        await client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(building)} WITH (FORCE)`);
        await client.query(`CREATE DATABASE ${quoteIdentifier(building)}`);
        await applyPostgresMigrations(withDatabase(adminUrl, building));
        // Renamed only when complete: a half-made template is never copied.
        await client.query(`ALTER DATABASE ${quoteIdentifier(building)} RENAME TO ${quoteIdentifier(name)}`);
      }
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [TEMPLATE_LOCK]);
    }
  });
  return name;
}

/** A new, migrated, empty database on the cluster of `adminUrl`; returns its URL. */
export async function newPostgresTestDatabase(adminUrl: string, label = "test"): Promise<string> {
  const template = await ensureTemplate(adminUrl);
  return createDatabase(adminUrl, `acredita_${label}_${randomBytes(6).toString("hex")}`, template);
}

/**
 * Fills `folder` with `count` new, migrated, empty databases of the cluster of `adminUrl`, one file each
 * (`<name>.url` holding its URL), made `concurrency` at a time: npm test's runner makes them before the
 * PostgreSQL stage so a test file takes one with a rename instead of starting a child process
 * ({@link claimPooledDatabase}). Returns how many it made.
 */
export async function fillDatabasePool(adminUrl: string, folder: string, count: number, concurrency = 2): Promise<number> {
  const template = await ensureTemplate(adminUrl);
  let made = 0;
  const one = async () => {
    while (made < count) {
      made++;
      const name = `acredita_pool_${randomBytes(6).toString("hex")}`;
      const url = await createDatabase(adminUrl, name, template);
      writeFileSync(path.join(folder, `${name}.url`), url);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, one));
  return made;
}

/**
 * Takes one database of a pool that {@link fillDatabasePool} filled: renames its file (atomic, so two
 * test files never take the same one) and returns its URL, or undefined when the pool is empty or gone.
 */
export function claimPooledDatabase(folder: string): string | undefined {
  let entries: string[];
  try {
    entries = readdirSync(folder).filter((entry) => entry.endsWith(".url"));
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    const taken = path.join(folder, `${entry}.taken-${process.pid}`);
    try {
      renameSync(path.join(folder, entry), taken);
    } catch {
      continue; // another test file took it first
    }
    return readFileSync(taken, "utf8").trim();
  }
  return undefined;
}

if (process.argv[1] && /postgres-test-database\.ts$/.test(process.argv[1])) {
  const [adminUrl, label] = process.argv.slice(2);
  newPostgresTestDatabase(adminUrl, label).then(
    (url) => process.stdout.write(url),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : String(error));
      process.exit(1);
    },
  );
}
