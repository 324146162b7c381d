import type { Db } from "@/lib/db/client";
import { secretContext } from "@/lib/endpoints/data-endpoints";
import { apiKeyContext } from "@/lib/endpoints/endpoint-store";
import { ciphertextKeyId, decryptSecret, encryptSecret, SecretDecryptError, SecretsKeyMissingError } from "@/lib/secrets/secret-box";
import { parseSecretsKeys, SECRETS_KEY_ENV, secretsKeyIssues, type SecretsKey } from "@/lib/secrets/secrets-key";

/**
 * One stored secret as these checks read it (never logged: the ciphertext is useless without a key, but
 * stays here): an endpoint's signing secret (`label` secret-N) or its provider API key (`label` api-key).
 */
interface StoredCiphertext {
  id: string;
  endpointId: string;
  label: string;
  ciphertext: string;
}

/** The label an API key goes by in these reports. */
const API_KEY_LABEL = "api-key";

const contextOf = (row: StoredCiphertext) => (row.label === API_KEY_LABEL ? apiKeyContext(row.endpointId) : secretContext(row.endpointId, row.label));

/** Stored secrets read per batch by {@link reencryptStoredSecrets}. */
const BATCH = 500;

/** Every stored secret, batch by batch: the signing secrets, then the endpoints' API keys. */
async function* storedCiphertexts(db: Db): AsyncGenerator<StoredCiphertext[]> {
  for (let after: string | undefined; ; ) {
    const rows = await db.endpointSecret.findMany({
      where: { ciphertext: { not: null }, ...(after ? { id: { gt: after } } : {}) },
      orderBy: { id: "asc" },
      take: BATCH,
      select: { id: true, endpointId: true, label: true, ciphertext: true },
    });
    if (rows.length > 0) yield rows as StoredCiphertext[];
    if (rows.length < BATCH) break;
    after = rows[rows.length - 1].id;
  }
  for (let after: string | undefined; ; ) {
    const rows = await db.endpoint.findMany({ where: { apiKeyCiphertext: { not: null }, ...(after ? { id: { gt: after } } : {}) }, orderBy: { id: "asc" }, take: BATCH, select: { id: true, apiKeyCiphertext: true } });
    if (rows.length > 0) yield rows.map((row) => ({ id: row.id, endpointId: row.id, label: API_KEY_LABEL, ciphertext: row.apiKeyCiphertext! }));
    if (rows.length < BATCH) break;
    after = rows[rows.length - 1].id;
  }
}

/**
 * Why a server or receiver must not start with these keys on this database: ACREDITA_SECRETS_KEY
 * malformed; or stored signing secrets exist and it is unset; or some are under a key it does not list;
 * or some do not decrypt under the listed key of their id (altered rows, or another key). Every stored
 * secret is decrypted once (microseconds each), in batches. One issue per problem, naming the variable,
 * the key ids and counts (never a key or a secret). Empty when the database holds no secret (a
 * deployment with only environment-configured endpoints needs no key). Throws database errors.
 */
