import { randomUUID } from "node:crypto";
import { hashPassword } from "better-auth/crypto";
import { z } from "zod";
import type { Auth } from "@/lib/auth/auth";
import { PASSWORD_MAX_LENGTH, passwordReason } from "@/lib/auth/passwords";
import { assertCan, assertDefaultOrganization, ForbiddenError, roleSchema, type Actor, type Role } from "@/lib/auth/roles";
import { runMode } from "@/lib/config/settings";
import { recordAudit } from "@/lib/audit/record-audit";
import type { Db } from "@/lib/db/client";
import { uniqueViolationFields } from "@/lib/db/errors";
import { membershipRole, NO_DEFAULT_MEMBERSHIP_ROLE, setMembership } from "@/lib/organizations/memberships";
import { DEFAULT_ORGANIZATION } from "@/lib/organizations/organizations";
import { because } from "@/lib/reasons/reason-codes";

/**
 * A new dashboard user. The password must pass lib/auth/passwords.ts (12..128 characters, zxcvbn score
 * 3 or more, not built from the email or name); the issue names the reason.
 */
export const newUserSchema = z
  .object({
    email: z.email().max(254).transform((value) => value.toLowerCase()),
    name: z.string().trim().min(1).max(100),
    role: roleSchema,
    password: z.string().max(PASSWORD_MAX_LENGTH),
  })
  .superRefine((user, context) => {
    const problem = passwordReason(user.password, [user.email, user.name]);
    // The reason rides in params: the dashboard shows it in the reader's language, the CLI its English message.
    if (problem) context.addIssue({ code: "custom", path: ["password"], message: problem.reason, params: { reason: problem.reasonRef } });
  });
export type NewUser = z.infer<typeof newUserSchema>;

/** A user as the admin page lists it (never the password hash). */
export interface UserView {
  id: string;
  email: string;
  name: string;
  role: string;
  createdAt: Date;
  /** Deactivated (better-auth admin plugin `banned`): cannot sign in, no sessions, API keys refused. */
  deactivated: boolean;
  /** Sessions not yet expired. */
  activeSessions: number;
}

/**
 * Creates a user with an email-and-password credential, hashed by better-auth's own hasher (scrypt) so
 * its sign-in verifies it, and a member of `organizationId` (default: the default organization) with
 * `input.role`, all in one transaction. `User.role` mirrors the default organization's membership
 * (lib/organizations/memberships.ts), so a user made in another organization holds "merchant" there.
 * Returns the user (`role`: the role in its organization), or `exists` when the email is taken (UNIQUE,
 * insert first). The organization must exist (the caller resolved it: create-user's `--org`).
 */
export async function createUserWithPassword(db: Db, input: NewUser, options: { organizationId?: string } = {}): Promise<{ kind: "created"; user: UserView } | { kind: "exists" }> {
  const id = randomUUID();
  const hash = await hashPassword(input.password);
  const organizationId = options.organizationId ?? DEFAULT_ORGANIZATION.id;
  try {
    const user = await db.$transaction(async (tx) => {
      const mirrored = organizationId === DEFAULT_ORGANIZATION.id ? input.role : NO_DEFAULT_MEMBERSHIP_ROLE;
      const created = await tx.user.create({ data: { id, email: input.email, name: input.name, role: mirrored, emailVerified: true } });
      await tx.account.create({ data: { id: randomUUID(), accountId: id, providerId: "credential", userId: id, password: hash } });
      await setMembership(tx, id, organizationId, input.role, created.createdAt);
      return created;
    });
    return { kind: "created", user: { id: user.id, email: user.email, name: user.name, role: input.role, createdAt: user.createdAt, deactivated: false, activeSessions: 0 } };
  } catch (error) {
    if (uniqueViolationFields(error)?.includes("email")) return { kind: "exists" };
    throw error;
  }
}

/**
 * The Users page acts in the default organization: it lists and manages that organization's members
 * only, so an admin there never sees, bans or re-roles a user who belongs only to another organization
 * (that user is `not_found`).
 */
function defaultMember(userId?: string) {
  return { ...(userId === undefined ? {} : { id: userId }), memberships: { some: { organizationId: DEFAULT_ORGANIZATION.id } } };
}

/** Lists the default organization's members by email with their live session count (admin page). */
export async function listUsers(db: Db, now = new Date()): Promise<UserView[]> {
  const rows = await db.user.findMany({
    where: defaultMember(),
    orderBy: { email: "asc" },
    take: 500,
    select: { id: true, email: true, name: true, role: true, createdAt: true, banned: true, _count: { select: { sessions: { where: { expiresAt: { gt: now } } } } } },
  });
  return rows.map(({ banned, _count, ...user }) => ({ ...user, deactivated: banned === true, activeSessions: _count.sessions }));
}

/**
 * The better-auth admin plugin's server-side calls, made with the acting admin's request headers (the
 * plugin checks that session's role again). Each one throws the plugin's APIError on refusal.
 */
export interface AdminCalls {
  setRole(userId: string, role: Role): Promise<unknown>;
  ban(userId: string, reason: string): Promise<unknown>;
  unban(userId: string): Promise<unknown>;
  revokeSessions(userId: string): Promise<unknown>;
}

