// npm run db:schema: writes prisma/postgresql/schema.prisma from prisma/schema.prisma (the models' one
// source of truth). `--check` writes nothing and exits 1 when the committed file differs.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { processIo, writeLine, type CliEnv, type CliIo } from "@/lib/background/cli-io";
import { freshPostgresSchema, POSTGRES_SCHEMA_PATH } from "@/lib/db/postgres-schema";

/**
 * `npm run db:schema [-- --check]`: takes the arguments after the script, the environment (unused: the
 * schema is generated from the files alone) and the streams; resolves with the exit status (0 up to date
 * or written, 1 `--check` found the committed file differs).
 */
export async function main(argv: string[], _env: CliEnv, io: CliIo): Promise<number> {
  const fresh = freshPostgresSchema();
  const committed = existsSync(POSTGRES_SCHEMA_PATH) ? readFileSync(POSTGRES_SCHEMA_PATH, "utf8") : undefined;
  if (argv.includes("--check")) {
    if (committed !== fresh) {
      writeLine(io.stderr, `${POSTGRES_SCHEMA_PATH} differs from a fresh generation: run \`npm run db:schema\` and commit it`);
      return 1;
    }
    writeLine(io.stdout, `${POSTGRES_SCHEMA_PATH} is up to date`);
  } else if (committed === fresh) {
    writeLine(io.stdout, `${POSTGRES_SCHEMA_PATH} is up to date`);
  } else {
    mkdirSync(path.dirname(POSTGRES_SCHEMA_PATH), { recursive: true });
    writeFileSync(POSTGRES_SCHEMA_PATH, fresh);
    writeLine(io.stdout, `wrote ${POSTGRES_SCHEMA_PATH}`);
  }
  return 0;
}

if (require.main === module) void main(process.argv.slice(2), process.env, processIo()).then((code) => process.exit(code));
