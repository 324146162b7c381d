import type { z } from "zod";
import { describeZodError } from "@/lib/format/zod-error";

/**
 * Reads a JSON or CSV route's query string strictly: a parameter not in `known` (`page`, a misspelt
 * `stauts`) is refused by name rather than ignored, since an ignored filter answers with every row;
 * a repeated parameter keeps its first value. `route` names the route in the sentence
 * (`GET /api/orders`). Returns the parsed query, or the 400's sentence naming each problem.
 */
export function parseStrictQuery<Schema extends z.ZodType>(search: URLSearchParams, schema: Schema, route: string, known: readonly string[]): { ok: true; query: z.output<Schema> } | { ok: false; error: string } {
  const unknown = [...new Set(search.keys())].filter((key) => !known.includes(key));
  if (unknown.length > 0) return { ok: false, error: unknown.map((key) => `${key.slice(0, 60)}: not a parameter of ${route} (it takes ${known.join(", ")})`).join("; ") };
  const values: Record<string, string> = {};
  for (const [key, value] of search) if (!(key in values)) values[key] = value;
  const parsed = schema.safeParse(values);
  return parsed.success ? { ok: true, query: parsed.data } : { ok: false, error: describeZodError(parsed.error) };
}
