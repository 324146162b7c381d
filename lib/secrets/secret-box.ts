import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { SECRETS_KEY_ENV, type SecretsKey } from "@/lib/secrets/secrets-key";

/**
 * The version tag of the stored format: `acs1:<key id>:<iv>:<tag>:<ciphertext>` (the last three
 * base64url). AES-256-GCM with a random 96-bit IV per encryption (NIST SP 800-38D, 8.2.2: with random
 * IVs one key stays within the 2^32 encryptions limit far beyond any number of endpoints), a 128-bit tag,
 * and the secret's place (its endpoint and label) as additional authenticated data, so a ciphertext
 * copied onto another row does not decrypt there.
 */
export const CIPHERTEXT_VERSION = "acs1";

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Why a stored secret could not be decrypted. */
export type DecryptFailure = "malformed" | "unknown_key" | "tampered";

/** Raised by {@link decryptSecret}; its message names the key id and the variable, never a value. */
export class SecretDecryptError extends Error {
  constructor(
    readonly failure: DecryptFailure,
    readonly keyId: string | undefined,
  ) {
    super(
      failure === "malformed"
        ? "a stored secret is not in a format this version reads"
        : failure === "unknown_key"
          ? `a stored secret was encrypted under key ${keyId}, which ${SECRETS_KEY_ENV} does not list`
          : `a stored secret does not decrypt under key ${keyId}: it was altered, moved to another row, or that key is not the one it was encrypted with`,
    );
    this.name = "SecretDecryptError";
  }
}

/** Raised when a secret must be encrypted and {@link SECRETS_KEY_ENV} holds no key. */
export class SecretsKeyMissingError extends Error {
  readonly code = "secrets_key_missing";
  constructor() {
    super(`${SECRETS_KEY_ENV} is not set: signing secrets are stored encrypted under it. Set it to 32 random bytes in base64 (openssl rand -base64 32) on every server, receiver and worker, then retry`);
    this.name = "SecretsKeyMissingError";
  }
}

const additionalData = (context: string) => Buffer.from(`acredita secret\0${context}`, "utf8");

/**
 * Encrypts `plaintext` (a signing secret, UTF-8) under the FIRST of `keys`, bound to `context` (e.g.
 * `endpoint:<id>:<label>`: decrypting needs the same context). Returns the stored text
 * (`acs1:<key id>:<iv>:<tag>:<ciphertext>`, about 1.4 × the secret plus 45 characters). Throws
 * {@link SecretsKeyMissingError} when `keys` is empty.
 */
export function encryptSecret(plaintext: string, context: string, keys: readonly SecretsKey[]): string {
  const key = keys[0];
  if (!key) throw new SecretsKeyMissingError();
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key.key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(additionalData(context));
  const sealed = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return [CIPHERTEXT_VERSION, key.id, iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), sealed.toString("base64url")].join(":");
}

/** The parts of a stored ciphertext, or undefined when it is not in the {@link CIPHERTEXT_VERSION} format. */
function partsOf(stored: string): { keyId: string; iv: Buffer; tag: Buffer; sealed: Buffer } | undefined {
  const parts = stored.split(":");
  if (parts.length !== 5 || parts[0] !== CIPHERTEXT_VERSION || !/^[0-9a-f]{8}$/.test(parts[1])) return undefined;
  if (!parts.slice(2).every((part) => /^[A-Za-z0-9_-]*$/.test(part))) return undefined;
  const [iv, tag, sealed] = parts.slice(2).map((part) => Buffer.from(part, "base64url"));
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) return undefined;
  return { keyId: parts[1], iv, tag, sealed };
}

/** The id of the key a stored ciphertext names, or undefined when it is not in the stored format. */
export function ciphertextKeyId(stored: string): string | undefined {
  return partsOf(stored)?.keyId;
}

/**
 * Decrypts a ciphertext written by {@link encryptSecret} with whichever of `keys` it names, under the
 * same `context`. Returns the secret. Throws {@link SecretDecryptError}: `malformed` (not this format),
 * `unknown_key` (no listed key has its id) or `tampered` (the tag does not verify: changed bytes, another
 * row's context, or a different key that happens to share the id).
 */
export function decryptSecret(stored: string, context: string, keys: readonly SecretsKey[]): string {
  const parts = partsOf(stored);
  if (!parts) throw new SecretDecryptError("malformed", undefined);
  const key = keys.find((candidate) => candidate.id === parts.keyId);
  if (!key) throw new SecretDecryptError("unknown_key", parts.keyId);
  try {
    const decipher = createDecipheriv("aes-256-gcm", key.key, parts.iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(additionalData(context));
    decipher.setAuthTag(parts.tag);
    return Buffer.concat([decipher.update(parts.sealed), decipher.final()]).toString("utf8");
  } catch {
    throw new SecretDecryptError("tampered", parts.keyId);
  }
}
