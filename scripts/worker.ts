// npm run worker: an inbox worker and an outbox dispatcher in their own process (as many as needed).
// Stops cleanly on SIGTERM/SIGINT: finishes the event or send in hand, claims nothing new, exits 0.
import "@/lib/config/env-files";
import { startBackgroundWorkers } from "@/lib/background/background-workers";
import { processIo, writeLine, type CliEnv, type CliIo } from "@/lib/background/cli-io";
import { readSettings, SettingsError } from "@/lib/config/settings";
import { exitOnStop } from "@/lib/background/exit-on-stop";
import { cliSchemaExitCode } from "@/lib/db/cli-schema";

/**
 * `npm run worker`: takes the arguments after the script (none), the environment its start is checked
 * against (the settings, DATABASE_URL's schema) and the streams. Resolves with 1 when a setting is wrong
 * or the database is not migrated (one line on stderr each, as `<who> cannot start: ...`); otherwise runs
 * the workers, which use this process's settings and database as every background worker does, and
 * resolves once SIGTERM or SIGINT has stopped them (0, or 1 when stopping failed).
 */
export async function main(_argv: string[], env: CliEnv, io: CliIo): Promise<number> {
  let databaseUrl: string;
  try {
    databaseUrl = readSettings(env).DATABASE_URL;
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    writeLine(io.stderr, `Acredita worker cannot start: ${error.issues.join("; ")}`);
    return 1;
  }
  // A worker runs beside a server, which applies the migrations (docs/operations.md): it applies none itself.
  const schemaExit = await cliSchemaExitCode("Acredita worker cannot start", databaseUrl, { apply: false, stderr: io.stderr });
  if (schemaExit !== undefined) return schemaExit;
  const workers = startBackgroundWorkers({ where: "worker process" });
  return new Promise<number>((resolve) => exitOnStop("worker", () => workers.stop(), { exit: resolve }));
}

if (require.main === module) void main(process.argv.slice(2), process.env, processIo()).then((code) => process.exit(code));
