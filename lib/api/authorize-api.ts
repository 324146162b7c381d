import { hasApiToken } from "@/lib/api/bearer";
import { authTrustedOrigins, getAuth } from "@/lib/auth/auth";
import { can, roleSchema, type Permission } from "@/lib/auth/roles";

/** Who called a JSON API route: a machine client with the API token, or a signed-in dashboard user. */
export type ApiCaller = { kind: "token" } | { kind: "user"; userId: string; role: string };

/**
 * Authorises a JSON API request: `Authorization: Bearer <API_TOKEN>` (machine clients, full access), or
 * a session cookie whose user's role grants `permission`. A cookie-authenticated request that changes
 * something (not GET/HEAD) must come from the dashboard's own origin (`Origin` one of the trusted origins that sign-in accepts):
 * a cookie alone would let another site post on a signed-in user's behalf. Returns the caller,
 * `unauthenticated` (401: neither) or `forbidden` (403: signed in without the permission, or a foreign origin).
 */
export async function authorizeApi(request: Request, permission: Permission): Promise<ApiCaller | "unauthenticated" | "forbidden"> {
  if (hasApiToken(request.headers)) return { kind: "token" };
  if (!request.headers.get("cookie")) return "unauthenticated";
  if (!["GET", "HEAD"].includes(request.method) && !authTrustedOrigins().includes(request.headers.get("origin") ?? "")) return "forbidden";
  const session = await (await getAuth()).api.getSession({ headers: request.headers });
  if (!session) return "unauthenticated";
  const role = roleSchema.safeParse(session.user.role);
  if (!role.success || !can(role.data, permission)) return "forbidden";
  return { kind: "user", userId: session.user.id, role: role.data };
}
