import type { z } from "zod";

/** Parses UTF-8 JSON bytes; returns undefined for invalid UTF-8-decoded JSON instead of throwing. */
export function parseJsonBody(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
}

/** Formats a zod error as one line naming each failing path (no input values are echoed). */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length ? issue.path.join(".") : "body"}: ${issue.message}`)
    .join("; ");
}

/** Reads `id` from an untrusted JSON body for the decision log; undefined when absent or not a short string. */
export function untrustedId(body: Buffer, key = "id"): string | undefined {
  const parsed = parseJsonBody(body);
  if (parsed && typeof parsed === "object" && key in parsed) {
    const value = (parsed as Record<string, unknown>)[key];
    if (typeof value === "string" && value.length > 0 && value.length <= 255) return value;
  }
  return undefined;
}
