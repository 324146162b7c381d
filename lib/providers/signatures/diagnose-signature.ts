import { constantTimeEqual, decodeBase64, decodeHex } from "@/lib/providers/signatures/hmac";
import type { SigningSecret } from "@/lib/providers/types";

/** How a provider encodes its MAC in the header. */
export type SignatureEncoding = "hex" | "base64";

/** A provider's signing scheme, as far as a diagnosis needs it. */
export interface SignatureScheme {
  encoding: SignatureEncoding;
  /** The MAC (raw bytes) the provider would send for `body` signed with `secret` (the secret as configured, a string). */
  mac(secret: string, body: Buffer): Buffer;
}

/** Everything a diagnosis looks at. `sent` are the signature strings from the header, as sent (v1 values). */
export interface DiagnosisInput {
  scheme: SignatureScheme;
  body: Buffer;
  sent: string[];
  secrets: SigningSecret[];
  retiredSecrets: SigningSecret[];
}

/**
 * Above this size a rejection only gets the retired-secret check (one HMAC per retired secret): the other
 * checks cost about 12 HMACs per active secret, and an unsigned request must not buy that much CPU
 * (measured: 28 ms for a forged 900 KB body with two active secrets and one retired).
 */
export const MAX_DIAGNOSED_BODY_BYTES = 262_144;

const WHITESPACE_VARIANTS: { describe: string; apply: (secret: string) => string }[] = [
  { describe: "a trailing newline", apply: (secret) => `${secret}\n` },
  { describe: "a trailing CR LF", apply: (secret) => `${secret}\r\n` },
  { describe: "a trailing space", apply: (secret) => `${secret} ` },
  { describe: "a trailing tab", apply: (secret) => `${secret}\t` },
  { describe: "a leading space", apply: (secret) => ` ${secret}` },
  { describe: "a leading newline", apply: (secret) => `\n${secret}` },
];

function decode(text: string, encoding: SignatureEncoding): Buffer | undefined {
  return encoding === "hex" ? decodeHex(text) : decodeBase64(text);
}

/** True when `expected` equals any decoded candidate; compares against every candidate (no early exit). */
function matchesAny(expected: Buffer, candidates: Buffer[]): boolean {
  let any = false;
  for (const candidate of candidates) any = constantTimeEqual(expected, candidate) || any;
  return any;
}

/** Re-serialisations of a JSON body a proxy, a framework or a sender's code commonly produces. */
function reserialisedBodies(body: Buffer): { describe: string; body: Buffer }[] {
  const text = body.toString("utf8");
  const variants: { describe: string; body: Buffer }[] = [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (parsed !== undefined) {
    variants.push(
      { describe: "compact JSON (JSON.stringify of the parsed body)", body: Buffer.from(JSON.stringify(parsed)) },
      { describe: "JSON pretty-printed with 2 spaces", body: Buffer.from(JSON.stringify(parsed, null, 2)) },
      { describe: "JSON pretty-printed with 4 spaces", body: Buffer.from(JSON.stringify(parsed, null, 4)) },
      { describe: "JSON pretty-printed with tabs", body: Buffer.from(JSON.stringify(parsed, null, "\t")) },
    );
  }
  if (text.endsWith("\n")) variants.push({ describe: "the body without its trailing newline", body: Buffer.from(text.replace(/\r?\n$/, "")) });
  else variants.push({ describe: "the body with a trailing newline", body: Buffer.from(`${text}\n`) });
  return variants.filter((variant) => !variant.body.equals(body));
}

/** How a diagnosis of a delivery signed with a retired secret begins; the label follows in parentheses. */
const RETIRED_SECRET_DIAGNOSIS = "signed with a retired secret ";

/**
 * The retired secret's label named by a diagnosis from {@link diagnoseSignatureMismatch}
 * ("signed with a retired secret (X_RETIRED_SECRETS[0]): ..."), or undefined for any other diagnosis.
 * The receiver stores it on the refusal's decision row, so the Endpoints page can tell when a retired
 * secret was last tried.
 */
export function retiredSecretLabelOf(diagnosis: string | undefined): string | undefined {
  if (!diagnosis?.startsWith(RETIRED_SECRET_DIAGNOSIS)) return undefined;
  return /^\(([A-Z][A-Z0-9_]*\[\d+\])\)/.exec(diagnosis.slice(RETIRED_SECRET_DIAGNOSIS.length))?.[1];
}

/**
 * Explains a signature that matched no active secret, when the cause can be found without revealing
 * anything: signed with a retired secret, the MAC in the other encoding (hex versus base64), a secret
 * with stray whitespace at the sender, or a body re-serialised between signing and delivery. Returns one
 * sentence naming secrets by LABEL only (never a value, a signature or body content), or undefined.
 * Every comparison is constant time. Costs at most 12 HMACs over the body per active secret and 1 per
 * retired secret; bodies over {@link MAX_DIAGNOSED_BODY_BYTES} get the retired-secret check only.
 */
export function diagnoseSignatureMismatch(input: DiagnosisInput): string | undefined {
  const { scheme, body, sent, secrets, retiredSecrets } = input;
  const expected = sent.map((text) => decode(text, scheme.encoding)).filter((value): value is Buffer => value !== undefined);

  for (const retired of retiredSecrets) {
    if (matchesAny(scheme.mac(retired.value, body), expected)) {
      return `${RETIRED_SECRET_DIAGNOSIS}(${retired.label}): the sender still signs with a secret this endpoint no longer accepts; give the sender the current secret`;
    }
  }

  if (body.length > MAX_DIAGNOSED_BODY_BYTES) return undefined;

  const other: SignatureEncoding = scheme.encoding === "hex" ? "base64" : "hex";
  const otherDecoded = sent.map((text) => decode(text, other)).filter((value): value is Buffer => value !== undefined);
  if (otherDecoded.length > 0) {
    for (const secret of secrets) {
      if (matchesAny(scheme.mac(secret.value, body), otherDecoded)) {
        return `signature is ${other}-encoded but this provider's signatures are ${scheme.encoding}: the MAC matches ${secret.label}, only its encoding is wrong`;
      }
    }
  }

  for (const secret of secrets) {
    for (const variant of WHITESPACE_VARIANTS) {
      if (matchesAny(scheme.mac(variant.apply(secret.value), body), expected)) {
        return `signed with ${secret.label} plus ${variant.describe}: the sender's copy of the secret has stray whitespace (Acredita trims its own); remove it at the sender`;
      }
    }
  }

  for (const variant of reserialisedBodies(body)) {
    for (const secret of secrets) {
      if (matchesAny(scheme.mac(secret.value, variant.body), expected)) {
        return `signature matches ${secret.label} over ${variant.describe}, not over the bytes received: the body was re-serialised between signing and delivery (a proxy or framework re-encoded the JSON, or the sender signed another serialisation)`;
      }
    }
  }
  return undefined;
}

/**
 * Explains a valid signature whose timestamp lies outside the window: how far off it is and in which
 * direction. Rule: providers that sign a timestamp (Stripe, Standard Webhooks, the lab) reject it beyond
 * the tolerance; the cause is a replay or a sender clock off by that much.
 */
export function diagnoseClockSkew(secretLabel: string, ageSeconds: number): string {
  const off = Math.abs(ageSeconds);
  return ageSeconds > 0
    ? `signature is valid (${secretLabel}) but its timestamp is ${off} s in the past: a replay of an old delivery, or the sender's clock is ${off} s behind`
    : `signature is valid (${secretLabel}) but its timestamp is ${off} s in the future: the sender's clock is ${off} s ahead`;
}
