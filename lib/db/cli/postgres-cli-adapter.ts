// The Prisma CLI's driver adapter for PostgreSQL (migrate deploy / diff / dev). The app needs none of
// this: it opens a plain PrismaPg (lib/db/client.ts). Three work-arounds, each seen failing without it
// (../shared/STACK.md): system column types, the shadow database's drop, and a lingering process.
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";

const TEXT_OID = 25;

/**
 * Column types @prisma/adapter-pg 6.19 maps (its fieldToColumnType). The schema engine's catalogue
 * queries also return system types (name, "char", regclass, oidvector, ...) that it refuses with
 * "Column type '...' could not be deserialized" (prisma/orm#27403); those are read as text instead.
 */
const SUPPORTED_OIDS = new Set([
  16, 17, 20, 21, 23, 25, 26, 114, 142, 650, 700, 701, 790, 869, 1042, 1043, 1082, 1083, 1114, 1184, 1266, 1560, 1562, 1700, 2950, 3802,
  // arrays
  143, 199, 651, 791, 1000, 1001, 1002, 1005, 1007, 1009, 1014, 1015, 1016, 1021, 1022, 1028, 1041, 1115, 1182, 1183, 1185, 1231, 1561, 1563, 2951, 3807,
]);
/** Below this oid a type is built in; user-defined types (enums) the adapter already reads as text. */
const FIRST_NORMAL_OBJECT_ID = 16384;

type QueryResultLike = { fields?: { dataTypeID: number }[] };

function textForSystemTypes(result: unknown): void {
  for (const field of (result as QueryResultLike | undefined)?.fields ?? []) {
    if (field.dataTypeID < FIRST_NORMAL_OBJECT_ID && !SUPPORTED_OIDS.has(field.dataTypeID)) field.dataTypeID = TEXT_OID;
  }
}

/** Makes every client of `pool` report unsupported system column types as text (values are text already). */
function readSystemTypesAsText(pool: pg.Pool): pg.Pool {
  pool.on("connect", (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as { query: unknown }).query = (...args: unknown[]) => {
      // pg's Pool.query calls client.query with a callback; the adapter's transactions use the promise.
      const last = args.length - 1;
      if (typeof args[last] === "function") {
        const callback = args[last] as (error: unknown, value: unknown) => void;
        args[last] = (error: unknown, value: unknown) => {
          if (!error) textForSystemTypes(value);
          callback(error, value);
        };
        return query(...args);
      }
      const result = query(...args);
      if (result && typeof (result as Promise<unknown>).then === "function") {
        return (result as Promise<unknown>).then((value) => {
          textForSystemTypes(value);
          return value;
        });
      }
      return result;
    };
  });
  return pool;
}

/** host/port/user/password of a URL, WITHOUT the database: in `pg` a connection string overrides `database`. */
function connectionFields(url: string): pg.PoolConfig {
  const parsed = new URL(url);
  const socketHost = parsed.searchParams.get("host");
  return {
    host: socketHost ?? decodeURIComponent(parsed.hostname || "localhost"),
    port: parsed.port ? Number(parsed.port) : 5432,
    user: decodeURIComponent(parsed.username) || undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
  };
}

function databaseOf(url: string): string {
  return decodeURIComponent(new URL(url).pathname.replace(/^\//, "")) || "postgres";
}

async function adminQuery(base: pg.PoolConfig, sql: string): Promise<void> {
  const client = new pg.Client({ ...base, database: "postgres" });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * The CLI's adapter factory for the PostgreSQL database at `url`. Its pools exit when idle
 * (`allowExitOnIdle`); its shadow database (migrate diff --from-migrations, migrate dev) is created
 * here and dropped `WITH (FORCE)` after the pool closes, because the engine drops it while its own
 * pool is still connected ("being accessed by other users").
 */
export function postgresCliAdapter(url: string): SqlMigrationAwareDriverAdapterFactory {
  const base = connectionFields(url);
  const main = new PrismaPg(readSystemTypesAsText(new pg.Pool({ ...base, database: databaseOf(url), max: 2, allowExitOnIdle: true })));
  return {
    provider: main.provider,
    adapterName: main.adapterName,
    connect: () => main.connect(),
    async connectToShadowDb(): Promise<SqlDriverAdapter> {
      const database = `prisma_shadow_${crypto.randomUUID().replaceAll("-", "")}`;
      await adminQuery(base, `CREATE DATABASE "${database}"`);
      const pool = readSystemTypesAsText(new pg.Pool({ ...base, database, max: 2, allowExitOnIdle: true }));
      const adapter = await new PrismaPg(pool, { disposeExternalPool: true }).connect();
      const dispose = adapter.dispose.bind(adapter);
      adapter.dispose = async () => {
        await dispose();
        await adminQuery(base, `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      };
      return adapter;
    },
  };
}
