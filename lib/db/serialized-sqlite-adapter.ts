import type { SqlDriverAdapter, SqlDriverAdapterFactory, SqlQuery, Transaction } from "@prisma/driver-adapter-utils";
import type Database from "better-sqlite3";

/** A FIFO lock: `acquire()` resolves with a release function once every earlier holder released. */
class Mutex {
  private tail: Promise<void> = Promise.resolve();
  acquire(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((resolve) => (release = resolve));
    const ready = this.tail.then(() => release);
    this.tail = this.tail.then(() => next);
    return ready;
  }
}

/**
 * better-sqlite3 gives the Prisma adapter ONE connection. The adapter serialises transactions, but a
 * query outside a transaction runs on that same connection at once: while another request's
 * transaction is open it silently joins it (seen here: decision rows written by one request vanished
 * when another request's transaction rolled back, and reads saw uncommitted rows). This wrapper makes
 * every statement outside a transaction wait for the open transaction to end, and every transaction
 * wait for statements in flight, so each request sees only committed data and its writes stay its own.
 */
function serialize(adapter: SqlDriverAdapter, onConnect?: ConnectionListener): SqlDriverAdapter {
  const lock = new Mutex();
  const exclusive = async <T>(work: () => Promise<T>): Promise<T> => {
    const release = await lock.acquire();
    try {
      return await work();
    } finally {
      release();
    }
  };
  const wrapped: SqlDriverAdapter = {
    provider: adapter.provider,
    adapterName: adapter.adapterName,
    queryRaw: (query: SqlQuery) => exclusive(() => adapter.queryRaw(query)),
    executeRaw: (query: SqlQuery) => exclusive(() => adapter.executeRaw(query)),
    executeScript: (script: string) => exclusive(() => adapter.executeScript(script)),
    dispose: () => adapter.dispose(),
    async startTransaction(isolationLevel) {
      const release = await lock.acquire();
      let transaction: Transaction;
      try {
        transaction = await adapter.startTransaction(isolationLevel);
      } catch (error) {
        release();
        throw error;
      }
      let released = false;
      const finish = () => {
        if (!released) {
          released = true;
          release();
        }
      };
      return {
        provider: transaction.provider,
        adapterName: transaction.adapterName,
        options: transaction.options,
        queryRaw: (query: SqlQuery) => transaction.queryRaw(query),
        executeRaw: (query: SqlQuery) => transaction.executeRaw(query),
        commit: () => transaction.commit().finally(finish),
        rollback: () => transaction.rollback().finally(finish),
      };
    },
  };
  if (adapter.getConnectionInfo) wrapped.getConnectionInfo = () => adapter.getConnectionInfo!();
  // The adapter keeps its better-sqlite3 connection as `client` (@prisma/adapter-better-sqlite3 6.19).
  const connection = (adapter as unknown as { client?: Database.Database }).client;
  if (onConnect && connection) onConnect(connection, exclusive);
  return wrapped;
}

/** Told about each connection opened: the raw better-sqlite3 connection and the lock that serialises work on it. */
export type ConnectionListener = (connection: Database.Database, exclusive: <T>(work: () => Promise<T>) => Promise<T>) => void;

/**
 * Wraps a SQLite adapter factory so each connection it opens is serialised as described above;
 * `onConnect` receives the connection and its lock, so driver-level transactions (lib/db/driver.ts)
 * take the same lock as Prisma's.
 */
export function serializedSqliteFactory(factory: SqlDriverAdapterFactory, onConnect?: ConnectionListener): SqlDriverAdapterFactory {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => serialize(await factory.connect(), onConnect),
  };
}
