// The one writer of Membership rows, and of User.role, which mirrors the default organization's
// membership (prisma/schema.prisma says why the column stays: better-auth's admin plugin reads it).
import type { Db, Tx } from "@/lib/db/client";
import { DEFAULT_ORGANIZATION } from "@/lib/organizations/organizations";

/** The role `User.role` holds for a user without a membership in the default organization: the least one. */
export const NO_DEFAULT_MEMBERSHIP_ROLE = "merchant";

/**
 * The role of `userId` in `organizationId` (a role string as stored: the caller checks it against
 * lib/auth/roles.ts), or null when the user is not a member there. One read of the primary key.
 */
export async function membershipRole(db: Db | Tx, userId: string, organizationId: string): Promise<string | null> {
  const row = await db.membership.findUnique({ where: { userId_organizationId: { userId, organizationId } }, select: { role: true } });
  return row?.role ?? null;
}

/**
 * Makes `userId` a member of `organizationId` with `role`, or changes the role of an existing
 * membership; in the default organization it also writes `User.role`, so the mirror better-auth reads
 * stays equal to the membership. Run it in the transaction that creates or changes the user.
 */
export async function setMembership(tx: Db | Tx, userId: string, organizationId: string, role: string, now = new Date()): Promise<void> {
  await tx.membership.upsert({ where: { userId_organizationId: { userId, organizationId } }, create: { userId, organizationId, role, createdAt: now }, update: { role } });
  if (organizationId === DEFAULT_ORGANIZATION.id) await tx.user.update({ where: { id: userId }, data: { role } });
}

/** An organization a user belongs to, as the dashboard's switcher lists it. */
export interface UserOrganization {
  id: string;
  slug: string;
  name: string;
  role: string;
}

/**
 * The organizations `userId` is a member of, with the role there: the default organization first,
 * then by name. One indexed read (Membership by user, joined to Organization).
 */
export async function userOrganizations(db: Db | Tx, userId: string): Promise<UserOrganization[]> {
  const rows = await db.membership.findMany({ where: { userId }, select: { role: true, organization: { select: { id: true, slug: true, name: true } } } });
  return rows
    .map((row) => ({ ...row.organization, role: row.role }))
    .sort((a, b) => (a.id === DEFAULT_ORGANIZATION.id ? -1 : b.id === DEFAULT_ORGANIZATION.id ? 1 : a.name.localeCompare(b.name)));
}
