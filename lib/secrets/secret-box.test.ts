import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, test } from "node:test";
import { ciphertextKeyId, decryptSecret, encryptSecret, SecretDecryptError, SecretsKeyMissingError } from "@/lib/secrets/secret-box";
import { parseSecretsKeys, SecretsKeyError, secretsKeyId } from "@/lib/secrets/secrets-key";

const KEY_A = Buffer.alloc(32, 0xa1).toString("base64");
const KEY_B = Buffer.alloc(32, 0xb2).toString("base64");
const SECRET = "whsec_known_secret_value_0001";
const CONTEXT = "endpoint:ep_abcdefghijklmnopqrst:secret-1";

function failureOf(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    if (error instanceof SecretDecryptError) return `${error.failure}:${error.keyId ?? "-"}`;
    throw error;
  }
  return "decrypted";
}

describe("ACREDITA_SECRETS_KEY", () => {
  test("a list of base64 keys, whitespace around each ignored; unset or blank is no key", () => {
    const keys = parseSecretsKeys(` ${KEY_A} ,\n${KEY_B}`);
    assert.deepEqual(
      keys.map((key) => [key.id, key.key.length]),
      [
        [secretsKeyId(Buffer.alloc(32, 0xa1)), 32],
        [secretsKeyId(Buffer.alloc(32, 0xb2)), 32],
      ],
    );
    assert.match(keys[0].id, /^[0-9a-f]{8}$/);
    assert.notEqual(keys[0].id, keys[1].id);
    assert.deepEqual(parseSecretsKeys(undefined), []);
    assert.deepEqual(parseSecretsKeys("  "), []);
    // Padding is optional.
    assert.equal(parseSecretsKeys(KEY_A.replace(/=+$/, ""))[0].id, keys[0].id);
  });

  test("a key that is not 32 bytes of base64, or listed twice, is refused naming the variable and the position, never the value", () => {
    const refusal = (raw: string) => {
      try {
        parseSecretsKeys(raw);
      } catch (error) {
        assert.ok(error instanceof SecretsKeyError);
        return error.message;
      }
      return "accepted";
    };
    const short = randomBytes(16).toString("base64");
    assert.equal(refusal(short), "ACREDITA_SECRETS_KEY: must be 32 random bytes in base64 (e.g. the output of `openssl rand -base64 32`)");
    assert.equal(refusal(`${KEY_A},${short}`), "ACREDITA_SECRETS_KEY (key 2 of 2): must be 32 random bytes in base64 (e.g. the output of `openssl rand -base64 32`)");
    assert.equal(refusal(`${KEY_A},${KEY_A}`), "ACREDITA_SECRETS_KEY (key 2 of 2): the same key is listed twice");
    // Hex of 32 bytes is 64 characters of valid-looking base64 that decodes to 48 bytes: refused, not truncated.
    assert.equal(refusal(randomBytes(32).toString("hex")), "ACREDITA_SECRETS_KEY: must be 32 random bytes in base64 (e.g. the output of `openssl rand -base64 32`)");
    assert.equal(refusal(`${KEY_A.slice(0, 10)}!${KEY_A.slice(11)}`), "ACREDITA_SECRETS_KEY: must be 32 random bytes in base64 (e.g. the output of `openssl rand -base64 32`)");
    assert.equal(refusal(`${KEY_A},`), "ACREDITA_SECRETS_KEY (key 2 of 2): must be 32 random bytes in base64 (e.g. the output of `openssl rand -base64 32`)");
    assert.ok(!refusal(short).includes(short));
  });
});

