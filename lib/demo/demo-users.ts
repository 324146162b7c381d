import { createUserWithPassword } from "@/lib/auth/users";
import { runMode, type RunMode } from "@/lib/config/settings";
import type { Db } from "@/lib/db/client";
import { DEMO_USERS } from "@/lib/demo/demo-accounts";

export { DEMO_USERS };

/** Result of {@link seedDemoUsers}: how many were created, or why none were. */
export type DemoUsersResult = { created: number } | { created: 0; skipped: "users_exist" | "production" };

/**
 * Creates the demo users only when the database has no users at all, and only in demo mode
 * (`mode`, default the process's ACREDITA_MODE): production never holds a public password. Tests and
 * benchmarks pass `users` (TEST_ROLE_USERS: the same accounts with private passwords).
 */
export async function seedDemoUsers(db: Db, { mode = runMode(), users = DEMO_USERS }: { mode?: RunMode; users?: typeof DEMO_USERS } = {}): Promise<DemoUsersResult> {
  if (mode !== "demo") return { created: 0, skipped: "production" };
  if ((await db.user.count()) > 0) return { created: 0, skipped: "users_exist" };
  let created = 0;
  for (const user of users) {
    const result = await createUserWithPassword(db, user);
    if (result.kind === "created") created++;
  }
  return { created };
}
