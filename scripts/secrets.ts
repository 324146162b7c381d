// npm run secrets -- reencrypt | check
// reencrypt: re-encrypts every stored endpoint signing secret under the FIRST key of ACREDITA_SECRETS_KEY
// (a key rotation: list the new key first and the old one after it, run this, then drop the old one) and
// prints the counts as JSON. check: prints what a start would refuse (no key, a key that decrypts nothing).
// Exit: 0 done, 1 some secrets could not be decrypted (or check found issues), 2 bad usage or no key.
// Log lines to stderr: this command's stdout is its output. First import, before anything loads the logger.
import "@/lib/log/cli-logs-to-stderr";
import "@/lib/config/env-files";
import { runCli } from "@/lib/background/run-cli";
import { cliSchemaExitCode } from "@/lib/db/cli-schema";
import { db } from "@/lib/db/client";
import { SecretsKeyMissingError } from "@/lib/secrets/secret-box";
import { SecretsKeyError, secretsKeys } from "@/lib/secrets/secrets-key";
import { reencryptStoredSecrets, storedSecretsIssues } from "@/lib/endpoints/stored-secrets";

const USAGE = "usage: npm run secrets -- reencrypt | check";

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if ((command !== "reencrypt" && command !== "check") || rest.length > 0) {
    console.error(USAGE);
    return 2;
  }
  let keys;
  try {
    keys = secretsKeys();
  } catch (error) {
    if (!(error instanceof SecretsKeyError)) throw error;
    console.error(`secrets: ${error.message}`);
    return 2;
  }
  const schemaExit = await cliSchemaExitCode("secrets", { apply: true });
  if (schemaExit !== undefined) return schemaExit;
  if (command === "check") {
    const issues = await storedSecretsIssues(await db());
    console.log(JSON.stringify({ ok: issues.length === 0, keys: keys.map((key) => key.id), issues }, null, 2));
    return issues.length === 0 ? 0 : 1;
  }
  if (keys.length === 0) {
    console.error(`secrets: ${new SecretsKeyMissingError().message}`);
    return 2;
  }
  const report = await reencryptStoredSecrets(await db(), keys);
  console.log(JSON.stringify(report, null, 2));
  return report.failed === 0 ? 0 : 1;
}

runCli("secrets", () => main(process.argv.slice(2)));
