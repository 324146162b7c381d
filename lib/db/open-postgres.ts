import { PrismaPg } from "@prisma/adapter-pg";
import { Pool, type PoolClient } from "pg";
import { attachDriver, postgresDriver } from "@/lib/db/driver";
import { PrismaClient as PostgresPrismaClient } from "@/lib/generated/prisma-postgres/client";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { logger } from "@/lib/log/logger";

/** Pool and timeout settings of a PostgreSQL client (all durations in ms). */
export interface PostgresOptions {
  poolSize: number;
  poolTimeoutMs: number;
  statementTimeoutMs: number;
  transactionTimeoutMs: number;
}

/**
 * A pg pool whose checked-out connections are given back (and dropped) as soon as the server ends them.
 * While a connection is checked out pg-pool does not listen to it, and a connection the server ends
 * between two statements (restart, failover, idle killer) emits an 'error' that nobody hears, which
 * ends the process; and when that connection held a Prisma interactive transaction, Prisma's ROLLBACK
 * fails and it never releases the connection (measured on @prisma/adapter-pg 6.19), so each such loss
 * would leak one connection of the pool until none was left. Here the loss releases it with the error
 * (pg-pool then discards it); the holder's next statement fails ("not queryable") and its own later
 * release is a no-op. Only the promise form of `connect` is wrapped; `pool.query` releases by itself.
 */
class ReleaseOnLossPool extends Pool {
  override connect(): Promise<PoolClient>;
  override connect(callback: (err: Error | undefined, client: PoolClient | undefined, done: (release?: unknown) => void) => void): void;
  override connect(callback?: (err: Error | undefined, client: PoolClient | undefined, done: (release?: unknown) => void) => void): Promise<PoolClient> | void {
    if (callback) return super.connect(callback);
    return super.connect().then(releaseOnLoss);
  }
}

function releaseOnLoss(client: PoolClient): PoolClient {
  const release = client.release;
  let released = false;
  const onLost = (error: Error) => {
    logger.warn({ err: error.message }, "postgres connection lost while checked out; dropped from the pool");
    client.release(error);
  };
  client.on("error", onLost);
  client.release = (error?: Error | boolean) => {
    if (released) return;
    released = true;
    client.removeListener("error", onLost);
    release(error);
  };
  return client;
}

/**
 * Opens a Prisma client on PostgreSQL through @prisma/adapter-pg with a real connection pool of
 * `poolSize` connections. `statement_timeout` is set on every connection (the server cancels a
 * statement that runs longer, and the transaction around it rolls back); Prisma rolls back an
 * interactive transaction still open after `transactionTimeoutMs`, and gives up waiting for a
 * connection after `poolTimeoutMs`. `idle_in_transaction_session_timeout` is the server-side backstop
 * for a process that stalls inside a transaction: its locks are freed and its writes discarded.
 *
 * The client is generated from the PostgreSQL schema (prisma/postgresql/schema.prisma), itself
 * generated from the SQLite one, so both clients have the same models and the same model API. It is
 * returned typed as the SQLite client so domain code is written once; the PostgreSQL-only extras of
 * its API (e.g. `mode: "insensitive"`) are therefore not used. Throws nothing until first use.
 */
export function openPostgres(url: string, options: PostgresOptions): PrismaClient {
  // One pool for Prisma and for the driver-level hot path (lib/db/driver.ts): the same connections and limit.
  const pool = new ReleaseOnLossPool({
    connectionString: url,
    max: options.poolSize,
    connectionTimeoutMillis: options.poolTimeoutMs,
    statement_timeout: options.statementTimeoutMs,
    idle_in_transaction_session_timeout: options.transactionTimeoutMs * 2,
    application_name: "acredita",
  });
  pool.on("error", (error) => logger.warn({ err: error.message }, "postgres pool connection lost"));
  const adapter = new PrismaPg(
    pool,
    {
      disposeExternalPool: true,
      // A connection the server closed (restart, idle kill) is dropped from the pool (the pool's own
      // "error" listener above logs it); the next query opens another.
      onConnectionError: (error) => logger.warn({ err: error.message }, "postgres connection error"),
    },
  );
  const client = new PostgresPrismaClient({
    adapter,
    transactionOptions: { maxWait: options.poolTimeoutMs, timeout: options.transactionTimeoutMs },
  });
  attachDriver(client, postgresDriver(pool, options.transactionTimeoutMs));
  return client as unknown as PrismaClient;
}
