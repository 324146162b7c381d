import type { ReasonRef } from "@/lib/reasons/reason-codes";
import type { z } from "zod";
import type { NormalizedEvent, ProviderName } from "@/lib/core/effect";

/** One configured signing secret. `label` is safe to store and show; `value` never leaves memory. */
export interface SigningSecret {
  label: string;
  value: string;
  /**
   * On a secret that is no longer accepted: when it expired by itself at the end of a rotation's
   * overlap (UTC). A diagnosis then names it expired rather than retired.
   */
  expiredAt?: Date;
}

/**
 * What a verifier checks a delivery against: the endpoint's active secrets (any may match), its retired
 * secrets (never accepted: only used to diagnose a rejection) and the timestamp window in seconds.
 */
export interface VerificationKeys {
  secrets: SigningSecret[];
  retiredSecrets: SigningSecret[];
  toleranceSeconds: number;
}

/** What a provider module may know of the endpoint a delivery came through (never its secrets). */
export interface EndpointContext {
  name: string;
  account: string;
  livemode: boolean;
}

/**
 * Result of verifying a delivery's signature over its raw bytes. `diagnosis` says, when it can be found
 * safely, WHY a signature failed (retired secret, whitespace, re-serialised body, clock, encoding); it
 * names secrets by label only.
 */
export type VerifyResult =
  | { ok: true; secretLabel: string }
  | { ok: false; status: 400 | 401; reason: string; reasonRef?: ReasonRef; diagnosis?: string; diagnosisRef?: ReasonRef };

/** Result of parsing a verified body. `status` 400 for malformed JSON or headers, 422 for schema or account failures. */
export type ParseResult =
  | { ok: true; event: NormalizedEvent }
  | { ok: false; status: 400 | 422; reason: string; reasonRef?: ReasonRef; eventId?: string; eventType?: string };

/** Input a provider module sees: header lookup is case-insensitive (Web `Headers`). */
export interface DeliveryInput {
  headers: Headers;
  body: Buffer;
  now: Date;
}

/** The contract every provider module implements: verify on bytes, then normalise. */
export interface ProviderModule<Options = unknown> {
  name: ProviderName;
  /** Verifies the signature (constant time, every secret) and, where the provider signs one, the timestamp window. */
  verify(input: DeliveryInput, keys: VerificationKeys): VerifyResult;
  /** Parses and validates a VERIFIED body into a {@link NormalizedEvent}; `options` were validated by {@link optionsSchema}. */
  parse(input: DeliveryInput, options: Options, endpoint: EndpointContext): ParseResult;
  /** Validates an endpoint's provider options when the endpoints are loaded (absent: the provider takes none). */
  optionsSchema?: z.ZodType<Options>;
  /** Checks a configured secret's format when the endpoints are loaded; returns a problem (never echoing the value) or undefined. */
  checkSecret?(secret: string): string | undefined;
  /** Best-effort event id from an UNVERIFIED body, for the decision log only (marked unverified). */
  untrustedEventId(input: DeliveryInput): string | undefined;
}
