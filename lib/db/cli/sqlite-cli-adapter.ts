// The Prisma CLI's driver adapter for SQLite (migrate deploy / diff / dev).
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import { sqliteFilePath } from "../url";

/**
 * The schema engine sends a whole multi-statement migration through `executeRaw` on the shadow
 * database; better-sqlite3 prepares one statement at a time. Route argument-less raw calls to
 * `executeScript`, which runs a script.
 */
function scriptAwareShadow(adapter: SqlDriverAdapter): SqlDriverAdapter {
  const executeRaw = adapter.executeRaw.bind(adapter);
  adapter.executeRaw = async (query) => {
    if (query.args.length === 0) {
      await adapter.executeScript(query.sql);
      return 0;
    }
    return executeRaw(query);
  };
  return adapter;
}

/** The CLI's adapter factory for the SQLite file at `url` (busy timeout 10 s), with a script-aware shadow database. */
export function sqliteCliAdapter(url: string): SqlMigrationAwareDriverAdapterFactory {
  const factory = new PrismaBetterSQLite3({ url: sqliteFilePath(url), timeout: 10_000 });
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: () => factory.connect(),
    connectToShadowDb: async () => scriptAwareShadow(await factory.connectToShadowDb()),
  };
}
