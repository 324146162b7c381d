import { z } from "zod";

/** Largest amount stored, in minor units: the ledger's 32-bit integer column. */
export const MAX_AMOUNT_MINOR = 2_147_483_647;

/** An amount in minor units: a non-negative safe integer that fits the ledger. */
export const minorAmountSchema = z.number().int().min(0).max(MAX_AMOUNT_MINOR);

/** An ISO 4217 currency code, any case in input, upper case out (providers differ: Stripe sends "usd"). */
export const currencySchema = z
  .string()
  .regex(/^[A-Za-z]{3}$/, "must be a 3-letter ISO 4217 code")
  .transform((code) => code.toUpperCase());

/**
 * Identifiers from providers: non-empty, at most 255 characters, no NUL character. PostgreSQL's text
 * columns cannot hold U+0000 ("invalid byte sequence for encoding UTF8: 0x00"), so such an id could be
 * stored on SQLite but never on PostgreSQL: it is refused as malformed on both, before anything is stored.
 */
export const idSchema = z
  .string()
  .min(1)
  .max(255)
  .refine((id) => !id.includes("\u0000"), "must not contain a NUL character");

/** Event types from providers (`payment.approved`, ...): 1 to 100 characters, no NUL (see {@link idSchema}: PostgreSQL text cannot hold one). */
export const eventTypeSchema = z
  .string()
  .min(1)
  .max(100)
  .refine((type) => !type.includes("\u0000"), "must not contain a NUL character");
