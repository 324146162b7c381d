// npm run endpoints -- create --org <slug> --provider <stripe|yolfi|standard-webhooks|lab> --account <id> [--mode live|test] [--processing-mode inline|inbox] [--secret-stdin] | list [--org <slug>]
// create: makes an endpoint stored as data in the organization (as POST /api/endpoints does for the
// operator) and prints its JSON on one line: {id, url, provider, account, livemode, processingMode,
// status, secrets, secret?}. Stripe and Yolfi need the provider's signing secret, read from standard
// input with --secret-stdin (never from the command line, which other users of the machine can read);
// for Standard Webhooks and the lab Acredita makes one, printed in this answer only. list: the
// organization's endpoints, one JSON object per line, never a secret.
// Exit: 0 done, 1 refused (the account belongs to another organization, or ACREDITA_SECRETS_KEY is
// missing), 2 bad usage, an unknown organization or a refused field, or the schema step's status.
// Log lines to stderr: this command's stdout is its output. First import, before anything loads the logger.
import "@/lib/log/cli-logs-to-stderr";
import "@/lib/config/env-files";
import { parseArgs } from "node:util";
import { writeLine, type CliEnv, type CliIo } from "@/lib/background/cli-io";
import { runCli } from "@/lib/background/run-cli";
import { readSettings } from "@/lib/config/settings";
import { cliSchemaExitCode } from "@/lib/db/cli-schema";
import { withOwnDb } from "@/lib/db/client";
import { createEndpoint, listEndpoints, newEndpointSchema, type EndpointActor } from "@/lib/endpoints/endpoint-store";
import { findOrganizationBySlug } from "@/lib/organizations/organizations";

const USAGE =
  "usage: npm run endpoints -- create --org <slug> --provider <stripe|yolfi|standard-webhooks|lab> --account <id> [--mode live|test] [--processing-mode inline|inbox] [--secret-stdin] | list [--org <slug>]";

/** The audit actor of an endpoint made on the command line: the operator, who runs it on the server. */
const CLI_ACTOR: EndpointActor = { id: "cli:endpoints", email: "operator (npm run endpoints)", operator: true };

/** All of standard input as text, trimmed (a secret piped in: `printf %s "$SECRET" | npm run endpoints -- create ... --secret-stdin`). */
async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks).toString("utf8").trim();
}

/**
 * `npm run endpoints`: takes the arguments after the script, the environment (DATABASE_URL,
 * ACREDITA_SECRETS_KEY and the other settings) and the streams (standard input holds the secret with
 * `--secret-stdin`); resolves with the exit status: 0 done, 1 refused (409 account_taken, or no secrets
 * key: one line saying why), 2 bad usage, an unknown organization or a refused field (one line naming
 * it), or the schema step's status. Prints JSON on stdout; the secret only when Acredita made it.
 */
export async function main(argv: string[], env: CliEnv, io: CliIo): Promise<number> {
  const refuse = (line: string, code = 2) => {
    writeLine(io.stderr, line);
    return code;
  };
  const [command, ...rest] = argv;
  if (command !== "create" && command !== "list") return refuse(USAGE);
  let values: { org?: string; provider?: string; account?: string; mode?: string; "processing-mode"?: string; "secret-stdin"?: boolean };
  try {
    ({ values } = parseArgs({
      args: rest,
      options: { org: { type: "string" }, provider: { type: "string" }, account: { type: "string" }, mode: { type: "string" }, "processing-mode": { type: "string" }, "secret-stdin": { type: "boolean" } },
    }));
  } catch (error) {
    return refuse(`endpoints: ${(error as Error).message}\n${USAGE}`);
  }
  const slug = values.org ?? "default";
  let input: ReturnType<typeof newEndpointSchema.parse> | undefined;
  if (command === "create") {
    if (values.provider === undefined || values.account === undefined) return refuse(`endpoints: create needs --provider and --account\n${USAGE}`);
    if (values.mode !== undefined && values.mode !== "live" && values.mode !== "test") return refuse(`endpoints: --mode ${values.mode}: live or test`);
    let secret: string | undefined;
    if (values["secret-stdin"]) {
      if (!io.stdin) return refuse("endpoints: --secret-stdin: nothing to read (pipe the secret in)");
      secret = await readAll(io.stdin);
      if (!secret) return refuse("endpoints: --secret-stdin: standard input was empty");
    }
    const parsed = newEndpointSchema.safeParse({
      provider: values.provider,
      account: values.account,
      livemode: values.mode !== "test",
      ...(values["processing-mode"] !== undefined ? { processingMode: values["processing-mode"] } : {}),
      ...(secret !== undefined ? { secret } : {}),
    });
    // A refusal names the field and the rule, never the value (it may be the secret).
    if (!parsed.success) return refuse(`endpoints: ${parsed.error.issues.map((issue) => `${issue.path.join(".") || "input"}: ${issue.message}`).join("; ")}`);
    input = parsed.data;
  } else if (values.provider !== undefined || values.account !== undefined || values.mode !== undefined || values["processing-mode"] !== undefined || values["secret-stdin"] !== undefined) {
    return refuse(USAGE);
  }
  const config = readSettings(env);
  const schemaExit = await cliSchemaExitCode("endpoints", config.DATABASE_URL, { apply: true, stderr: io.stderr });
  if (schemaExit !== undefined) return schemaExit;
  return withOwnDb(config, async (database) => {
    const organization = await findOrganizationBySlug(database, slug);
    if (!organization) return refuse(`endpoints: --org ${slug}: no organization has this slug (npm run orgs -- list)`);
    if (!input) {
      for (const endpoint of (await listEndpoints(database, { organizationId: organization.id })).data) writeLine(io.stdout, JSON.stringify(endpoint));
      return 0;
    }
    const result = await createEndpoint(database, input, CLI_ACTOR, { organizationId: organization.id });
    if (result.kind === "created") {
      writeLine(io.stdout, JSON.stringify({ ...result.endpoint, ...(result.secret ? { secret: result.secret } : {}) }));
      return 0;
    }
    return refuse(`endpoints: ${result.message}`, result.kind === "conflict" || result.kind === "secrets_key" ? 1 : 2);
  });
}

if (require.main === module) runCli("endpoints", main);
