// npm run create-user -- --email a@b.c --name "Ana" --role admin [--org <slug>] [--locale en|es-AR]   (password read from
// ACREDITA_NEW_PASSWORD or prompted on stdin, never from argv, so it does not land in the shell history or `ps`).
// The user becomes a member of the organization --org names (the default organization without it) with --role.
// Exit 0 created, 1 the email exists, 2 bad usage, an unknown organization or a refused field (a weak password, with why).
// Log lines to stderr: this command's stdout is its output. First import, before anything loads the logger.
import "@/lib/log/cli-logs-to-stderr";
import "@/lib/config/env-files";
import { parseArgs } from "node:util";
import { createInterface } from "node:readline/promises";
import { Writable } from "node:stream";
import { newUserSchema } from "@/lib/auth/users";
import { createUserWithPassword } from "@/lib/auth/users";
import { readSettings } from "@/lib/config/settings";
import { cliSchemaExitCode } from "@/lib/db/cli-schema";
import { withOwnDb } from "@/lib/db/client";
import { DEFAULT_ORGANIZATION, findOrganizationBySlug } from "@/lib/organizations/organizations";
import { cliLocale, cliReasons } from "@/lib/reasons/cli-reasons";
import { issueReason } from "@/lib/reasons/reason-codes";
import { writeLine, type CliEnv, type CliIo } from "@/lib/background/cli-io";
import { runCli } from "@/lib/background/run-cli";

const USAGE = 'usage: npm run create-user -- --email a@b.c [--name "Ana"] [--role merchant|support|admin] [--org <slug>] [--locale en|es-AR]';

/**
 * The new password from ACREDITA_NEW_PASSWORD, else one line of `io.stdin`, never echoed: the prompt goes to
 * stderr, the typed characters nowhere (readline echoes into its output, here a stream that drops them),
 * so neither a terminal nor a captured stderr shows it.
 */
async function readPassword(env: CliEnv, io: CliIo): Promise<string | null> {
  if (env.ACREDITA_NEW_PASSWORD) return env.ACREDITA_NEW_PASSWORD;
  io.stderr.write("Password (12-128 characters, not a common one): ");
  if (!io.stdin) return null;
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  const rl = createInterface({ input: io.stdin, output: silent, terminal: Boolean(io.stdin.isTTY) });
  // Standard input that ends before a line (< /dev/null, a closed pipe) answers nothing: null, not a hang
  // that lets the process exit 0 having created nothing.
  const ended = new Promise<null>((resolve) => rl.once("close", () => resolve(null)));
  try {
    return await Promise.race([rl.question(""), ended]);
  } finally {
    rl.close();
    io.stderr.write("\n");
  }
}

/**
 * `npm run create-user`: takes the arguments after the script, the environment (DATABASE_URL and the other
 * settings, ACREDITA_NEW_PASSWORD, the locale's LANG) and the streams; resolves with the exit status
 * (0 created, 1 the email exists, 2 bad usage, an unknown `--org` slug or a refused field, or the schema
 * step's status). The user is a member of the `--org` organization (default: the default one) with `--role`.
 */
export async function main(argv: string[], env: CliEnv, io: CliIo): Promise<number> {
  const refuse = (line: string) => writeLine(io.stderr, line);
  let values: { email?: string; name?: string; role?: string; org?: string; locale?: string };
  try {
    ({ values } = parseArgs({ args: argv, options: { email: { type: "string" }, name: { type: "string" }, role: { type: "string", default: "merchant" }, org: { type: "string" }, locale: { type: "string" } } }));
  } catch (error) {
    refuse(`create-user: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const locale = cliLocale(argv, env);
  if (typeof locale !== "string") {
    refuse(`create-user: ${locale.error}\n${USAGE}`);
    return 2;
  }
  const view = cliReasons(locale);
  // Before the password is asked for: the first admin is often created before the first `npm start`.
  const config = readSettings(env);
  const schemaExit = await cliSchemaExitCode("create-user", config.DATABASE_URL, { apply: true, stderr: io.stderr });
  if (schemaExit !== undefined) return schemaExit;
  if (!values.email) {
    refuse(`create-user: --email is required\n${USAGE}`);
    return 2;
  }
  // The fields typed on the command line are checked before the password is asked for.
  const fields = newUserSchema.safeParse({ email: values.email, name: values.name ?? values.email, role: values.role, password: "" });
  const fieldIssues = fields.success ? [] : fields.error.issues.filter((issue) => issue.path[0] !== "password");
  if (fieldIssues.length > 0) {
    refuse(`create-user: ${fieldIssues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}\n${USAGE}`);
    return 2;
  }
  // The organization too: an unknown slug must not cost the person a password typed for nothing.
  const organization = values.org === undefined ? DEFAULT_ORGANIZATION : await withOwnDb(config, (database) => findOrganizationBySlug(database, values.org!));
  if (!organization) {
    refuse(`create-user: --org ${values.org}: no organization has this slug (npm run orgs -- list)`);
    return 2;
  }
  const password = await readPassword(env, io);
  if (password === null) {
    refuse("create-user: no password given (standard input ended before a line); set ACREDITA_NEW_PASSWORD or type it");
    return 2;
  }
  const parsed = newUserSchema.safeParse({ email: values.email, name: values.name ?? values.email, role: values.role, password });
  if (!parsed.success) {
    // A refused password's reason (params.reason) in the command's locale; zod's own words otherwise.
    const issues = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${view.render(issueReason(issue), issue.message)}`);
    refuse(`create-user: ${issues.join("; ")}`);
    return 2;
  }
  const result = await withOwnDb(config, (database) => createUserWithPassword(database, parsed.data, { organizationId: organization.id }));
  if (result.kind === "exists") {
    refuse(`create-user: ${parsed.data.email} already exists`);
    return 1;
  }
  writeLine(io.stdout, values.org === undefined ? `created ${result.user.email} (${result.user.role})` : `created ${result.user.email} (${result.user.role} in ${organization.slug})`);
  return 0;
}

if (require.main === module) runCli("create-user", main);
