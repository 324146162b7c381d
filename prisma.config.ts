// Prisma CLI configuration (generate / migrate deploy / migrate diff). DATABASE_URL picks the database:
// postgresql://... uses prisma/postgresql/ (schema generated from prisma/schema.prisma, its own
// migrations), anything else the embedded SQLite file. Prisma 6.19 runs its schema engine as
// WebAssembly through a driver adapter (see ../shared/STACK.md).
import path from "node:path";
import { defineConfig } from "prisma/config";
import { postgresCliAdapter } from "./lib/db/cli/postgres-cli-adapter";
import { sqliteCliAdapter } from "./lib/db/cli/sqlite-cli-adapter";
import { DEFAULT_DATABASE_URL } from "./lib/config/database-url";
import { isPostgresUrl } from "./lib/db/url";

const url = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
const folder = isPostgresUrl(url) ? path.join("prisma", "postgresql") : "prisma";

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: path.join(folder, "schema.prisma"),
  migrations: { path: path.join(folder, "migrations") },
  adapter: async () => (isPostgresUrl(url) ? postgresCliAdapter(url) : sqliteCliAdapter(url)),
});
