import { because } from "@/lib/reasons/reason-codes";
import { diagnoseSignatureMismatch, diagnosisFields } from "@/lib/providers/signatures/diagnose-signature";
import { constantTimeEqual, decodeBase64, hmacSha256 } from "@/lib/providers/signatures/hmac";
import type { SigningSecret, VerificationKeys, VerifyResult } from "@/lib/providers/types";

/** Signs a raw body as Yolfi does: base64 of HMAC-SHA256(secret as UTF-8 text, body). */
export function signBodyBase64(secret: string, body: Buffer | string): string {
  return hmacSha256(secret, body).toString("base64");
}

/**
 * Verifies a header holding the base64 HMAC-SHA256 of the raw body alone (Yolfi's X-Yolfi-Signature),
 * in constant time against every active secret. No timestamp is signed, so this check cannot tell a
 * replay from a first delivery: replay protection is the stored event id alone. Returns 401 with a
 * reason (and a safe diagnosis when one is found) for a missing, malformed or wrong signature.
 */
export function verifyBodyHmacBase64(headerName: string, header: string | null, body: Buffer, keys: VerificationKeys): VerifyResult {
  const sent = header?.trim();
  if (!sent) return { ok: false, status: 401, ...because("signature_missing", { header: headerName }) };
  const candidate = decodeBase64(sent);
  let matched: SigningSecret | undefined;
  for (const secret of keys.secrets) {
    const ok = candidate !== undefined && constantTimeEqual(hmacSha256(secret.value, body), candidate);
    if (ok && !matched) matched = secret;
  }
  if (matched) return { ok: true, secretLabel: matched.label };
  const diagnosis = diagnoseSignatureMismatch({
    scheme: { encoding: "base64", mac: (secret, signedBody) => hmacSha256(secret, signedBody) },
    body,
    sent: [sent],
    secrets: keys.secrets,
    retiredSecrets: keys.retiredSecrets,
  });
  const why = candidate === undefined ? because("signature_malformed_base64", { header: headerName }) : because("signature_mismatch", {});
  return { ok: false, status: 401, ...why, ...diagnosisFields(diagnosis) };
}
