import type { RunMode } from "@/lib/config/settings";
import type { Db } from "@/lib/db/client";
import { DEMO_USERS } from "@/lib/demo/demo-accounts";
import { usersWithPublicDemoPasswords } from "@/lib/demo/public-demo-passwords";

/**
 * What forbids serving this database in this run mode, as one issue per problem (naming the user or
 * the variable, never a password). Production: a demo user that still has its public password (a demo
 * database turned into a deployment: anyone could sign in). Demo: any user that is not a demo user (a
 * real database: demo mode would accept payments signed with the public secrets on it).
 * Used by `npm start`, `npm run demo`, a bare `next start` and `npm run receiver`.
 */
export async function databaseModeIssues(db: Db, mode: RunMode): Promise<string[]> {
  if (mode === "production") {
    const exposed = await usersWithPublicDemoPasswords(db);
    return exposed.map((email) => `user ${email} still has its public demo password (README, "Demo users"): delete that user or give it a new password before serving this database in production`);
  }
  const others = await db.user.count({ where: { email: { notIn: DEMO_USERS.map((user) => user.email) } } });
  return others === 0 ? [] : [`DATABASE_URL: the database holds ${others} user${others === 1 ? "" : "s"} besides the demo users: demo mode never serves a real database (its secrets are public); use npm start, or a fresh DATABASE_URL for the demo`];
}
