import { bearerToken, hasApiToken } from "@/lib/api/bearer";
import { authTrustedOrigins, getAuth, validSession } from "@/lib/auth/auth";
import { API_KEY_PREFIX, authenticateApiKey } from "@/lib/auth/api-keys";
import { can, roleSchema, type Permission } from "@/lib/auth/roles";
import { db } from "@/lib/db/client";
import { API_TOKEN_ACTOR } from "@/lib/reasons/render-reason";

/**
 * Who called a JSON API route: the operator (API_TOKEN, full access), a per-user API key (its owner's
 * role), or a signed-in dashboard user.
 */
export type ApiCaller =
  | { kind: "token" }
  | { kind: "key"; keyId: string; keyStart: string; userId: string; email: string; role: string }
  | { kind: "user"; userId: string; email: string; role: string };

/** The audit actor for an API caller: the key's or session's owner, or the operator token. */
export function apiActor(caller: ApiCaller): { id: string; email: string } {
  if (caller.kind === "token") return { id: "api-token", email: API_TOKEN_ACTOR };
  return { id: caller.userId, email: caller.email };
}

/** Whether `caller` may also do `permission` (a route's second check, e.g. reading personal data): the operator token may do everything. */
export function callerCan(caller: ApiCaller, permission: Permission): boolean {
  return caller.kind === "token" || can(caller.role, permission);
}

/**
 * Authorises a JSON API request: `Authorization: Bearer <key>` with a per-user API key (`acr_…`, the
 * owner's current role must grant `permission`), `Bearer <API_TOKEN>` (the operator key, when one is
 * configured), or a session cookie whose user's role grants `permission`. A cookie-authenticated request
 * that changes something (not GET/HEAD) must come from the dashboard's own origin (`Origin` one of the
 * trusted origins that sign-in accepts): a cookie alone would let another site post on a signed-in
 * user's behalf. A bearer that is neither a valid key nor the token is 401 (never a fall back to the
 * cookie). Returns the caller, `unauthenticated` (401), `forbidden` (403: authenticated without the
 * permission) or `cross_site` (403: a cookie-authenticated change from another origin, or none).
 */
export async function authorizeApi(request: Request, permission: Permission): Promise<ApiCaller | "unauthenticated" | "forbidden" | "cross_site"> {
  const bearer = bearerToken(request.headers);
  if (bearer?.startsWith(API_KEY_PREFIX)) {
    const key = await authenticateApiKey(await db(), bearer);
    if (!key) return "unauthenticated";
    if (!can(key.role, permission)) return "forbidden";
    return { kind: "key", ...key };
  }
  if (hasApiToken(request.headers)) return { kind: "token" };
  if (request.headers.get("authorization")) return "unauthenticated";
  if (!request.headers.get("cookie")) return "unauthenticated";
  if (!["GET", "HEAD"].includes(request.method) && !authTrustedOrigins().includes(request.headers.get("origin") ?? "")) return "cross_site";
  const session = await validSession(await getAuth(), request.headers);
  if (!session) return "unauthenticated";
  const role = roleSchema.safeParse(session.user.role);
  if (!role.success || !can(role.data, permission)) return "forbidden";
  return { kind: "user", userId: session.user.id, email: session.user.email, role: role.data };
}
