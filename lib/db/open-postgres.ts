import { PrismaPg } from "@prisma/adapter-pg";
import { Pool } from "pg";
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
  const pool = new Pool({
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
  attachDriver(client, postgresDriver(pool));
  return client as unknown as PrismaClient;
}
