import { constantTimeEqual, decodeBase64, decodeHex } from "@/lib/providers/signatures/hmac";
import type { SigningSecret } from "@/lib/providers/types";
import { because, type Because, type DiagnosisVariant, type ReasonRef } from "@/lib/reasons/reason-codes";

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

/**
 * Deepest JSON nesting (arrays and objects) a diagnosis re-serialises. Provider payloads nest about 6
 * levels (a Stripe event's `data.object.charges.data[0].payment_method_details.card`), so 64 leaves a wide
 * margin; deeper bodies skip the re-serialisation checks. Why a bound at all: JSON.parse is iterative in
 * V8, but JSON.stringify recurses, and 100,000 nested arrays (200 KB, under the size bound above)
 * overflow its stack.
 */
export const MAX_DIAGNOSED_JSON_DEPTH = 64;

/**
 * True when the JSON text `text` nests arrays or objects deeper than `max` (brackets inside strings do
 * not count). A linear scan that allocates nothing, so it costs less than the parse it guards.
 */
export function jsonNestingExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c) index += 1; // backslash: skip the escaped character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      depth += 1;
      if (depth > max) return true;
    } else if (code === 0x5d || code === 0x7d) depth -= 1;
  }
  return false;
}

const WHITESPACE_VARIANTS: { variant: DiagnosisVariant; apply: (secret: string) => string }[] = [
  { variant: "trailing_newline", apply: (secret) => `${secret}\n` },
  { variant: "trailing_crlf", apply: (secret) => `${secret}\r\n` },
  { variant: "trailing_space", apply: (secret) => `${secret} ` },
  { variant: "trailing_tab", apply: (secret) => `${secret}\t` },
  { variant: "leading_space", apply: (secret) => ` ${secret}` },
  { variant: "leading_newline", apply: (secret) => `\n${secret}` },
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
function reserialisedBodies(body: Buffer): { variant: DiagnosisVariant; body: Buffer }[] {
  const text = body.toString("utf8");
  const variants: { variant: DiagnosisVariant; body: Buffer }[] = [];
  let parsed: unknown;
  try {
    parsed = jsonNestingExceeds(text, MAX_DIAGNOSED_JSON_DEPTH) ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (parsed !== undefined) {
    variants.push(
      { variant: "compact_json", body: Buffer.from(JSON.stringify(parsed)) },
      { variant: "json_2_spaces", body: Buffer.from(JSON.stringify(parsed, null, 2)) },
      { variant: "json_4_spaces", body: Buffer.from(JSON.stringify(parsed, null, 4)) },
      { variant: "json_tabs", body: Buffer.from(JSON.stringify(parsed, null, "\t")) },
    );
  }
  if (text.endsWith("\n")) variants.push({ variant: "without_trailing_newline", body: Buffer.from(text.replace(/\r?\n$/, "")) });
  else variants.push({ variant: "with_trailing_newline", body: Buffer.from(`${text}\n`) });
  return variants.filter((variant) => !variant.body.equals(body));
}

/**
 * The retired (or expired) secret's label named by a diagnosis from {@link diagnoseSignatureMismatch}
 * (its `diagnosis_retired_secret` or `diagnosis_expired_secret` code), or undefined for any other
 * diagnosis or none. The receiver stores it
 * on the refusal's decision row, so the Endpoints page can tell when a retired secret was last tried.
 */
export function retiredSecretLabelOf(diagnosis: ReasonRef | undefined): string | undefined {
  return diagnosis?.code === "diagnosis_retired_secret" || diagnosis?.code === "diagnosis_expired_secret" ? String(diagnosis.params.secretLabel) : undefined;
}

/** A verification failure's diagnosis fields: the English sentence (logs, decision row) and its code. */
export function diagnosisFields(found: Because | undefined): { diagnosis?: string; diagnosisRef?: ReasonRef } {
  return found ? { diagnosis: found.reason, diagnosisRef: found.reasonRef } : {};
}

/**
 * Explains a signature that matched no active secret, when the cause can be found without revealing
 * anything: signed with a retired secret (or one whose rotation overlap ended: expired), the MAC in the other encoding (hex versus base64), a secret
 * with stray whitespace at the sender, or a body re-serialised between signing and delivery. Returns one
 * reason (a `diagnosis_*` code and its English sentence) naming secrets by LABEL only (never a value, a
 * signature or body content), or undefined.
 * Every comparison is constant time. Costs at most 12 HMACs over the body per active secret and 1 per
 * retired secret; bodies over {@link MAX_DIAGNOSED_BODY_BYTES} get the retired-secret check only, and
 * bodies nested deeper than {@link MAX_DIAGNOSED_JSON_DEPTH} are not re-serialised.
 * Never throws: the diagnosis only adds words to a refusal that is a 401 either way, so anything it
 * cannot handle in a hostile body leaves it without a diagnosis rather than turning the 401 into a 500.
 */
export function diagnoseSignatureMismatch(input: DiagnosisInput): Because | undefined {
  try {
    return diagnose(input);
  } catch {
    return undefined;
  }
}

function diagnose(input: DiagnosisInput): Because | undefined {
  const { scheme, body, sent, secrets, retiredSecrets } = input;
  const expected = sent.map((text) => decode(text, scheme.encoding)).filter((value): value is Buffer => value !== undefined);

  for (const retired of retiredSecrets) {
    if (matchesAny(scheme.mac(retired.value, body), expected)) {
      return retired.expiredAt ? because("diagnosis_expired_secret", { secretLabel: retired.label, expiredAt: retired.expiredAt.toISOString() }) : because("diagnosis_retired_secret", { secretLabel: retired.label });
    }
  }

  if (body.length > MAX_DIAGNOSED_BODY_BYTES) return undefined;

  const other: SignatureEncoding = scheme.encoding === "hex" ? "base64" : "hex";
  const otherDecoded = sent.map((text) => decode(text, other)).filter((value): value is Buffer => value !== undefined);
  if (otherDecoded.length > 0) {
    for (const secret of secrets) {
      if (matchesAny(scheme.mac(secret.value, body), otherDecoded)) {
        return because("diagnosis_encoding", { sent: other, expected: scheme.encoding, secretLabel: secret.label });
      }
    }
  }

  for (const secret of secrets) {
    for (const { variant, apply } of WHITESPACE_VARIANTS) {
      if (matchesAny(scheme.mac(apply(secret.value), body), expected)) return because("diagnosis_whitespace", { secretLabel: secret.label, variant });
    }
  }

  for (const reserialised of reserialisedBodies(body)) {
    for (const secret of secrets) {
      if (matchesAny(scheme.mac(secret.value, reserialised.body), expected)) return because("diagnosis_reserialised", { secretLabel: secret.label, variant: reserialised.variant });
    }
  }
  return undefined;
}

/**
 * Explains a valid signature whose timestamp lies outside the window: how far off it is and in which
 * direction. Rule: providers that sign a timestamp (Stripe, Standard Webhooks, the lab) reject it beyond
 * the tolerance; the cause is a replay or a sender clock off by that much. Returns the reason
 * (`diagnosis_clock_past` or `diagnosis_clock_future`, seconds off as a positive number).
 */
export function diagnoseClockSkew(secretLabel: string, ageSeconds: number): Because {
  const seconds = Math.abs(ageSeconds);
  return ageSeconds > 0 ? because("diagnosis_clock_past", { secretLabel, seconds }) : because("diagnosis_clock_future", { secretLabel, seconds });
}
