// The JSON bodies of the replay and bulk-retry API routes, and reading them from a Request.
import { z } from "zod";
import { contentTypeProblem } from "@/lib/http/content-type";
import { describeZodError } from "@/lib/providers/json";
import { replayFilterSchema } from "@/lib/replay/replay-filter";
import { MAX_FILTER_RETRY } from "@/lib/replay/retry-by-filter";

/** `POST /api/replays`: the filter and `dryRun: true` (a replay is always previewed first, then applied by its id). */
export const previewRequestSchema = z.object({ filter: replayFilterSchema, dryRun: z.boolean() }).strict();

/**
 * `POST /api/dead-letters/retries`: the filter, and either `dryRun: true` (count the open dead letters it
 * names) or `expectedCount` (retry them, only while that is still their count). `confirmReviewFirst`
 * retries review-first ones too (amount or currency mismatch, ...), as the dashboard's confirmation does.
 */
export const filterRetryRequestSchema = z
  .object({ filter: replayFilterSchema, dryRun: z.boolean().optional(), expectedCount: z.number().int().min(0).max(MAX_FILTER_RETRY).optional(), confirmReviewFirst: z.boolean().optional() })
  .strict()
  .refine((body) => (body.dryRun === true) !== (body.expectedCount !== undefined), { message: "give dryRun: true to count, or expectedCount (the count you were shown) to retry", path: ["expectedCount"] });

/** A request body read against `schema`: the data, or the error's status, code and sentence (415, 400). */
export type BodyRead<T> = { ok: true; data: T } | { ok: false; status: 400 | 415; code: string; message: string };

/** Reads a JSON API body: `application/json` (415 otherwise), valid JSON (400 `invalid_json`), then `schema` (400 `invalid_body` naming each field). */
export async function readBody<T>(request: Request, schema: z.ZodType<T>): Promise<BodyRead<T>> {
  const unsupported = contentTypeProblem(request.headers.get("content-type"));
  if (unsupported) return { ok: false, status: 415, code: "unsupported_media_type", message: unsupported };
  let json: unknown;
  try {
    json = await request.json();
  } catch {
    return { ok: false, status: 400, code: "invalid_json", message: "body is not valid JSON" };
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? { ok: true, data: parsed.data } : { ok: false, status: 400, code: "invalid_body", message: describeZodError(parsed.error) };
}
