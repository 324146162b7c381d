import type Database from "better-sqlite3";
import pg, { type Pool, type PoolClient } from "pg";

const pgTypes = pg.types;

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
  /**
   * Runs ONE statement on its own, in autocommit (no BEGIN/COMMIT around it: one statement is atomic),
   * and returns its rows (a SELECT, or a write with RETURNING). For a statement that needs no
   * transaction of its own, such as the inbox claim.
   */
  all<Row = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<Row[]>;
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
export function sqliteDriver(database: Database.Database, exclusive: <T>(work: () => Promise<T>) => Promise<T>, transactionTimeoutMs = 15_000): DriverDb {
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
  let check = deadline(transactionTimeoutMs);
  const session: SqlSession = {
    dialect: "sqlite",
    async all<Row>(sql: string, params: readonly SqlValue[] = []) {
      check();
      return prepare(sql).all(...params.map(sqliteValue)) as Row[];
    },
    async run(sql, params = []) {
      check();
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
        check = deadline(transactionTimeoutMs);
        try {
          const result = await work(session);
          check();
          prepare("COMMIT").run();
          return result;
        } catch (error) {
          if (database.inTransaction) prepare("ROLLBACK").run();
          throw error;
        }
      }),
    all: <Row>(sql: string, params: readonly SqlValue[] = []) =>
      exclusive(async () => prepare(sql).all(...params.map(sqliteValue)) as Row[]),
  };
}

/**
 * The deadline of one driver transaction (DATABASE_TRANSACTION_TIMEOUT_MS, as Prisma's interactive
 * transactions had): a statement or the commit that comes after it throws, so the transaction rolls
 * back instead of holding its locks. The message is recognised as a timeout (lib/db/errors.ts).
 */
function deadline(timeoutMs: number): () => void {
  const expiresAt = Date.now() + timeoutMs;
  return () => {
    if (Date.now() > expiresAt) throw new Error(`expired transaction: open longer than ${timeoutMs} ms (DATABASE_TRANSACTION_TIMEOUT_MS); rolled back`);
  };
}

// Prisma's DateTime is TIMESTAMP(3) WITHOUT TIME ZONE on PostgreSQL holding UTC. pg would send a Date
// in the process's local time with an offset (which such a column silently drops) and parse the column
// as local time, so a server whose TZ is not UTC would shift every time the driver writes or reads.
// Dates go out as UTC ISO text and TIMESTAMP comes back as UTC, on the driver's queries only.
const PG_TIMESTAMP_OID = 1114;
const utcTypes = {
  getTypeParser: (oid: number, format?: "text" | "binary") =>
    oid === PG_TIMESTAMP_OID && format !== "binary"
      ? (value: string) => new Date(`${value.replace(" ", "T")}Z`)
      : pgTypes.getTypeParser(oid, format ?? "text"),
};

function postgresValue(value: SqlValue): unknown {
  return value instanceof Date ? value.toISOString() : value;
}

/** `?` placeholders to PostgreSQL's `$n` (Acredita's SQL has no `?` inside literals). */
function numbered(sql: string): string {
  let index = 0;
  return sql.replace(/\?/g, () => `$${++index}`);
}

/**
 * The PostgreSQL driver: a connection from the same pg pool Prisma uses, named prepared statements
 * (parsed and planned once per connection), READ COMMITTED like Prisma's transactions. A connection
 * whose transaction failed on the network is discarded, not returned to the pool. A connection the
 * server ends while a transaction holds it is released by the pool itself (openPostgres's pool,
 * lib/db/open-postgres.ts), for this driver and Prisma alike: the transaction fails at its next statement.
 */
export function postgresDriver(pool: Pool, transactionTimeoutMs = 15_000): DriverDb {
  const names = new Map<string, { name: string; text: string }>();
  const named = (sql: string) => {
    let entry = names.get(sql);
    if (!entry) {
      entry = { name: `acredita_${names.size + 1}`, text: numbered(sql) };
      names.set(sql, entry);
    }
    return entry;
  };
  const sessionOf = (client: PoolClient, check: () => void): SqlSession => {
    let savepoints = 0;
    const query = async (sql: string, params: readonly SqlValue[]) => {
      check();
      const result = await client.query({ ...named(sql), values: params.map(postgresValue), types: utcTypes });
      check();
      return result;
    };
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
      let cleanRollback = false;
      try {
        await client.query("BEGIN");
        const check = deadline(transactionTimeoutMs);
        try {
          const result = await work(sessionOf(client, check));
          check();
          await client.query("COMMIT");
          return result;
        } catch (error) {
          await client.query("ROLLBACK").then(
            () => (cleanRollback = true),
            (rollbackError: Error) => (broken = rollbackError),
          );
          throw error;
        }
      } catch (error) {
        // A server error carries a SQLSTATE and leaves the connection usable, and so does any error the
        // work threw (a rule's refusal, a rolled-back preview) once the ROLLBACK went through; anything
        // else (the network failed on BEGIN, COMMIT or ROLLBACK) does not.
        const sqlState = (error as { code?: unknown } | undefined)?.code;
        if (!cleanRollback && !(typeof sqlState === "string" && /^[0-9A-Z]{5}$/.test(sqlState))) broken ??= error instanceof Error ? error : new Error(String(error));
        throw error;
      } finally {
        client.release(broken);
      }
    },
    async all<Row>(sql: string, params: readonly SqlValue[] = []) {
      // pg keeps a named statement per connection: each pooled connection prepares it on first use.
      return (await pool.query({ ...named(sql), values: params.map(postgresValue), types: utcTypes })).rows as Row[];
    },
  };
}

/** Carries what a {@link rolledBack} transaction's work returned through the driver's rollback. */
class RolledBack<T> extends Error {
  constructor(readonly value: T) {
    super("rolled back on purpose");
    this.name = "RolledBack";
  }
}

/**
 * Runs `work` in one driver transaction and ALWAYS rolls it back, resolving with what `work` returned:
 * what today's code would do, computed by that code on the real books, with nothing kept (a replay's
 * preview, the books' rebuild). The work's return value travels in a sentinel error thrown at the end
 * of the transaction's callback, so the driver rolls back as for any error; the PostgreSQL connection
 * goes back to the pool once its ROLLBACK went through. On SQLite the one connection is held for the
 * whole of `work`: callers keep it short (batches). Throws what `work` throws (also rolled back).
 */
export async function rolledBack<T>(driver: DriverDb, work: (session: SqlSession) => Promise<T>): Promise<T> {
  try {
    await driver.transaction(async (session) => {
      throw new RolledBack(await work(session));
    });
  } catch (error) {
    if (error instanceof RolledBack) return error.value as T;
    throw error;
  }
  throw new Error("unreachable: a rolled-back transaction committed");
}
