import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { settings, type Settings } from "@/lib/config/settings";
import { attachDriver, sqliteDriver, type DriverDb } from "@/lib/db/driver";
import { openPostgres } from "@/lib/db/open-postgres";
import { serializedSqliteFactory } from "@/lib/db/serialized-sqlite-adapter";
import { isPostgresUrl, sqliteFilePath } from "@/lib/db/url";
import { logger } from "@/lib/log/logger";

export type Db = PrismaClient;
/** The client handed to `$transaction` callbacks. */
export type Tx = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];

/**
 * Opens a Prisma client on the embedded SQLite file with the durability the receiver promises:
 * WAL journal, `synchronous=FULL` (a 2xx must survive a power cut, not only a process crash) and a
 * busy timeout (ms). `synchronous` is per connection, so it is set on every client opened here.
 */
export async function openSqlite(url: string, busyTimeoutMs: number, transactionTimeoutMs = 15_000): Promise<Db> {
  let driver: DriverDb | undefined;
  const client = new PrismaClient({
    adapter: serializedSqliteFactory(new PrismaBetterSQLite3({ url: sqliteFilePath(url), timeout: busyTimeoutMs }), (connection, exclusive) => {
      driver = sqliteDriver(connection, exclusive, transactionTimeoutMs);
    }),
    // Transactions queue behind each other on SQLite's one connection: wait for a turn, do not fail fast.
    transactionOptions: { maxWait: 30_000, timeout: transactionTimeoutMs },
  });
  await client.$executeRawUnsafe("PRAGMA journal_mode = WAL");
  await client.$executeRawUnsafe("PRAGMA synchronous = FULL");
  await client.$executeRawUnsafe("PRAGMA foreign_keys = ON");
  // The statements above opened the connection: its driver is known from here on.
  if (driver) attachDriver(client, driver);
  return client;
}

/**
 * Opens a client for `url` (default: the DATABASE_URL setting): a postgres:// or postgresql:// URL
 * opens PostgreSQL with a connection pool (lib/db/open-postgres.ts), anything else the SQLite file.
 * This is the one place that picks the database; both return the same model API. Pool size and
 * timeouts come from `config` (default: the process's settings: DATABASE_POOL_SIZE, DATABASE_POOL_TIMEOUT_MS,
 * DATABASE_STATEMENT_TIMEOUT_MS, DATABASE_TRANSACTION_TIMEOUT_MS, DATABASE_BUSY_TIMEOUT_MS).
 */
export async function openDb(url: string = settings().DATABASE_URL, config: Settings = settings()): Promise<Db> {
  if (isPostgresUrl(url)) {
    return openPostgres(url, {
      poolSize: config.DATABASE_POOL_SIZE,
      poolTimeoutMs: config.DATABASE_POOL_TIMEOUT_MS,
      statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
      transactionTimeoutMs: config.DATABASE_TRANSACTION_TIMEOUT_MS,
    });
  }
  return openSqlite(url, config.DATABASE_BUSY_TIMEOUT_MS, config.DATABASE_TRANSACTION_TIMEOUT_MS);
}

const globalForDb = globalThis as unknown as { acreditaDb?: Promise<Db> };

/** The process's one database client, created on first use (kept on globalThis across dev reloads). */
export function db(): Promise<Db> {
  globalForDb.acreditaDb ??= openDb().catch((error: unknown) => {
    globalForDb.acreditaDb = undefined;
    throw error;
  });
  return globalForDb.acreditaDb;
}

/** Closes the process's client (CLI commands and tests call this before exiting). */
export async function closeDb(): Promise<void> {
  const pending = globalForDb.acreditaDb;
  globalForDb.acreditaDb = undefined;
  if (pending) await (await pending).$disconnect();
}

/**
 * {@link closeDb} for a process about to exit: a close still pending after `withinMs` (default 10 s) is given up on,
 * logged, and the promise resolves anyway (on PostgreSQL the pool's end waits for every checked-out
 * connection, and an exit must not hang on one that is never returned). Rejects when the close fails.
 */
export async function closeDbWithin(withinMs = 10_000): Promise<void> {
  await closeWithin(closeDb, withinMs);
}

/** Awaits `close` for `withinMs` at most, logging a warning when it gave up; rejects when `close` does. */
async function closeWithin(close: () => Promise<void>, withinMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), withinMs)));
  try {
    if ((await Promise.race([close(), gaveUp])) === "late") logger.warn({ withinMs }, "the database connections did not close in time; exiting without them");
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs `use` with a client of its own on `config.DATABASE_URL` (pool and timeouts from `config`), then
 * closes it, giving the close `withinMs` (default 10 s) at most, as {@link closeDbWithin} does for a
 * process about to exit. For a command's `main` (scripts/), which a test may run many times in one
 * process on other databases than the process's own: it never touches the process's shared client.
 * Resolves with what `use` resolves; rejects with what `use` throws (a failed close is then ignored),
 * or with the close's error.
 */
export async function withOwnDb<T>(config: Settings, use: (database: Db) => Promise<T>, withinMs = 10_000): Promise<T> {
  const database = await openDb(config.DATABASE_URL, config);
  let result: T;
  try {
    result = await use(database);
  } catch (error) {
    await closeWithin(() => database.$disconnect(), withinMs).catch(() => undefined);
    throw error;
  }
  await closeWithin(() => database.$disconnect(), withinMs);
  return result;
}
