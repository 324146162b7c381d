// Synchronous SQL reads of a test database from the test process, on SQLite or PostgreSQL, for tests
// that poll what server and worker processes wrote. SQLite: better-sqlite3, read-only (WAL: readers never
// block writers). PostgreSQL: one `psql` call per query (synchronous like better-sqlite3, so the tests
// read the same way on both). Queries are written as for SQLite; for PostgreSQL mixed-case identifiers
// (WebhookEvent, eventId) are quoted and `?` parameters inlined as literals (test values only).
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { postgresBinDir } from "@/lib/db/postgres-cluster";
import type { TestDatabase } from "./test-database";

type Param = string | number | boolean | null;

export interface SqlReader {
  get<T>(sql: string, ...params: Param[]): T | undefined;
  all<T>(sql: string, ...params: Param[]): T[];
  /** `SELECT ... AS n` as a number (SQLite and PostgreSQL may return bigint or text for counts). */
  count(sql: string, ...params: Param[]): number;
  close(): void;
}

function psqlPath(): string {
  const bin = postgresBinDir();
  return bin && existsSync(path.join(bin, "psql")) ? path.join(bin, "psql") : "psql";
}

/** Rewrites a SQLite-flavoured query for PostgreSQL: quotes camel/Pascal-case identifiers, inlines `?`. */
export function toPostgresSql(sql: string, params: Param[]): string {
  let index = 0;
  const literal = (value: Param) => (value === null ? "NULL" : typeof value === "number" || typeof value === "boolean" ? String(value) : `'${value.replaceAll("'", "''")}'`);
  // Split on string literals and quoted identifiers so only bare words are rewritten.
  return sql
    .split(/('(?:[^']|'')*'|"[^"]*")/)
    .map((part, i) => {
      if (i % 2 === 1) return part;
      // Identifiers first, then the parameters: a value's own words (a JSON payload's "paymentKey") are never quoted.
      return part.replace(/\b(?=[A-Za-z]*[a-z])(?=[A-Za-z]*[A-Z])[A-Za-z]+\b/g, (word) => `"${word}"`).replace(/\?/g, () => literal(params[index++]));
    })
    .join("");
}

/** Opens a synchronous reader on `database` (see the file comment). */
export function sqlReader(database: TestDatabase): SqlReader {
  if (database.file) {
    const db = new Database(database.file, { readonly: true });
    return {
      get: <T>(sql: string, ...params: Param[]) => db.prepare(sql).get(...params) as T | undefined,
      all: <T>(sql: string, ...params: Param[]) => db.prepare(sql).all(...params) as T[],
      count: (sql: string, ...params: Param[]) => Number((db.prepare(sql).get(...params) as { n: number | bigint }).n),
      close: () => db.close(),
    };
  }
  const psql = psqlPath();
  const all = <T>(sql: string, ...params: Param[]): T[] => {
    const wrapped = `SELECT coalesce(json_agg(t), '[]'::json) FROM (${toPostgresSql(sql, params)}) t`;
    const out = execFileSync(psql, ["-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1", "-d", database.url, "-c", wrapped], { encoding: "utf8" });
    return JSON.parse(out.trim()) as T[];
  };
  return {
    all,
    get: <T>(sql: string, ...params: Param[]) => all<T>(sql, ...params)[0],
    count: (sql: string, ...params: Param[]) => Number(all<{ n: number | string }>(sql, ...params)[0].n),
    close: () => undefined,
  };
}

/**
 * Makes the database refuse writes until `release()`: SQLite `BEGIN EXCLUSIVE` on the file from another
 * connection; PostgreSQL `LOCK TABLE ... IN ACCESS EXCLUSIVE MODE` on the events table (a writer then
 * waits until its statement timeout, so give the server a short DATABASE_STATEMENT_TIMEOUT_MS).
 */
export async function holdWriteLock(database: TestDatabase): Promise<{ release: () => Promise<void> }> {
  if (database.file) {
    const lock = new Database(database.file);
    lock.exec("BEGIN EXCLUSIVE");
    return {
      release: async () => {
        lock.exec("ROLLBACK");
        lock.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  await client.query(`BEGIN; LOCK TABLE "WebhookEvent" IN ACCESS EXCLUSIVE MODE`);
  return {
    release: async () => {
      await client.query("ROLLBACK");
      await client.end();
    },
  };
}
