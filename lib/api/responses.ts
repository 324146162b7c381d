import type { z } from "zod";
import { describeZodError } from "@/lib/webhooks/json";

/** `{error, code}` JSON with a status; the one shape every API error takes. */
export function jsonError(status: number, code: string, message: string): Response {
  return Response.json({ error: message, code }, { status });
}

/** 401 for a missing or wrong API token. */
export function unauthorized(): Response {
  return jsonError(401, "unauthorized", "missing or invalid bearer token");
}

/** 400 naming each invalid field of a zod validation. */
export function invalidBody(error: z.ZodError): Response {
  return jsonError(400, "invalid_body", describeZodError(error));
}
