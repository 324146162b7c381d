import { bearerToken, hasApiToken } from "@/lib/api/bearer";
import { authTrustedOrigins } from "@/lib/auth/origins";
import { API_KEY_PREFIX, authenticateApiKey, type KeyCreator } from "@/lib/auth/api-keys";
import { can, isRole, type Permission, type Role } from "@/lib/auth/roles";
import { db } from "@/lib/db/client";
import { membershipRole } from "@/lib/organizations/memberships";
import { DEFAULT_ORGANIZATION, findOrganizationBySlug } from "@/lib/organizations/organizations";
import { API_TOKEN_ACTOR } from "@/lib/reasons/render-reason";
import { ORGANIZATION_HEADER } from "@/lib/http/organization-path";

/** The request header naming, by its slug, the organization an API caller acts in (docs/organizations.md). */
export { ORGANIZATION_HEADER };

/** The organization a caller acts in: every read and write of the request is scoped to it. */
export interface ActingOrganization {
  organizationId: string;
  organizationSlug: string;
}

/**
 * Who called a JSON API route, and in which organization: the operator (API_TOKEN, full access, in the
 * organization `Acredita-Org` names), an API key (in its own organization, with its role there), or a
 * signed-in dashboard user (with their membership's role).
 */
export type ApiCaller =
  | ({ kind: "token" } & ActingOrganization)
  | ({ kind: "key"; keyId: string; keyStart: string; userId: string | null; email: string; role: Role } & ActingOrganization)
  | ({ kind: "user"; userId: string; email: string; role: Role } & ActingOrganization);

/** Why {@link authorizeApi} refused: 401, 403 (role), 403 (cookie from another origin), 404 (organization). */
export type ApiRefusal = "unauthenticated" | "forbidden" | "cross_site" | "organization_not_found";

/** The audit actor for an API caller: the key's or session's owner (a key the operator made names itself), or the operator token. */
export function apiActor(caller: ApiCaller): { id: string; email: string; organizationId: string } {
  if (caller.kind === "token") return { id: "api-token", email: API_TOKEN_ACTOR, organizationId: caller.organizationId };
  if (caller.kind === "key" && caller.userId === null) return { id: `api-key:${caller.keyId}`, email: caller.email, organizationId: caller.organizationId };
  return { id: caller.userId!, email: caller.email, organizationId: caller.organizationId };
}

/** Whether `caller` may also do `permission` (a route's second check, e.g. reading personal data): the operator token may do everything. */
export function callerCan(caller: ApiCaller, permission: Permission): boolean {
  return caller.kind === "token" || can(caller.role, permission);
}

/** The slug `Acredita-Org` names, or undefined without the header (an empty value names nothing: 404). */
function namedSlug(request: Request): string | undefined {
  const value = request.headers.get(ORGANIZATION_HEADER);
  return value === null ? undefined : value.trim();
}

/**
 * Authorises a JSON API request and resolves the organization it acts in.
 *
 * Who: `Authorization: Bearer <key>` with an API key (`acr_…`), `Bearer <API_TOKEN>` (the operator key,
 * when one is configured), or a session cookie. A cookie-authenticated request that changes something
 * (not GET/HEAD) must come from the dashboard's own origin (`Origin` one of the trusted origins that
 * sign-in accepts): a cookie alone would let another site post on a signed-in user's behalf. A bearer
 * that is neither a valid key nor the token is 401 (never a fall back to the cookie).
 *
 * Where (docs/organizations.md): the operator acts in the organization the `Acredita-Org: <slug>` header
 * names, the default organization without it; a key only in its own organization (a header naming
 * another is refused); a session user in the default organization, or the one the header names, and
 * only where they are a member. Every "not there" (unknown slug, another organization than the key's,
 * not a member) is the same `organization_not_found` (404), never 403, so whether an organization
 * exists does not leak.
 *
 * What: the role is the caller's in that organization (the membership's; a key's own capped by its
 * owner's) and must grant `permission`; the operator may do everything.
 *
 * Routes whose data is not yet kept per organization (orders, events, the ledger and the rest of the
 * books, which belong to the default organization) answer only a caller acting in the default
 * organization: anyone acting in another gets `organization_not_found` there. A route scoped by
 * organization (endpoints, API keys) passes `{ scoped: true }` and reads `organizationId`.
 *
 * Returns the caller with its organization, or a refusal: `unauthenticated` (401), `cross_site` (403),
 * `organization_not_found` (404), `forbidden` (403: authenticated there without the permission).
 */
export async function authorizeApi(request: Request, permission: Permission, options: { scoped?: boolean } = {}): Promise<ApiCaller | ApiRefusal> {
  const caller = await resolveCaller(request, permission);
  if (typeof caller !== "string" && !options.scoped && caller.organizationId !== DEFAULT_ORGANIZATION.id) return "organization_not_found";
  return caller;
}

async function resolveCaller(request: Request, permission: Permission): Promise<ApiCaller | ApiRefusal> {
  const named = namedSlug(request);
  const bearer = bearerToken(request.headers);
  if (bearer?.startsWith(API_KEY_PREFIX)) {
    const key = await authenticateApiKey(await db(), bearer);
    if (!key) return "unauthenticated";
    if (named !== undefined && named !== key.organizationSlug) return "organization_not_found";
    if (!can(key.role, permission)) return "forbidden";
    return { kind: "key", ...key };
  }
  if (hasApiToken(request.headers)) {
    if (named === undefined) return { kind: "token", organizationId: DEFAULT_ORGANIZATION.id, organizationSlug: DEFAULT_ORGANIZATION.slug };
    const organization = await findOrganizationBySlug(await db(), named);
    return organization ? { kind: "token", organizationId: organization.id, organizationSlug: organization.slug } : "organization_not_found";
  }
  if (request.headers.get("authorization")) return "unauthenticated";
  if (!request.headers.get("cookie")) return "unauthenticated";
  if (!["GET", "HEAD"].includes(request.method) && !authTrustedOrigins().includes(request.headers.get("origin") ?? "")) return "cross_site";
  // better-auth is loaded by the first request that carries a session cookie: loading it costs about a
  // second of CPU, which a process that only ever sees bearer tokens never pays.
  const { getAuth, validSession } = await import("@/lib/auth/auth");
  const session = await validSession(await getAuth(), request.headers);
  if (!session) return "unauthenticated";
  const client = await db();
  const organization = named === undefined ? { id: DEFAULT_ORGANIZATION.id, slug: DEFAULT_ORGANIZATION.slug } : await findOrganizationBySlug(client, named);
  if (!organization) return "organization_not_found";
  const role = await membershipRole(client, session.user.id, organization.id);
  if (role === null) return "organization_not_found";
  if (!isRole(role) || !can(role, permission)) return "forbidden";
  return { kind: "user", userId: session.user.id, email: session.user.email, role, organizationId: organization.id, organizationSlug: organization.slug };
}

/**
 * Who makes an API key through `POST /api/api-keys`, from its caller (lib/auth/api-keys.ts
 * `createOrganizationApiKey`): the operator makes ownerless keys of any role; a person or a key makes
 * keys owned by that person (or ownerless, for a key the operator made), never above its own role.
 */
export function keyCreatorOf(caller: ApiCaller): KeyCreator {
  const actor = apiActor(caller);
  if (caller.kind === "token") return { ...actor, ownerId: null };
  return { ...actor, ownerId: caller.userId, role: caller.role };
}
