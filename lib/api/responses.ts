import type { z } from "zod";
import { describeZodError } from "@/lib/webhooks/json";

/** `{error, code}` JSON with a status; the one shape every API error takes. */
export function jsonError(status: number, code: string, message: string): Response {
  return Response.json({ error: message, code }, { status });
}

/** 401 for a missing or wrong API token and no valid session. */
export function unauthorized(): Response {
  return jsonError(401, "unauthorized", "missing or invalid bearer token or session");
}

/** 403 for a signed-in user whose role lacks the permission. */
export function forbidden(): Response {
  return jsonError(403, "forbidden", "your role does not allow this");
}

/** Maps {@link authorizeApi}'s refusals to 401/403; undefined when the caller may proceed. */
export function refusal(result: "unauthenticated" | "forbidden" | object): Response | undefined {
  if (result === "unauthenticated") return unauthorized();
  if (result === "forbidden") return forbidden();
  return undefined;
}

/** 400 naming each invalid field of a zod validation. */
export function invalidBody(error: z.ZodError): Response {
  return jsonError(400, "invalid_body", describeZodError(error));
}
