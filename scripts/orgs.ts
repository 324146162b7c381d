// npm run orgs -- create --slug <slug> --name <name> | list
// create: makes an organization and prints {"id","slug","name"} as JSON on one line. list: prints every
// organization, oldest first, one JSON object {"id","slug","name"} per line (JSON lines).
// Exit: 0 done, 1 the slug is taken, 2 bad usage or a refused field (a bad slug), or the schema step's status.
// Log lines to stderr: this command's stdout is its output. First import, before anything loads the logger.
import "@/lib/log/cli-logs-to-stderr";
import "@/lib/config/env-files";
import { parseArgs } from "node:util";
import { writeLine, type CliEnv, type CliIo } from "@/lib/background/cli-io";
import { runCli } from "@/lib/background/run-cli";
import { readSettings } from "@/lib/config/settings";
import { cliSchemaExitCode } from "@/lib/db/cli-schema";
import { withOwnDb } from "@/lib/db/client";
import { createOrganization, listOrganizations, newOrganizationSchema } from "@/lib/organizations/organizations";

const USAGE = "usage: npm run orgs -- create --slug <slug> --name <name> | list";

/** The audit actor of an organization made on the command line: the operator, who runs it on the server. */
const CLI_ACTOR = { id: "cli:orgs", email: "operator (npm run orgs)" };

/**
 * `npm run orgs`: takes the arguments after the script (`create --slug <slug> --name <name>` or `list`),
 * the environment (DATABASE_URL and the other settings) and the streams; resolves with the exit status:
 * 0 done, 1 the slug is taken (one line naming it), 2 bad usage or a refused field (one line: the slug
 * rule `[a-z0-9-]{2,40}`, a missing name), or the schema step's status. Prints JSON on stdout.
 */
export async function main(argv: string[], env: CliEnv, io: CliIo): Promise<number> {
  const refuse = (line: string, code = 2) => {
    writeLine(io.stderr, line);
    return code;
  };
  const [command, ...rest] = argv;
  if (command !== "create" && command !== "list") return refuse(USAGE);
  let values: { slug?: string; name?: string };
  try {
    ({ values } = parseArgs({ args: rest, options: { slug: { type: "string" }, name: { type: "string" } } }));
  } catch (error) {
    return refuse(`orgs: ${(error as Error).message}\n${USAGE}`);
  }
  if (command === "list" && (values.slug !== undefined || values.name !== undefined)) return refuse(USAGE);
  let input: { slug: string; name: string } | undefined;
  if (command === "create") {
    if (values.slug === undefined || values.name === undefined) return refuse(`orgs: create needs --slug and --name\n${USAGE}`);
    const parsed = newOrganizationSchema.safeParse({ slug: values.slug, name: values.name });
    if (!parsed.success) return refuse(`orgs: ${parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`);
    input = parsed.data;
  }
  const config = readSettings(env);
  const schemaExit = await cliSchemaExitCode("orgs", config.DATABASE_URL, { apply: true, stderr: io.stderr });
  if (schemaExit !== undefined) return schemaExit;
  if (!input) {
    for (const organization of await withOwnDb(config, listOrganizations)) writeLine(io.stdout, JSON.stringify(organization));
    return 0;
  }
  const created = input;
  const result = await withOwnDb(config, (database) => createOrganization(database, created, CLI_ACTOR));
  if (result.kind === "taken") return refuse(`orgs: slug ${created.slug} is taken by another organization`, 1);
  writeLine(io.stdout, JSON.stringify(result.organization));
  return 0;
}

if (require.main === module) runCli("orgs", main);
