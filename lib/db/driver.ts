import type Database from "better-sqlite3";
import type { Pool, PoolClient } from "pg";

/** A value bound to a statement. Dates and booleans are written as the model API writes them on each database. */
export type SqlValue = string | number | boolean | Date | null;

/**
 * One open driver transaction: statements run on the driver's own prepared statements (better-sqlite3's
 * cached `Statement`s; pg's named prepared statements), never through Prisma's query compiler. SQL is
 * written once with `?` placeholders; PostgreSQL gets `$1..$n`.
 */
export interface SqlSession {
  readonly dialect: "sqlite" | "postgresql";
  /** The rows a statement returns (SELECT, or a write with RETURNING), column names as in the SQL. */
  all<Row = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<Row[]>;
  /** Runs a write; returns how many rows it changed. */
  run(sql: string, params?: readonly SqlValue[]): Promise<number>;
  /**
   * Runs `work` inside a SAVEPOINT: when it throws, only its own writes are rolled back (to the
   * savepoint) and the error is rethrown; the transaction goes on.
   */
  savepoint<T>(work: () => Promise<T>): Promise<T>;
}

/** The driver under a Prisma client: one transaction at a time per call, sharing Prisma's connection or pool. */
export interface DriverDb {
  readonly dialect: "sqlite" | "postgresql";
  /** Runs `work` in one transaction: commits when it resolves, rolls back (and rethrows) when it throws. */
  transaction<T>(work: (session: SqlSession) => Promise<T>): Promise<T>;
}

// On the client object itself, under a registry symbol: Next.js bundles lib/ more than once (the
// instrumentation hook, each route), and the process's client is shared on globalThis across them, so
// module-local state such as a WeakMap would not see a driver another bundle attached.
const DRIVER = Symbol.for("acredita.driver");

/** Records the driver a client was opened on (lib/db/client.ts, lib/db/open-postgres.ts). */
export function attachDriver(client: object, driver: DriverDb): void {
  Object.defineProperty(client, DRIVER, { value: driver, enumerable: false });
}

/** The driver of a client opened by lib/db; throws when the client was not (a bare PrismaClient). */
export function driverOf(client: object): DriverDb {
  const driver = (client as { [DRIVER]?: DriverDb })[DRIVER];
  if (!driver) throw new Error("this database client has no driver attached: open it with lib/db/client.ts");
  return driver;
}

/** Prisma's SQLite DateTime text (ISO 8601 with an explicit UTC offset), as the model API writes it. */
export function sqliteDate(date: Date): string {
  return date.toISOString().replace("Z", "+00:00");
}

function sqliteValue(value: SqlValue): string | number | null {
  if (value instanceof Date) return sqliteDate(value);
  if (typeof value === "boolean") return value ? 1 : 0;
  return value;
}

/**
 * The SQLite driver: the one better-sqlite3 connection Prisma uses, under the lock that already
 * serialises Prisma's statements and transactions on it (lib/db/serialized-sqlite-adapter.ts), so a
 * driver transaction and Prisma's work never interleave. `BEGIN IMMEDIATE` takes the write lock at
 * once (other processes wait busy_timeout, never fail half-way on an upgrade).
 */
export function sqliteDriver(database: Database.Database, exclusive: <T>(work: () => Promise<T>) => Promise<T>): DriverDb {
  const statements = new Map<string, Database.Statement>();
  const prepare = (sql: string) => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = database.prepare(sql);
      // Prisma's adapter turns safe integers on for the connection: Acredita's columns fit a JS number.
      if (statement.reader) statement.safeIntegers(false);
      statements.set(sql, statement);
    }
    return statement;
  };
  let savepoints = 0;
  const session: SqlSession = {
    dialect: "sqlite",
    async all<Row>(sql: string, params: readonly SqlValue[] = []) {
      return prepare(sql).all(...params.map(sqliteValue)) as Row[];
    },
    async run(sql, params = []) {
      return prepare(sql).run(...params.map(sqliteValue)).changes;
    },
    async savepoint(work) {
      const name = `sp${++savepoints}`;
      database.exec(`SAVEPOINT ${name}`);
      try {
        const result = await work();
        database.exec(`RELEASE ${name}`);
        return result;
      } catch (error) {
        database.exec(`ROLLBACK TO ${name}`);
        database.exec(`RELEASE ${name}`);
        throw error;
      }
    },
  };
  return {
    dialect: "sqlite",
    transaction: (work) =>
      exclusive(async () => {
        prepare("BEGIN IMMEDIATE").run();
        try {
          const result = await work(session);
          prepare("COMMIT").run();
          return result;
        } catch (error) {
          if (database.inTransaction) prepare("ROLLBACK").run();
          throw error;
        }
      }),
  };
}

/** `?` placeholders to PostgreSQL's `$n` (Acredita's SQL has no `?` inside literals). */
function numbered(sql: string): string {
  let index = 0;
  return sql.replace(/\?/g, () => `$${++index}`);
}

/**
 * The PostgreSQL driver: a connection from the same pg pool Prisma uses, named prepared statements
 * (parsed and planned once per connection), READ COMMITTED like Prisma's transactions. A connection
 * whose transaction failed on the network is discarded, not returned to the pool.
 */
export function postgresDriver(pool: Pool): DriverDb {
  const names = new Map<string, { name: string; text: string }>();
  const named = (sql: string) => {
    let entry = names.get(sql);
    if (!entry) {
      entry = { name: `acredita_${names.size + 1}`, text: numbered(sql) };
      names.set(sql, entry);
    }
    return entry;
  };
  const sessionOf = (client: PoolClient): SqlSession => {
    let savepoints = 0;
    const query = (sql: string, params: readonly SqlValue[]) => client.query({ ...named(sql), values: params as unknown[] });
    return {
      dialect: "postgresql",
      async all<Row>(sql: string, params: readonly SqlValue[] = []) {
        return (await query(sql, params)).rows as Row[];
      },
      async run(sql, params = []) {
        return (await query(sql, params)).rowCount ?? 0;
      },
      async savepoint(work) {
        const name = `sp${++savepoints}`;
        await client.query(`SAVEPOINT ${name}`);
        try {
          const result = await work();
          await client.query(`RELEASE SAVEPOINT ${name}`);
          return result;
        } catch (error) {
          await client.query(`ROLLBACK TO SAVEPOINT ${name}`);
          await client.query(`RELEASE SAVEPOINT ${name}`);
          throw error;
        }
      },
    };
  };
  return {
    dialect: "postgresql",
    async transaction(work) {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query("BEGIN");
        try {
          const result = await work(sessionOf(client));
          await client.query("COMMIT");
          return result;
        } catch (error) {
          await client.query("ROLLBACK").catch((rollbackError: Error) => (broken = rollbackError));
          throw error;
        }
      } catch (error) {
        // A server error carries a SQLSTATE and leaves the connection usable; anything else (network) does not.
        const sqlState = (error as { code?: unknown } | undefined)?.code;
        if (!(typeof sqlState === "string" && /^[0-9A-Z]{5}$/.test(sqlState))) broken ??= error instanceof Error ? error : new Error(String(error));
        throw error;
      } finally {
        client.release(broken);
      }
    },
  };
}
