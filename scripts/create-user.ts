// npm run create-user -- --email a@b.c --name "Ana" --role admin [--locale en|es-AR]   (password read from
// ACREDITA_NEW_PASSWORD or prompted on stdin, never from argv, so it does not land in the shell history or `ps`).
// Exit 0 created, 1 the email exists, 2 bad usage or a refused field (a weak password, with why).
// Log lines to stderr: this command's stdout is its output. First import, before anything loads the logger.
import "@/lib/log/cli-logs-to-stderr";
import "@/lib/config/env-files";
import { parseArgs } from "node:util";
import { createInterface } from "node:readline/promises";
import { Writable } from "node:stream";
import { newUserSchema } from "@/lib/auth/users";
import { createUserWithPassword } from "@/lib/auth/users";
import { cliSchemaExitCode } from "@/lib/db/cli-schema";
import { closeDb, db } from "@/lib/db/client";
import { cliLocale, cliReasons } from "@/lib/reasons/cli-reasons";
import { issueReason } from "@/lib/reasons/reason-codes";

const USAGE = 'usage: npm run create-user -- --email a@b.c [--name "Ana"] [--role merchant|support|admin] [--locale en|es-AR]';

/**
 * The new password from ACREDITA_NEW_PASSWORD, else one line of stdin, never echoed: the prompt goes to
 * stderr, the typed characters nowhere (readline echoes into its output, here a stream that drops them),
 * so neither a terminal nor a captured stderr shows it.
 */
async function readPassword(): Promise<string | null> {
  if (process.env.ACREDITA_NEW_PASSWORD) return process.env.ACREDITA_NEW_PASSWORD;
  process.stderr.write("Password (12-128 characters, not a common one): ");
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  const rl = createInterface({ input: process.stdin, output: silent, terminal: Boolean(process.stdin.isTTY) });
  // Standard input that ends before a line (< /dev/null, a closed pipe) answers nothing: null, not a hang
  // that lets the process exit 0 having created nothing.
  const ended = new Promise<null>((resolve) => rl.once("close", () => resolve(null)));
  try {
    return await Promise.race([rl.question(""), ended]);
  } finally {
    rl.close();
    process.stderr.write("\n");
  }
}

async function main(): Promise<void> {
  let values: { email?: string; name?: string; role?: string; locale?: string };
  try {
    ({ values } = parseArgs({ options: { email: { type: "string" }, name: { type: "string" }, role: { type: "string", default: "merchant" }, locale: { type: "string" } } }));
  } catch (error) {
    console.error(`create-user: ${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  const locale = cliLocale(process.argv.slice(2), process.env);
  if (typeof locale !== "string") {
    console.error(`create-user: ${locale.error}\n${USAGE}`);
    process.exit(2);
  }
  const view = cliReasons(locale);
  // Before the password is asked for: the first admin is often created before the first `npm start`.
  const schemaExit = await cliSchemaExitCode("create-user", { apply: true });
  if (schemaExit !== undefined) process.exit(schemaExit);
  if (!values.email) {
    console.error(`create-user: --email is required\n${USAGE}`);
    process.exit(2);
  }
  // The fields typed on the command line are checked before the password is asked for.
  const fields = newUserSchema.safeParse({ email: values.email, name: values.name ?? values.email, role: values.role, password: "" });
  const fieldIssues = fields.success ? [] : fields.error.issues.filter((issue) => issue.path[0] !== "password");
  if (fieldIssues.length > 0) {
    console.error(`create-user: ${fieldIssues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}\n${USAGE}`);
    process.exit(2);
  }
  const password = await readPassword();
  if (password === null) {
    console.error("create-user: no password given (standard input ended before a line); set ACREDITA_NEW_PASSWORD or type it");
    process.exit(2);
  }
  const parsed = newUserSchema.safeParse({ email: values.email, name: values.name ?? values.email, role: values.role, password });
  if (!parsed.success) {
    // A refused password's reason (params.reason) in the command's locale; zod's own words otherwise.
    const issues = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${view.render(issueReason(issue), issue.message)}`);
    console.error(`create-user: ${issues.join("; ")}`);
    process.exit(2);
  }
  const result = await createUserWithPassword(await db(), parsed.data);
  await closeDb();
  if (result.kind === "exists") {
    console.error(`create-user: ${parsed.data.email} already exists`);
    process.exit(1);
  }
  console.log(`created ${result.user.email} (${result.user.role})`);
}

void main();
