export { describeZodError } from "@/lib/format/zod-error";

/** Parses UTF-8 JSON bytes; returns undefined for invalid UTF-8-decoded JSON instead of throwing. */
export function parseJsonBody(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
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
