import { closeDbWithin } from "@/lib/db/client";
import { errorMessage } from "@/lib/log/error-message";
import { processIo, type CliMain } from "@/lib/background/cli-io";

/**
 * Runs a command's `main` with this process's arguments, environment and streams, and exits with the
 * status it returns, once the process's database client is closed (so no connection or SQLite lock
 * outlives the command), or after 10 s of waiting for that close. An error `main` throws is printed as
 * `"<name>: <message>"` on stderr (never a stack with values in it) and exits `errorCode` (default 1;
 * commands whose code 1 means "found something", such as `npm run lab`, pass 2).
 */
export function runCli(name: string, main: CliMain, options: { errorCode?: number } = {}): void {
  main(process.argv.slice(2), process.env, processIo()).then(
    async (code) => {
      await closeDbWithin();
      process.exit(code);
    },
    async (error: unknown) => {
      console.error(`${name}: ${errorMessage(error)}`);
      await closeDbWithin().catch(() => undefined);
      process.exit(options.errorCode ?? 1);
    },
  );
}
