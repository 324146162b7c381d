import { verifyPassword } from "better-auth/crypto";
import type { Db } from "@/lib/db/client";
import { DEMO_USERS } from "@/lib/demo/demo-accounts";

/**
 * The demo users (README, "Demo users") that still exist with their PUBLIC password, e.g. a demo
 * database that became a deployment. Takes the database; returns their emails (empty when none).
 * Verifies with better-auth's own hasher (scrypt), one check per demo account that exists.
 */
export async function usersWithPublicDemoPasswords(db: Db): Promise<string[]> {
  const users = await db.user.findMany({ where: { email: { in: DEMO_USERS.map((user) => user.email) } }, select: { email: true, accounts: { where: { providerId: "credential" }, select: { password: true } } } });
  const exposed: string[] = [];
  for (const user of users) {
    const demo = DEMO_USERS.find((candidate) => candidate.email === user.email)!;
    for (const account of user.accounts) {
      if (account.password && (await verifyPassword({ hash: account.password, password: demo.password }))) {
        exposed.push(user.email);
        break;
      }
    }
  }
  return exposed.sort();
}
