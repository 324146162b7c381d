import { because } from "@/lib/reasons/reason-codes";
import { diagnoseSignatureMismatch, diagnosisFields } from "@/lib/providers/signatures/diagnose-signature";
import { withinTimestampWindow } from "@/lib/providers/signatures/timestamp-window";
import { constantTimeEqual, decodeBase64, hmacSha256 } from "@/lib/providers/signatures/hmac";
import type { SigningSecret, VerificationKeys, VerifyResult } from "@/lib/providers/types";

/** Standard Webhooks header names (the spec writes them in lower case; lookups are case-insensitive). */
export const STANDARD_WEBHOOKS_HEADERS = {
  id: "webhook-id",
  timestamp: "webhook-timestamp",
  signature: "webhook-signature",
} as const;

const SECRET_PREFIX = "whsec_";

/**
 * Decodes a Standard Webhooks secret into its key bytes: `whsec_<base64>` (the prefix is optional, as in
 * the reference library). Returns undefined when the rest is not base64 or decodes to nothing.
 */
export function decodeStandardWebhooksSecret(secret: string): Buffer | undefined {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = decodeBase64(encoded);
  return key && key.length > 0 ? key : undefined;
}

function keyOf(secret: string): Buffer {
  // A secret that is not base64 cannot have signed anything: an empty key never matches a real signature.
  return decodeStandardWebhooksSecret(secret) ?? Buffer.alloc(0);
}

/** The raw MAC of a Standard Webhooks message: HMAC-SHA256(key, `<id>.<timestamp>.<body>`). */
export function standardWebhooksMac(secret: string, id: string, timestamp: string, body: Buffer | string): Buffer {
  return hmacSha256(keyOf(secret), `${id}.${timestamp}.`, body);
}

/** Signs like a Standard Webhooks sender; returns the `webhook-signature` value `v1,<base64>`. */
export function signStandardWebhooks(secret: string, id: string, timestamp: number, body: Buffer | string): string {
  return `v1,${standardWebhooksMac(secret, id, String(timestamp), body).toString("base64")}`;
}

/** Extracts the v1 signatures of a `webhook-signature` header (`v1,<b64> v1,<b64>`); other versions (v1a, ...) are ignored. */
export function parseStandardWebhooksSignatures(header: string): string[] {
  return header
    .split(" ")
    .map((part) => part.trim())
    .filter((part) => part.startsWith("v1,"))
    .map((part) => part.slice(3));
}

/**
 * Verifies a Standard Webhooks delivery over its raw bytes: `webhook-signature` holds space-separated
 * `v1,<base64 HMAC-SHA256>` values over `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the
 * base64-decoded `whsec_` secret; accepted when ANY v1 matches ANY active secret (constant time), then the
 * timestamp must lie within `keys.toleranceSeconds` (300 s in the spec) on either side of `now`.
 * Source: the Standard Webhooks specification (standardwebhooks.com). Returns 401 with a reason (and a
 * diagnosis when one is found safely) for missing headers, no v1 signature, a wrong signature or a
 * timestamp outside the window.
 */
export function verifyStandardWebhooks(headers: Headers, body: Buffer, keys: VerificationKeys, now: Date): VerifyResult {
  const id = headers.get(STANDARD_WEBHOOKS_HEADERS.id)?.trim();
  const timestamp = headers.get(STANDARD_WEBHOOKS_HEADERS.timestamp)?.trim();
  const header = headers.get(STANDARD_WEBHOOKS_HEADERS.signature)?.trim();
  for (const [name, value] of [["webhook-id", id], ["webhook-timestamp", timestamp], ["webhook-signature", header]] as const) {
    if (!value) return { ok: false, status: 401, ...because("signature_missing", { header: name }) };
  }
  if (!/^\d{1,12}$/.test(timestamp!)) return { ok: false, status: 401, ...because("standard_timestamp_not_number", {}) };
  const sent = parseStandardWebhooksSignatures(header!);
  if (sent.length === 0) return { ok: false, status: 401, ...because("signature_malformed_standard", {}) };
  const candidates = sent.map(decodeBase64).filter((value): value is Buffer => value !== undefined && value.length === 32);
  let matched: SigningSecret | undefined;
  for (const secret of keys.secrets) {
    const expected = standardWebhooksMac(secret.value, id!, timestamp!, body);
    let any = false;
    for (const candidate of candidates) any = constantTimeEqual(expected, candidate) || any;
    if (any && !matched) matched = secret;
  }
  if (!matched) {
    const diagnosis = diagnoseSignatureMismatch({
      scheme: { encoding: "base64", mac: (secret, signedBody) => standardWebhooksMac(secret, id!, timestamp!, signedBody) },
      body,
      sent,
      secrets: keys.secrets,
      retiredSecrets: keys.retiredSecrets,
    });
    return { ok: false, status: 401, ...because("signature_mismatch", {}), ...diagnosisFields(diagnosis) };
  }
  return withinTimestampWindow(matched, timestamp!, keys.toleranceSeconds, now);
}
