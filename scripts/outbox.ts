// npm run outbox -- list [--status <status>] [--json] | resend <id> [note] | resolve <id> <note>
// Outbox messages (fulfilment webhooks). Uncertain ones were sent without an answer: check with the
// merchant, then resend (same Idempotency-Key) or resolve. Exit: 0 done, 1 refused, 2 bad usage.
import "@/lib/config/env-files";
import { userInfo } from "node:os";
import { readSettings } from "@/lib/config/settings";
import { cliSchemaExitCode } from "@/lib/db/cli-schema";
import { withOwnDb } from "@/lib/db/client";
import { listOutboxMessages, settleOutboxMessage } from "@/lib/outbox/outbox-messages";
import { writeLine, type CliEnv, type CliIo } from "@/lib/background/cli-io";
import { runCli } from "@/lib/background/run-cli";
import { terminalSafe } from "@/lib/format/terminal-safe";

const USAGE = "usage: npm run outbox -- list [--status <status>] [--json] | resend <id> [note] | resolve <id> <note>";

/**
 * `npm run outbox`: takes the arguments after the script, the environment (DATABASE_URL and the other
 * settings) and the streams; resolves with the exit status (0 done, 1 refused, 2 bad usage, or the schema
 * step's status).
 */
export async function main(argv: string[], env: CliEnv, io: CliIo): Promise<number> {
  /** Prints one line: ids and reasons came from providers' bodies, so nothing in them may drive the terminal. */
  const print = (line: string) => writeLine(io.stdout, terminalSafe(line));
  const [command, ...rest] = argv;
  const config = readSettings(env);
  const schemaExit = await cliSchemaExitCode("outbox", config.DATABASE_URL, { apply: true, stderr: io.stderr });
  if (schemaExit !== undefined) return schemaExit;
  return withOwnDb(config, async (database) => {
    if (command === "list") {
      const statusIndex = rest.indexOf("--status");
      const status = statusIndex >= 0 ? rest[statusIndex + 1] : undefined;
      const messages = await listOutboxMessages(database, { status, limit: 500 });
      if (rest.includes("--json")) {
        print(JSON.stringify({ data: messages, count: messages.length }, null, 2));
        return 0;
      }
      for (const message of messages) {
        print([message.id, message.status, message.idempotencyKey, `attempts=${message.attempts}`, `last=${message.lastStatusCode ?? "-"}`, message.lastError ?? "", message.note ?? ""].filter(Boolean).join("  "));
      }
      print(`${messages.length} outbox message${messages.length === 1 ? "" : "s"}`);
      return 0;
    }
    if ((command === "resend" || command === "resolve") && rest[0] && (command === "resend" || rest[1])) {
      const actor = `cli:${userInfo().username}`;
      const done = await settleOutboxMessage(database, rest[0], command, actor, rest.slice(1).join(" "));
      print(done ? `${rest[0]}  ${command === "resend" ? "resent" : "resolved"}` : `${rest[0]}  not changed: only uncertain or failed messages can be resent or resolved`);
      return done ? 0 : 1;
    }
    writeLine(io.stderr, USAGE);
    return 2;
  });
}

if (require.main === module) runCli("outbox", main);
