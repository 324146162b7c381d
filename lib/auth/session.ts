import { headers } from "next/headers";
import { forbidden, notFound, redirect } from "next/navigation";
import { cache } from "react";
import { getAuth, validSession } from "@/lib/auth/auth";
import { assertCan, can, ForbiddenError, roleSchema, type Actor, type Permission } from "@/lib/auth/roles";
import { db } from "@/lib/db/client";
import { REQUEST_PATH_HEADER } from "@/lib/http/request-path";
import { ORGANIZATION_PATH_HEADER, organizationBase, withOrganizationBase } from "@/lib/http/organization-path";
import { membershipRole, userOrganizations } from "@/lib/organizations/memberships";
import { DEFAULT_ORGANIZATION, findOrganizationBySlug } from "@/lib/organizations/organizations";

/** Where the signed-in user stands in the organization the address names (see {@link currentSession}). */
type SessionState =
  | { kind: "signed_out" }
  /** Signed in, but not a member of the organization the address names (or it does not exist). */
  | { kind: "not_member"; userId: string; named: boolean }
  | { kind: "member"; actor: Actor };

/**
 * The signed-in user of the current request and the organization it acts in: the one the dashboard
 * address names (`/o/<slug>/...`, handed over by proxy.ts in ORGANIZATION_PATH_HEADER), else the default
 * organization. The role is the user's membership role there, read from the database on every request
 * (a changed role applies at once). A session past SESSION_MAX_AGE_DAYS is deleted and counts as none.
 * Deduplicated per request (React `cache`).
 */
const currentSession = cache(async (): Promise<SessionState> => {
  const auth = await getAuth();
  const list = await headers();
  const session = await validSession(auth, list);
  if (!session) return { kind: "signed_out" };
  const client = await db();
  const slug = list.get(ORGANIZATION_PATH_HEADER) ?? undefined;
  const organization = slug === undefined ? { id: DEFAULT_ORGANIZATION.id, slug: DEFAULT_ORGANIZATION.slug } : await findOrganizationBySlug(client, slug);
  const role = organization ? roleSchema.safeParse(await membershipRole(client, session.user.id, organization.id)) : undefined;
  if (!organization || !role?.success) return { kind: "not_member", userId: session.user.id, named: slug !== undefined };
  return {
    kind: "member",
    actor: { id: session.user.id, email: session.user.email, name: session.user.name, role: role.data, organizationId: organization.id, organizationSlug: organization.slug },
  };
});

/**
 * The signed-in user of the current request acting in the organization its address names, or null
 * when nobody is signed in or the user is not a member there (a server action then refuses: a forged
 * action posted to another organization's address acts nowhere).
 */
export const currentActor = cache(async (): Promise<Actor | null> => {
  const state = await currentSession();
  return state.kind === "member" ? state.actor : null;
});

/**
 * For pages: the signed-in actor in the organization the address names. Nobody signed in: a redirect
 * to `/sign-in?next=<the page asked for>` so the user comes back to it, query included (the address
 * is the one proxy.ts saw, REQUEST_PATH_HEADER; `next` is used only when that header is absent; the
 * sign-in page checks it again with safeNextPath). Signed in but not a member of the organization the
 * address names: 404, the same as an organization that does not exist, so whether it exists does not
 * leak. Not a member of the default organization, at a short address: a redirect to the same page of
 * the first organization the user belongs to; with none, 403.
 */
export async function requireActor(next?: string): Promise<Actor> {
  const state = await currentSession();
  if (state.kind === "member") return state.actor;
  const asked = (await headers()).get(REQUEST_PATH_HEADER) ?? next;
  if (state.kind === "signed_out") redirect(asked && asked !== "/" ? `/sign-in?next=${encodeURIComponent(asked)}` : "/sign-in");
  if (state.named) notFound();
  const first = (await userOrganizations(await db(), state.userId))[0];
  if (!first) forbidden();
  redirect(withOrganizationBase(organizationBase(first.slug), asked ?? "/orders"));
}

/**
 * For a page's parts (server components below the page): the organization the signed-in actor acts in,
 * or the sign-in redirect. Every read a page makes is scoped to it.
 */
export async function actingOrganizationId(): Promise<string> {
  return (await requireActor()).organizationId;
}

/**
 * For a page's parts: the address prefix of the organization the actor acts in ("" for the default
 * organization, `/o/<slug>` for another: lib/http/organization-path.ts), for links, forms and redirects.
 */
export async function actingOrganizationBase(): Promise<string> {
  return organizationBase((await requireActor()).organizationSlug ?? DEFAULT_ORGANIZATION.slug);
}

/** True when the current actor may do `permission` (pages use it to hide controls; actions re-check). */
export async function actorCan(permission: Permission): Promise<boolean> {
  const actor = await currentActor();
  return actor !== null && can(actor.role, permission);
}

/**
 * For server actions: the signed-in actor holding `permission`. Throws {@link ForbiddenError} when
 * nobody is signed in or the role lacks it: a merchant posting a support action directly gets this.
 */
export async function actorWith(permission: Permission): Promise<Actor> {
  const actor = await currentActor();
  if (!actor) throw new ForbiddenError(permission);
  assertCan(actor, permission);
  return actor;
}