export async function storedSecretsIssues(db: Db, env: Record<string, string | undefined> = process.env): Promise<string[]> {
  const malformedKey = secretsKeyIssues(env);
  if (malformedKey.length > 0) return malformedKey;
  const keys: SecretsKey[] = parseSecretsKeys(env[SECRETS_KEY_ENV]);
  let count = 0;
  const keyIds = new Set<string>();
  const unlisted = new Map<string, number>();
  const undecryptable = new Map<string, number>();
  let malformed = 0;
  for await (const batch of storedCiphertexts(db)) {
    count += batch.length;
    for (const row of batch) {
      const keyId = ciphertextKeyId(row.ciphertext);
      if (keyId === undefined) {
        malformed += 1;
        continue;
      }
      keyIds.add(keyId);
      if (keys.length === 0) continue;
      try {
        decryptSecret(row.ciphertext, contextOf(row), keys);
      } catch (error) {
        if (!(error instanceof SecretDecryptError)) throw error;
        const tally = error.failure === "unknown_key" ? unlisted : undecryptable;
        tally.set(keyId, (tally.get(keyId) ?? 0) + 1);
      }
    }
  }
  if (count === 0) return [];
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const are = (n: number) => (n === 1 ? "is" : "are");
  if (keys.length === 0) {
    return [`${SECRETS_KEY_ENV}: is not set, but the database holds ${plural(count, "endpoint secret")} encrypted under key ${[...keyIds].join(", ")}; set it to the key (or keys) they were encrypted with`];
  }
  const issues: string[] = [];
  const listed = keys.map((key) => key.id).join(", ");
  for (const [keyId, n] of unlisted) issues.push(`${SECRETS_KEY_ENV}: ${plural(n, "stored endpoint secret")} ${are(n)} encrypted under key ${keyId}, which it does not list (it lists ${listed}); add that key`);
  for (const [keyId, n] of undecryptable) issues.push(`${SECRETS_KEY_ENV}: its key ${keyId} does not decrypt ${plural(n, "stored endpoint secret")} of that id (altered rows, or another key that shares the id)`);
  if (malformed > 0) issues.push(`${SECRETS_KEY_ENV}: ${plural(malformed, "stored endpoint secret")} ${are(malformed)} not in a format this version reads`);
  return issues;
}

/** What `npm run secrets -- reencrypt` did. */
export interface ReencryptReport {
  /** Stored secrets read (erased ones are not counted). */
  total: number;
  /** Re-encrypted under the first key. */
  reencrypted: number;
  /** Already under the first key (or changed by a concurrent rotation or deletion): left as they were. */
  unchanged: number;
  /** Not decryptable with any listed key: left as they were (each named in `failures` by endpoint and label). */
  failed: number;
  failures: { endpointId: string; label: string; reason: string }[];
  /** The key every secret is now encrypted under, when none failed. */
  keyId: string;
}

/**
 * Re-encrypts every stored endpoint secret (signing secrets and API keys) under the FIRST key of `keys` (the second step of a key
 * rotation: list the new key first and the old after it, run this, then drop the old one). A secret
 * already under the first key is left alone; one no listed key decrypts is left alone and reported.
 * Each row is written only if it still holds the ciphertext read (a concurrent rotation wins). The
 * plaintext never leaves this function. Cached copies need no invalidation: the values do not change.
 * Returns the counts. Throws {@link SecretsKeyMissingError} when `keys` is empty, and database errors.
 */
export async function reencryptStoredSecrets(db: Db, keys: readonly SecretsKey[]): Promise<ReencryptReport> {
  const first = keys[0];
  if (!first) throw new SecretsKeyMissingError();
  const report: ReencryptReport = { total: 0, reencrypted: 0, unchanged: 0, failed: 0, failures: [], keyId: first.id };
  for await (const batch of storedCiphertexts(db)) {
    for (const row of batch) {
      report.total += 1;
      if (ciphertextKeyId(row.ciphertext) === first.id) {
        report.unchanged += 1;
        continue;
      }
      const context = contextOf(row);
      let value: string;
      try {
        value = decryptSecret(row.ciphertext, context, keys);
      } catch (error) {
        if (!(error instanceof SecretDecryptError)) throw error;
        report.failed += 1;
        report.failures.push({ endpointId: row.endpointId, label: row.label, reason: error.message });
        continue;
      }
      const ciphertext = encryptSecret(value, context, keys);
      const { count } =
        row.label === API_KEY_LABEL
          ? await db.endpoint.updateMany({ where: { id: row.id, apiKeyCiphertext: row.ciphertext }, data: { apiKeyCiphertext: ciphertext } })
          : await db.endpointSecret.updateMany({ where: { id: row.id, ciphertext: row.ciphertext }, data: { ciphertext } });
      if (count === 1) report.reencrypted += 1;
      else report.unchanged += 1;
    }
  }
  return report;
}
