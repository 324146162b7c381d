import { randomUUID } from "node:crypto";
import { hashPassword } from "better-auth/crypto";
import { z } from "zod";
import { assertCan, roleSchema, type Actor, type Role } from "@/lib/auth/roles";
import { recordAudit } from "@/lib/audit/record-audit";
import type { Db } from "@/lib/db/client";
import { uniqueViolationFields } from "@/lib/db/errors";

/** A new dashboard user: password 10..128 characters (better-auth's limits as configured in auth.ts). */
export const newUserSchema = z.object({
  email: z.email().max(254).transform((value) => value.toLowerCase()),
  name: z.string().trim().min(1).max(100),
  role: roleSchema,
  password: z.string().min(10).max(128),
});
export type NewUser = z.infer<typeof newUserSchema>;

/** A user as the admin page lists it (never the password hash). */
export interface UserView {
  id: string;
  email: string;
  name: string;
  role: string;
  createdAt: Date;
}

/**
 * Creates a user with an email-and-password credential, hashed by better-auth's own hasher (scrypt) so
 * its sign-in verifies it. Returns the user, or `exists` when the email is taken (UNIQUE, insert first).
 */
export async function createUserWithPassword(db: Db, input: NewUser): Promise<{ kind: "created"; user: UserView } | { kind: "exists" }> {
  const id = randomUUID();
  const hash = await hashPassword(input.password);
  try {
    const user = await db.$transaction(async (tx) => {
      const created = await tx.user.create({ data: { id, email: input.email, name: input.name, role: input.role, emailVerified: true } });
      await tx.account.create({ data: { id: randomUUID(), accountId: id, providerId: "credential", userId: id, password: hash } });
      return created;
    });
    return { kind: "created", user: { id: user.id, email: user.email, name: user.name, role: user.role, createdAt: user.createdAt } };
  } catch (error) {
    if (uniqueViolationFields(error)?.includes("email")) return { kind: "exists" };
    throw error;
  }
}

/** Lists users by email (admin page). */
export async function listUsers(db: Db): Promise<UserView[]> {
  return db.user.findMany({ orderBy: { email: "asc" }, take: 500, select: { id: true, email: true, name: true, role: true, createdAt: true } });
}

/** Admin creates a user: checks `users.manage`, writes an audit row. Throws ForbiddenError. */
export async function createUserAs(db: Db, actor: Actor, input: NewUser) {
  assertCan(actor, "users.manage");
  const result = await createUserWithPassword(db, input);
  if (result.kind === "created") {
    await recordAudit(db, actor, { action: "user.create", targetType: "user", targetId: result.user.id, note: `${input.email} as ${input.role}` });
  }
  return result;
}

/**
 * Admin changes a user's role: checks `users.manage`; an admin cannot demote themself (the last way
 * back in would be the database). Returns false when the user does not exist. Throws ForbiddenError.
 */
export async function setUserRoleAs(db: Db, actor: Actor, userId: string, role: Role): Promise<"updated" | "not_found" | "self"> {
  assertCan(actor, "users.manage");
  if (userId === actor.id && role !== "admin") return "self";
  const { count } = await db.user.updateMany({ where: { id: userId }, data: { role } });
  if (count === 0) return "not_found";
  await recordAudit(db, actor, { action: "user.role", targetType: "user", targetId: userId, note: `role ${role}` });
  return "updated";
}
