// Prisma CLI configuration (migrate deploy / migrate diff / generate) for the embedded SQLite database.
// Prisma 6.19 runs its schema engine as WebAssembly through a driver adapter (see ../shared/STACK.md).
import path from "node:path";
import { defineConfig } from "prisma/config";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import { DEFAULT_DATABASE_URL, sqliteFilePath } from "./lib/db/url";

const url = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;

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

function cliAdapter(): SqlMigrationAwareDriverAdapterFactory {
  const factory = new PrismaBetterSQLite3({ url: sqliteFilePath(url), timeout: 10_000 });
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: () => factory.connect(),
    connectToShadowDb: async () => scriptAwareShadow(await factory.connectToShadowDb()),
  };
}

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: path.join("prisma", "schema.prisma"),
  migrations: { path: path.join("prisma", "migrations") },
  adapter: async () => cliAdapter(),
});
