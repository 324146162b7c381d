// npm run db:schema: writes prisma/postgresql/schema.prisma from prisma/schema.prisma (the models' one
// source of truth). `--check` writes nothing and exits 1 when the committed file differs.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { freshPostgresSchema, POSTGRES_SCHEMA_PATH } from "@/lib/db/postgres-schema";

const fresh = freshPostgresSchema();
const committed = existsSync(POSTGRES_SCHEMA_PATH) ? readFileSync(POSTGRES_SCHEMA_PATH, "utf8") : undefined;

if (process.argv.includes("--check")) {
  if (committed !== fresh) {
    console.error(`${POSTGRES_SCHEMA_PATH} differs from a fresh generation: run \`npm run db:schema\` and commit it`);
    process.exit(1);
  }
  console.log(`${POSTGRES_SCHEMA_PATH} is up to date`);
} else if (committed === fresh) {
  console.log(`${POSTGRES_SCHEMA_PATH} is up to date`);
} else {
  mkdirSync(path.dirname(POSTGRES_SCHEMA_PATH), { recursive: true });
  writeFileSync(POSTGRES_SCHEMA_PATH, fresh);
  console.log(`wrote ${POSTGRES_SCHEMA_PATH}`);
}
