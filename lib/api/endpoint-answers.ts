import type { z } from "zod";
import { apiActor, authorizeApi, type ApiCaller } from "@/lib/api/authorize-api";
import { invalidBody, jsonError, refusal } from "@/lib/api/responses";
import type { BindingRefusal } from "@/lib/endpoints/connect-bindings";
import type { EndpointActor, EndpointRefusal } from "@/lib/endpoints/endpoint-store";
import { contentTypeProblem } from "@/lib/http/content-type";

/** The actor an API caller changes endpoints as: the operator (API_TOKEN), or a person or key with its role. */
export function endpointActor(caller: ApiCaller): EndpointActor {
  const { id, email } = apiActor(caller);
  return caller.kind === "token" ? { id, email, operator: true } : { id, email, operator: false, role: caller.role };
}

/**
 * The one HTTP answer of each endpoint refusal: invalid 400, forbidden 403, not_found 404, conflict 409
 * (its own code: last_active_secret, no_active_secret), secrets_key 503 (the server's
 * ACREDITA_SECRETS_KEY is unset or malformed: the operator's to fix, the request may be sent again then).
 */
export function endpointRefusalResponse(refusal: EndpointRefusal): Response {
  if (refusal.kind === "invalid") return jsonError(400, "invalid_body", refusal.message);
  if (refusal.kind === "forbidden") return jsonError(403, "forbidden", refusal.message);
  if (refusal.kind === "not_found") return jsonError(404, "not_found", refusal.message);
  if (refusal.kind === "conflict") return jsonError(409, refusal.code, refusal.message);
  return jsonError(503, refusal.code, refusal.message);
}

/**
 * The one HTTP answer of each Connect binding refusal: invalid 400 with its own code (not_connect,
 * invalid_account, platform_account, unknown_org), forbidden 403, not_found 404, conflict 409
 * (account_bound, account_taken).
 */
export function bindingRefusalResponse(refusal: BindingRefusal): Response {
  if (refusal.kind === "invalid") return jsonError(400, refusal.code, refusal.message);
  if (refusal.kind === "forbidden") return jsonError(403, "forbidden", refusal.message);
  if (refusal.kind === "not_found") return jsonError(404, "not_found", refusal.message);
  return jsonError(409, refusal.code, refusal.message);
}

/** A JSON request body: 415 when it is not declared JSON, 400 when it does not parse; else the value. */
export async function readJsonBody(request: Request): Promise<{ ok: true; json: unknown } | { ok: false; response: Response }> {
  const unsupported = contentTypeProblem(request.headers.get("content-type"));
  if (unsupported) return { ok: false, response: jsonError(415, "unsupported_media_type", unsupported) };
  try {
    return { ok: true, json: await request.json() };
  } catch {
    return { ok: false, response: jsonError(400, "invalid_json", "body is not valid JSON") };
  }
}

/**
 * The common start of every `/api/endpoints/<id>/...` route handler: the caller (an admin or the
 * operator, `endpoints.manage`, in the organization it acts in; 401/403/404 otherwise), the route's
 * params, and, with `schema`, the JSON body validated by it (415, 400 `invalid_json`, 400 `invalid_body`
 * naming the fields, never their values). Returns them, or the refusal's Response.
 */
export async function endpointRequest<P, S extends z.ZodType | undefined = undefined>(
  request: Request,
  context: { params: Promise<P> },
  schema?: S,
): Promise<{ ok: true; caller: ApiCaller; params: P; body: S extends z.ZodType ? z.infer<S> : undefined } | { ok: false; response: Response }> {
  const caller = await authorizeApi(request, "endpoints.manage", { scoped: true });
  const denied = refusal(caller);
  if (denied || typeof caller === "string") return { ok: false, response: denied! };
  const params = await context.params;
  if (!schema) return { ok: true, caller, params, body: undefined as S extends z.ZodType ? z.infer<S> : undefined };
  const read = await readJsonBody(request);
  if (!read.ok) return read;
  const parsed = schema.safeParse(read.json);
  if (!parsed.success) return { ok: false, response: invalidBody(parsed.error) };
  return { ok: true, caller, params, body: parsed.data as S extends z.ZodType ? z.infer<S> : undefined };
}