/** {@link AdminCalls} on `auth`'s admin plugin for the request carrying `headers`. */
export function adminCalls(auth: Auth, headers: Headers): AdminCalls {
  return {
    setRole: (userId, role) => auth.api.setRole({ body: { userId, role: role as "admin" }, headers }),
    ban: (userId, reason) => auth.api.banUser({ body: { userId, banReason: reason }, headers }),
    unban: (userId) => auth.api.unbanUser({ body: { userId }, headers }),
    revokeSessions: (userId) => auth.api.revokeUserSessions({ body: { userId }, headers }),
  };
}

/**
 * Admin creates a user: checks `users.manage`, writes an audit row. Returns `demo_mode` and creates
 * nothing while the demo runs (ACREDITA_MODE=demo): a user besides the demo's makes the database look
 * real, and `npm run demo` then refuses it (it never serves a real database with its public secrets).
 * Throws ForbiddenError.
 */
export async function createUserAs(db: Db, actor: Actor, input: NewUser): Promise<{ kind: "created"; user: UserView } | { kind: "exists" } | { kind: "demo_mode" }> {
  assertCan(actor, "users.manage");
  assertDefaultOrganization(actor);
  if (runMode() === "demo") return { kind: "demo_mode" };
  const result = await createUserWithPassword(db, input);
  if (result.kind === "created") {
    await recordAudit(db, actor, { action: "user.create", targetType: "user", targetId: result.user.id, note: because("audit_user_created", { email: input.email, role: input.role }) });
  }
  return result;
}

/**
 * Admin changes a user's role in the default organization (the dashboard acts there for now): the admin
 * plugin's set-role writes `User.role`, then the membership (lib/organizations/memberships.ts), then ends all of that user's sessions so
 * the change holds at once everywhere; audits `user.role`. Checks `users.manage`; an admin cannot
 * demote themself (the last way back in would be the database). Setting the role a user already has
 * changes nothing and ends no session. Throws ForbiddenError.
 */
export async function setUserRoleAs(db: Db, actor: Actor, calls: AdminCalls, userId: string, role: Role): Promise<"updated" | "unchanged" | "not_found" | "self"> {
  assertCan(actor, "users.manage");
  assertDefaultOrganization(actor);
  if (userId === actor.id && role !== "admin") return "self";
  const user = await db.user.findFirst({ where: defaultMember(userId), select: { role: true, email: true } });
  if (!user) return "not_found";
  const current = await membershipRole(db, userId, DEFAULT_ORGANIZATION.id);
  if (current === role && user.role === role) return "unchanged";
  await calls.setRole(userId, role);
  // The membership is what Acredita's checks read; setMembership writes User.role too (the plugin just did).
  await setMembership(db, userId, DEFAULT_ORGANIZATION.id, role);
  await calls.revokeSessions(userId);
  await recordAudit(db, actor, { action: "user.role", targetType: "user", targetId: userId, note: because("audit_user_role", { email: user.email, from: user.role, to: role }) });
  return "updated";
}

/**
 * Admin deactivates a user (the admin plugin's ban: the user cannot sign in, every session is deleted
 * at once, and every API key of theirs is revoked for good) or reactivates one (unban); audits
 * `user.deactivate` / `user.reactivate`. Reactivation restores sign-in only: the admin page promises
 * that a deactivated user's keys stop working, and a key that leaked while its owner was out must not
 * come back with them, so new keys are issued if needed. An admin cannot deactivate themself, nor a
 * person who is also a member of another organization (`shared`): the ban and the key revocation would
 * lock them out of that organization too, whose books this page does not manage.
 * Throws ForbiddenError.
 */
export async function setUserActiveAs(db: Db, actor: Actor, calls: AdminCalls, userId: string, active: boolean, now = new Date()): Promise<"updated" | "not_found" | "self" | "shared"> {
  assertCan(actor, "users.manage");
  assertDefaultOrganization(actor);
  if (userId === actor.id) return "self";
  const user = await db.user.findFirst({ where: defaultMember(userId), select: { email: true } });
  if (!user) return "not_found";
  if (!active && (await db.membership.count({ where: { userId, organizationId: { not: DEFAULT_ORGANIZATION.id } } })) > 0) return "shared";
  if (active) await calls.unban(userId);
  else {
    await calls.ban(userId, `deactivated by ${actor.email}`);
    // Revoked rather than only refused while banned (lib/auth/api-keys.ts checks both): unbanning must not revive them.
    await db.apiKey.updateMany({ where: { userId, revokedAt: null }, data: { revokedAt: now } });
  }
  await recordAudit(db, actor, { action: active ? "user.reactivate" : "user.deactivate", targetType: "user", targetId: userId, note: user.email });
  return "updated";
}

/** Admin ends every session of a user (the admin plugin's revoke-user-sessions); audits `user.sessions_revoke`. */
export async function revokeUserSessionsAs(db: Db, actor: Actor, calls: AdminCalls, userId: string): Promise<"revoked" | "not_found"> {
  assertCan(actor, "users.manage");
  assertDefaultOrganization(actor);
  const user = await db.user.findFirst({ where: defaultMember(userId), select: { email: true } });
  if (!user) return "not_found";
  await calls.revokeSessions(userId);
  await recordAudit(db, actor, { action: "user.sessions_revoke", targetType: "user", targetId: userId, note: user.email });
  return "revoked";
}
