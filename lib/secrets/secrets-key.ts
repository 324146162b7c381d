import { createHash } from "node:crypto";

/** The environment variable holding the keys that encrypt signing secrets at rest. */
export const SECRETS_KEY_ENV = "ACREDITA_SECRETS_KEY";

/** Bytes of an AES-256 key. */
export const SECRETS_KEY_BYTES = 32;

/** One key of {@link SECRETS_KEY_ENV}: its id (stored beside each ciphertext, safe to show) and its bytes (never shown). */
export interface SecretsKey {
  /** 8 hex characters of a SHA-256 of the key: names the key in a ciphertext, a refusal or the CLI's output. */
  id: string;
  key: Buffer;
}

/** Raised when {@link SECRETS_KEY_ENV} is malformed; names the variable and the position, never a value. */
export class SecretsKeyError extends Error {
  constructor(readonly issue: string) {
    super(issue);
    this.name = "SecretsKeyError";
  }
}

/**
 * The id of a key: the first 8 hex characters of SHA-256 over a fixed label and the key. It tells keys
 * apart in a ciphertext and in messages; 32 bits of a hash reveal nothing usable about 256 bits of key.
 */
export function secretsKeyId(key: Buffer): string {
  return createHash("sha256").update("acredita secrets key id\0").update(key).digest("hex").slice(0, 8);
}

/** A key as the operator writes it: standard base64 (padding optional) of exactly 32 bytes; undefined otherwise. */
function decodeKey(text: string): Buffer | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return undefined;
  const bytes = Buffer.from(text, "base64");
  if (bytes.length !== SECRETS_KEY_BYTES) return undefined;
  // Node's decoder skips what it cannot read: only a text that re-encodes to itself is a key.
  if (bytes.toString("base64").replace(/=+$/, "") !== text.replace(/=+$/, "")) return undefined;
  return bytes;
}

/**
 * Parses {@link SECRETS_KEY_ENV}: a comma-separated list of keys (whitespace around each ignored), each
 * 32 random bytes in base64 (`openssl rand -base64 32`). The first key encrypts new secrets; every key
 * listed decrypts, so a rotation lists the new key first and the old one after it until
 * `npm run secrets -- reencrypt` has moved every stored secret. Returns the keys in order, [] when the
 * variable is unset or blank. Throws {@link SecretsKeyError} naming the variable and the position of a
 * key that is not 32 bytes of base64, or listed twice.
 */
export function parseSecretsKeys(raw: string | undefined): SecretsKey[] {
  if (!raw?.trim()) return [];
  const keys: SecretsKey[] = [];
  const entries = raw.split(",").map((entry) => entry.trim());
  entries.forEach((entry, index) => {
    const position = entries.length === 1 ? "" : ` (key ${index + 1} of ${entries.length})`;
    const key = decodeKey(entry);
    if (!key) throw new SecretsKeyError(`${SECRETS_KEY_ENV}${position}: must be ${SECRETS_KEY_BYTES} random bytes in base64 (e.g. the output of \`openssl rand -base64 32\`)`);
    const id = secretsKeyId(key);
    if (keys.some((other) => other.id === id)) throw new SecretsKeyError(`${SECRETS_KEY_ENV}${position}: the same key is listed twice`);
    keys.push({ id, key });
  });
  return keys;
}

let parsed: { raw: string | undefined; keys: SecretsKey[] } | undefined;

/**
 * The process's keys from `env` ({@link parseSecretsKeys}), parsed once per distinct value. Throws
 * {@link SecretsKeyError} when the variable is malformed.
 */
export function secretsKeys(env: Record<string, string | undefined> = process.env): SecretsKey[] {
  const raw = env[SECRETS_KEY_ENV];
  const known = parsed;
  if (known && known.raw === raw) return known.keys;
  const keys = parseSecretsKeys(raw);
  parsed = { raw, keys };
  return keys;
}

/**
 * What is wrong with {@link SECRETS_KEY_ENV} in `env` on its own (a malformed key, a key listed twice),
 * as one issue naming the variable, or none. Every server, receiver and the secrets CLI check it at start.
 */
export function secretsKeyIssues(env: Record<string, string | undefined> = process.env): string[] {
  try {
    parseSecretsKeys(env[SECRETS_KEY_ENV]);
    return [];
  } catch (error) {
    if (error instanceof SecretsKeyError) return [error.message];
    throw error;
  }
}
