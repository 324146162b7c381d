import { because } from "@/lib/reasons/reason-codes";
import { diagnoseSignatureMismatch, diagnosisFields } from "@/lib/providers/signatures/diagnose-signature";
import { withinTimestampWindow } from "@/lib/providers/signatures/timestamp-window";
import { constantTimeEqual, decodeHex, hmacSha256 } from "@/lib/providers/signatures/hmac";
import type { SigningSecret, VerificationKeys, VerifyResult } from "@/lib/providers/types";

/** A parsed `t=<unix seconds>,v1=<hex>[,v1=<hex>]` header. */
export interface TimestampedSignatureHeader {
  timestamp: string;
  v1: string[];
}

/**
 * Parses a Stripe-style signature header (`t=...,v1=...`, also the lab's `Lab-Signature`).
 * Unknown schemes (v0, v2, ...) are ignored, as Stripe documents. Returns undefined when no `t` or no
 * `v1` element exists, or when `t` appears twice with different values.
 */
export function parseTimestampedHeader(header: string): TimestampedSignatureHeader | undefined {
  let timestamp: string | undefined;
  const v1: string[] = [];
  for (const element of header.split(",")) {
    const separator = element.indexOf("=");
    if (separator < 0) continue;
    const key = element.slice(0, separator).trim();
    const value = element.slice(separator + 1).trim();
    if (key === "t") {
      // Two different timestamps make the header ambiguous (which one was signed would be the sender's
      // choice); the same header sent twice, which HTTP joins with a comma, repeats the same one.
      if (timestamp !== undefined && timestamp !== value) return undefined;
      timestamp = value;
    }
    else if (key === "v1") v1.push(value);
  }
  if (timestamp === undefined || v1.length === 0) return undefined;
  return { timestamp, v1 };
}

/** Signs `<t>.<body>` as the header value `t=<t>,v1=<hex>`: used by the lab provider and tests. */
export function signTimestamped(secret: string, timestamp: number, body: string | Buffer): string {
  return `t=${timestamp},v1=${hmacSha256(secret, `${timestamp}.`, body).toString("hex")}`;
}

/**
 * Verifies a `t=...,v1=...` header over `<t>.<raw body>`: HMAC-SHA256 keyed with the secret's UTF-8
 * text, hex, accepted when ANY v1 matches ANY active secret (rotation), compared in constant time; then
 * the timestamp must lie within `keys.toleranceSeconds` on either side of `now`. Rules: Stripe's
 * Stripe-Signature (tolerance 300 s; v0 and unknown schemes ignored), shared by the lab's Lab-Signature.
 * Returns a {@link VerifyResult}: 401 with a reason for a missing, malformed or wrong signature or a
 * timestamp outside the window, plus a diagnosis when one is found; never a secret or a signature.
 */
export function verifyTimestampedHeader(headerName: string, header: string | null, body: Buffer, keys: VerificationKeys, now: Date): VerifyResult {
  if (header === null || header.trim() === "") return { ok: false, status: 401, ...because("signature_missing", { header: headerName }) };
  const parsed = parseTimestampedHeader(header);
  if (!parsed) return { ok: false, status: 401, ...because("signature_malformed_timestamped", { header: headerName }) };
  if (!/^\d{1,12}$/.test(parsed.timestamp)) return { ok: false, status: 401, ...because("signature_timestamp_not_number", { header: headerName }) };
  const prefix = `${parsed.timestamp}.`;
  const candidates = parsed.v1.map(decodeHex).filter((value): value is Buffer => value !== undefined && value.length === 32);
  let matched: SigningSecret | undefined;
  for (const secret of keys.secrets) {
    const expected = hmacSha256(secret.value, prefix, body);
    // Compare against every candidate without stopping early on a match, so timing tells nothing.
    let any = false;
    for (const candidate of candidates) any = constantTimeEqual(expected, candidate) || any;
    if (any && !matched) matched = secret;
  }
  if (!matched) {
    const diagnosis = diagnoseSignatureMismatch({
      scheme: { encoding: "hex", mac: (secret, signedBody) => hmacSha256(secret, prefix, signedBody) },
      body,
      sent: parsed.v1,
      secrets: keys.secrets,
      retiredSecrets: keys.retiredSecrets,
    });
    return { ok: false, status: 401, ...because("signature_mismatch", {}), ...diagnosisFields(diagnosis) };
  }
  return withinTimestampWindow(matched, parsed.timestamp, keys.toleranceSeconds, now);
}
