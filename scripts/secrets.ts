// npm run secrets -- reencrypt | check
// reencrypt: re-encrypts every stored endpoint secret (signing secrets and API keys) under the FIRST key of ACREDITA_SECRETS_KEY
// (a key rotation: list the new key first and the old one after it, run this, then drop the old one) and
// prints the counts as JSON. check: prints what a start would refuse (no key, a key that decrypts nothing).
// Exit: 0 done, 1 some secrets could not be decrypted (or check found issues), 2 bad usage or no key.
// Log lines to stderr: this command's stdout is its output. First import, before anything loads the logger.
import "@/lib/log/cli-logs-to-stderr";
import "@/lib/config/env-files";
import { writeLine, type CliEnv, type CliIo } from "@/lib/background/cli-io";
import { runCli } from "@/lib/background/run-cli";
import { readSettings } from "@/lib/config/settings";
import { cliSchemaExitCode } from "@/lib/db/cli-schema";
import { withOwnDb } from "@/lib/db/client";
import { reencryptStoredSecrets, storedSecretsIssues } from "@/lib/endpoints/stored-secrets";
import { SecretsKeyMissingError } from "@/lib/secrets/secret-box";
import { parseSecretsKeys, SECRETS_KEY_ENV, SecretsKeyError, type SecretsKey } from "@/lib/secrets/secrets-key";

const USAGE = "usage: npm run secrets -- reencrypt | check";

/**
 * `npm run secrets`: takes the arguments after the script (`reencrypt` or `check`), the environment
 * (ACREDITA_SECRETS_KEY, DATABASE_URL and the other settings) and the streams; resolves with the exit
 * status: 0 done (check: nothing to refuse), 1 some stored secrets could not be decrypted (each named by
 * endpoint and label in the JSON), 2 bad usage, a malformed key, or reencrypt without a key; or the schema
 * step's status. Prints JSON on stdout; never a key or a secret.
 */
export async function main(argv: string[], env: CliEnv, io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if ((command !== "reencrypt" && command !== "check") || rest.length > 0) {
    writeLine(io.stderr, USAGE);
    return 2;
  }
  let keys: SecretsKey[];
  try {
    keys = parseSecretsKeys(env[SECRETS_KEY_ENV]);
  } catch (error) {
    if (!(error instanceof SecretsKeyError)) throw error;
    writeLine(io.stderr, `secrets: ${error.message}`);
    return 2;
  }
  if (command === "reencrypt" && keys.length === 0) {
    writeLine(io.stderr, `secrets: ${new SecretsKeyMissingError().message}`);
    return 2;
  }
  const config = readSettings(env);
  const schemaExit = await cliSchemaExitCode("secrets", config.DATABASE_URL, { apply: true, stderr: io.stderr });
  if (schemaExit !== undefined) return schemaExit;
  if (command === "check") {
    const issues = await withOwnDb(config, (database) => storedSecretsIssues(database, env));
    writeLine(io.stdout, JSON.stringify({ ok: issues.length === 0, keys: keys.map((key) => key.id), issues }, null, 2));
    return issues.length === 0 ? 0 : 1;
  }
  const report = await withOwnDb(config, (database) => reencryptStoredSecrets(database, keys));
  writeLine(io.stdout, JSON.stringify(report, null, 2));
  return report.failed === 0 ? 0 : 1;
}

if (require.main === module) runCli("secrets", main);
