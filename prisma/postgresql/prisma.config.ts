// Prisma CLI configuration for the PostgreSQL schema whatever DATABASE_URL says, for `prisma generate`
// of the PostgreSQL client (postinstall) and creating PostgreSQL migrations:
//   DATABASE_URL=postgresql://... npx prisma migrate diff --config prisma/postgresql/prisma.config.ts ...
// Paths here are relative to this folder.
import { defineConfig } from "prisma/config";
import { postgresCliAdapter } from "../../lib/db/cli/postgres-cli-adapter";
import { isPostgresUrl } from "../../lib/db/url";

const url = process.env.DATABASE_URL ?? "";

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: "schema.prisma",
  migrations: { path: "migrations" },
  adapter: async () => {
    if (!isPostgresUrl(url)) throw new Error("DATABASE_URL must be a postgresql:// URL for this command");
    return postgresCliAdapter(url);
  },
});
