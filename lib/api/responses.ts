import type { z } from "zod";
import { isTimeoutDbError, isTransientDbError } from "@/lib/db/errors";
import { describeZodError } from "@/lib/providers/json";

/** `{error, code}` JSON with a status; the one shape every API error takes. */
export function jsonError(status: number, code: string, message: string): Response {
  return Response.json({ error: message, code }, { status });
}

/** The `Allow` value of a route serving `served` (HEAD comes with GET, OPTIONS always: Next.js answers both). */
function allowOf(served: string[]): string {
  return [...served, ...(served.includes("GET") ? ["HEAD"] : []), "OPTIONS"].join(", ");
}

/**
 * A route handler answering 405 `method_not_allowed` (JSON, with `Allow`) for a method the route does not
 * serve; export it as the route's PUT/PATCH/DELETE (Next.js's own 405 has an empty body and no Allow).
 * Export {@link optionsAnswer} with the same list as OPTIONS: once a route exports those methods,
 * Next.js's automatic OPTIONS would list them as allowed.
 */
export function methodNotAllowed(served: string[]): (request: Request) => Response {
  const allow = allowOf(served);
  return (request) => {
    const response = jsonError(405, "method_not_allowed", `method ${request.method.slice(0, 20)} not allowed here; allowed: ${allow}`);
    response.headers.set("allow", allow);
    return response;
  };
}

/** A route's OPTIONS handler: 204 with the `Allow` of the methods it serves. */
export function optionsAnswer(served: string[]): () => Response {
  const allow = allowOf(served);
  return () => new Response(null, { status: 204, headers: { allow } });
}

/** 401 for a missing or wrong API token and no valid session. */
export function unauthorized(): Response {
  return jsonError(401, "unauthorized", "missing or invalid bearer token or session");
}

/** 403 for a signed-in user whose role lacks the permission. */
export function forbidden(): Response {
  return jsonError(403, "forbidden", "your role does not allow this");
}

/** 403 for a change made with a session cookie from another origin than the dashboard's (or with none). */
export function crossSite(): Response {
  return jsonError(403, "cross_site", "a change made with a session cookie must come from the dashboard's own origin (Origin header)");
}

/**
 * 404 for an organization the caller cannot act in (an unknown `Acredita-Org` slug, another organization
 * than the key's, or one the user is not a member of): the same answer for each, so existence does not leak.
 */
export function organizationNotFound(): Response {
  return jsonError(404, "not_found", "organization not found: the Acredita-Org header names no organization this caller can act in");
}

/** Maps {@link authorizeApi}'s refusals to 401/403/404; undefined when the caller may proceed. */
export function refusal(result: "unauthenticated" | "forbidden" | "cross_site" | "organization_not_found" | object): Response | undefined {
  if (result === "unauthenticated") return unauthorized();
  if (result === "forbidden") return forbidden();
  if (result === "cross_site") return crossSite();
  if (result === "organization_not_found") return organizationNotFound();
  return undefined;
}

/** 400 naming each invalid field of a zod validation. */
export function invalidBody(error: z.ZodError): Response {
  return jsonError(400, "invalid_body", describeZodError(error));
}

/**
 * Runs a route's work and answers 503 `database_unavailable` when the database timed out or is busy
 * ({@link isTimeoutDbError}, {@link isTransientDbError}: pool wait, statement or transaction timeout,
 * SQLite busy): a temporary failure must not look like a bug (500), and the caller may retry. Any other
 * error propagates (Next.js answers 500 without details).
 */
export async function withDatabaseErrors(work: () => Promise<Response>): Promise<Response> {
  try {
    return await work();
  } catch (error) {
    if (isTimeoutDbError(error) || isTransientDbError(error)) return jsonError(503, "database_unavailable", "database unavailable; retry later");
    throw error;
  }
}