describe("AES-256-GCM secret box", () => {
  const [a] = parseSecretsKeys(KEY_A);
  const [b] = parseSecretsKeys(KEY_B);

  test("round trip; the stored text is versioned, names the key, and holds no trace of the secret", () => {
    const stored = encryptSecret(SECRET, CONTEXT, [a]);
    assert.match(stored, /^acs1:[0-9a-f]{8}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]{22}:[A-Za-z0-9_-]+$/);
    assert.equal(ciphertextKeyId(stored), a.id);
    assert.equal(decryptSecret(stored, CONTEXT, [a]), SECRET);
    for (const trace of [SECRET, Buffer.from(SECRET).toString("base64"), Buffer.from(SECRET).toString("base64url"), Buffer.from(SECRET).toString("hex"), "known_secret"]) assert.equal(stored.includes(trace), false, trace);
    // A fresh IV each time: the same secret never gives the same text twice.
    assert.notEqual(encryptSecret(SECRET, CONTEXT, [a]), stored);
  });

  test("any changed byte of the IV, tag or ciphertext is refused as tampered", () => {
    const stored = encryptSecret(SECRET, CONTEXT, [a]);
    const parts = stored.split(":");
    for (const index of [2, 3, 4]) {
      const bytes = Buffer.from(parts[index], "base64url");
      bytes[bytes.length - 1] ^= 0x01;
      const changed = [...parts];
      changed[index] = bytes.toString("base64url");
      assert.equal(failureOf(() => decryptSecret(changed.join(":"), CONTEXT, [a])), `tampered:${a.id}`, `part ${index}`);
    }
    // A ciphertext moved to another endpoint's row (another context) does not decrypt there.
    assert.equal(failureOf(() => decryptSecret(stored, "endpoint:ep_otherendpoint000000:secret-1", [a])), `tampered:${a.id}`);
    assert.equal(failureOf(() => decryptSecret(stored, "endpoint:ep_abcdefghijklmnopqrst:secret-2", [a])), `tampered:${a.id}`);
  });

  test("a wrong key is refused: unknown when no listed key has its id, tampered when the id is forged onto another key", () => {
    const stored = encryptSecret(SECRET, CONTEXT, [a]);
    assert.equal(failureOf(() => decryptSecret(stored, CONTEXT, [b])), `unknown_key:${a.id}`);
    assert.equal(failureOf(() => decryptSecret(stored, CONTEXT, [])), `unknown_key:${a.id}`);
    const forged = { id: a.id, key: b.key };
    assert.equal(failureOf(() => decryptSecret(stored, CONTEXT, [forged])), `tampered:${a.id}`);
  });

  test("malformed text (another version, a part missing, a short IV) is refused as malformed", () => {
    const stored = encryptSecret(SECRET, CONTEXT, [a]);
    const parts = stored.split(":");
    for (const text of [stored.replace("acs1", "acs2"), parts.slice(0, 4).join(":"), [...parts.slice(0, 2), "AAAA", ...parts.slice(3)].join(":"), SECRET, ""]) {
      assert.equal(failureOf(() => decryptSecret(text, CONTEXT, [a])), "malformed:-", text.slice(0, 20));
      assert.equal(ciphertextKeyId(text), undefined);
    }
  });

  test("key rotation: the first key encrypts, every listed key decrypts; after dropping the old key its ciphertexts are unknown", () => {
    const underA = encryptSecret(SECRET, CONTEXT, [a]);
    const rotating = [b, a];
    assert.equal(decryptSecret(underA, CONTEXT, rotating), SECRET);
    const underB = encryptSecret(SECRET, CONTEXT, rotating);
    assert.equal(ciphertextKeyId(underB), b.id);
    assert.equal(decryptSecret(underB, CONTEXT, rotating), SECRET);
    assert.equal(decryptSecret(underB, CONTEXT, [b]), SECRET);
    assert.equal(failureOf(() => decryptSecret(underA, CONTEXT, [b])), `unknown_key:${a.id}`);
  });

  test("no key: encrypting is refused with the variable named and how to set it", () => {
    assert.throws(() => encryptSecret(SECRET, CONTEXT, []), (error: unknown) => {
      assert.ok(error instanceof SecretsKeyMissingError);
      assert.equal(error.message, "ACREDITA_SECRETS_KEY is not set: signing secrets are stored encrypted under it. Set it to 32 random bytes in base64 (openssl rand -base64 32) on every server, receiver and worker, then retry");
      return true;
    });
  });

  test("error messages never carry the secret or a key", () => {
    const stored = encryptSecret(SECRET, CONTEXT, [a]);
    for (const keys of [[b], [{ id: a.id, key: b.key }]]) {
      try {
        decryptSecret(stored, CONTEXT, keys);
        assert.fail("decrypted");
      } catch (error) {
        const message = (error as Error).message;
        for (const trace of [SECRET, KEY_A, KEY_B]) assert.equal(message.includes(trace), false);
      }
    }
  });
});
