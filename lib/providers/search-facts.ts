// What a person looks an event up by, read from a verified payload beside the money: the customer's
// e-mail and the provider's charge id. Neither decides anything; a value that is not one is dropped,
// never a reason to refuse the event.
import { z } from "zod";
import { parseJsonPath, readJsonPath, type JsonPathStep } from "@/lib/providers/json-path";

/** Longest e-mail address kept (RFC 5321 §4.5.3.1: a path of 256 octets, less the angle brackets). */
export const MAX_EMAIL_LENGTH = 254;

/**
 * A customer e-mail as Acredita keeps it for search: trimmed, lower-cased (mailbox names are matched
 * case-insensitively by every provider Acredita reads, and a person types them in any case), at most
 * {@link MAX_EMAIL_LENGTH} characters, one `@` with something on each side, no space, control
 * character or NUL. Returns undefined for anything else (a number, an object, "n/a", a 2 KB string).
 */
export function customerEmailFrom(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const email = value.trim().toLowerCase();
  if (email.length < 3 || email.length > MAX_EMAIL_LENGTH) return undefined;
  // Only characters that print and are not whitespace (U+0021..U+007E and any letter of another script).
  if (!/^[^\s@\p{Cc}\p{Cf}]+@[^\s@\p{Cc}\p{Cf}]+$/u.test(email)) return undefined;
  return email;
}

/** The first field of `object` (own properties, in `paths` order) that holds an e-mail, as {@link customerEmailFrom} keeps it. */
export function firstEmailAt(object: unknown, paths: readonly JsonPathStep[][]): string | undefined {
  for (const steps of paths) {
    const email = customerEmailFrom(readJsonPath(object, steps));
    if (email) return email;
  }
  return undefined;
}

/** A JSON path an endpoint maps a field with (`$.data.customer.email`), checked and parsed when the endpoints load. */
export const mappedPathSchema = z.string().transform((path, context) => {
  const steps = parseJsonPath(path);
  if (!steps) {
    context.addIssue({ code: "custom", message: `"${path.slice(0, 60)}" is not a JSON path like $.data.order_id` });
    return z.NEVER;
  }
  return { path, steps };
});

/** A mapped field after validation: the path as written and its steps. */
export type MappedPath = z.output<typeof mappedPathSchema>;
