// npm run db:resolve -- --rolled-back <migration> | --applied <migration>: records how a migration that
// failed part-way was settled (docs/operations.md, "A migration that failed"), so that `npm start` goes
// on: rolled back (repaired by hand or restored; the next start applies it again) or applied (completed
// by hand). Only a failed row (started, never finished) is changed. Exit 0 when recorded, 2 on a bad
// argument or when no failed migration of that name exists, 1 on a database failure.
import { DEFAULT_DATABASE_URL } from "@/lib/config/database-url";
import { checkMigrations, resolveFailedMigration, type MigrationResolution } from "@/lib/db/pending-migrations";
import { errorMessage } from "@/lib/log/error-message";
import { processIo, writeLine, type CliEnv, type CliIo } from "@/lib/background/cli-io";

const USAGE = "usage: npm run db:resolve -- --rolled-back <migration> | --applied <migration>";

/**
 * `npm run db:resolve`: takes the arguments after the script, the environment (DATABASE_URL) and the
 * streams; resolves with the exit status (0 recorded, 2 a bad argument or no failed migration of that
 * name, 1 a database failure). Never throws.
 */
export async function main(argv: string[], env: CliEnv, io: CliIo): Promise<number> {
  const [flag, name, ...rest] = argv;
  if ((flag !== "--rolled-back" && flag !== "--applied") || !name || rest.length > 0) {
    writeLine(io.stderr, `db:resolve: ${USAGE}`);
    return 2;
  }
  const url = env.DATABASE_URL || DEFAULT_DATABASE_URL;
  try {
    const changed = await resolveFailedMigration(url, name, flag.slice(2) as MigrationResolution);
    if (changed === 0) {
      const check = await checkMigrations(url);
      const failed = check.state === "failed" ? check.failed.join(", ") : "none";
      writeLine(io.stderr, `db:resolve: no failed migration named ${name} (failed migrations: ${failed})`);
      return 2;
    }
    writeLine(io.stdout, `Migration ${name} recorded as ${flag.slice(2)}; run npm start.`);
    return 0;
  } catch (error) {
    writeLine(io.stderr, `db:resolve: ${errorMessage(error)}`);
    return 1;
  }
}

if (require.main === module) void main(process.argv.slice(2), process.env, processIo()).then((code) => process.exit(code));
