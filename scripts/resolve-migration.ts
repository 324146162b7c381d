// npm run db:resolve -- --rolled-back <migration> | --applied <migration>: records how a migration that
// failed part-way was settled (docs/operations.md, "A migration that failed"), so that `npm start` goes
// on: rolled back (repaired by hand or restored; the next start applies it again) or applied (completed
// by hand). Only a failed row (started, never finished) is changed. Exit 0 when recorded, 2 on a bad
// argument or when no failed migration of that name exists, 1 on a database failure.
import { DEFAULT_DATABASE_URL } from "@/lib/config/database-url";
import { checkMigrations, resolveFailedMigration, type MigrationResolution } from "@/lib/db/pending-migrations";
import { errorMessage } from "@/lib/log/error-message";

const USAGE = "usage: npm run db:resolve -- --rolled-back <migration> | --applied <migration>";

async function main(): Promise<number> {
  const [flag, name, ...rest] = process.argv.slice(2);
  if ((flag !== "--rolled-back" && flag !== "--applied") || !name || rest.length > 0) {
    console.error(`db:resolve: ${USAGE}`);
    return 2;
  }
  const url = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  try {
    const changed = await resolveFailedMigration(url, name, flag.slice(2) as MigrationResolution);
    if (changed === 0) {
      const check = await checkMigrations(url);
      const failed = check.state === "failed" ? check.failed.join(", ") : "none";
      console.error(`db:resolve: no failed migration named ${name} (failed migrations: ${failed})`);
      return 2;
    }
    console.log(`Migration ${name} recorded as ${flag.slice(2)}; run npm start.`);
    return 0;
  } catch (error) {
    console.error(`db:resolve: ${errorMessage(error)}`);
    return 1;
  }
}

void main().then((code) => process.exit(code));
