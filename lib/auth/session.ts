import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { getAuth, validSession } from "@/lib/auth/auth";
import { assertCan, can, ForbiddenError, roleSchema, type Actor, type Permission } from "@/lib/auth/roles";
import { db } from "@/lib/db/client";
import { REQUEST_PATH_HEADER } from "@/lib/http/request-path";
import { membershipRole } from "@/lib/organizations/memberships";
import { DEFAULT_ORGANIZATION } from "@/lib/organizations/organizations";

/**
 * The signed-in user of the current request (server components, server actions, route handlers), or
 * null. The dashboard acts in the default organization for now, so the role is the user's membership
 * role there, read from the database on every request (a changed role applies at once); a user who is
 * not a member there, or holds an unknown role, counts as none. A session past SESSION_MAX_AGE_DAYS is
 * deleted and counts as none. Deduplicated per request (React `cache`).
 */
export const currentActor = cache(async (): Promise<Actor | null> => {
  const auth = await getAuth();
  const session = await validSession(auth, await headers());
  if (!session) return null;
  const role = roleSchema.safeParse(await membershipRole(await db(), session.user.id, DEFAULT_ORGANIZATION.id));
  if (!role.success) return null;
  return { id: session.user.id, email: session.user.email, name: session.user.name, role: role.data, organizationId: DEFAULT_ORGANIZATION.id };
});

/**
 * For pages: the signed-in actor, or a redirect to `/sign-in?next=<the page asked for>` so the user
 * comes back to it, query included. The address is the one proxy.ts saw (REQUEST_PATH_HEADER: the
 * layout cannot know its page's URL otherwise); `next` is used only when that header is absent.
 * The sign-in page checks the value again (safeNextPath) before following it.
 */
export async function requireActor(next?: string): Promise<Actor> {
  const actor = await currentActor();
  if (!actor) {
    const asked = (await headers()).get(REQUEST_PATH_HEADER) ?? next;
    redirect(asked && asked !== "/" ? `/sign-in?next=${encodeURIComponent(asked)}` : "/sign-in");
  }
  return actor;
}

/**
 * For a page's parts (server components below the page): the organization the signed-in actor acts in,
 * or the sign-in redirect. Every read a page makes is scoped to it.
 */
export async function actingOrganizationId(): Promise<string> {
  return (await requireActor()).organizationId;
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
