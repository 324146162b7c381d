import type { Role } from "@/lib/auth/roles";

/**
 * The demo users, one per role. Their passwords are PUBLIC (README, "Demo users"): they exist so a
 * fresh clone can be tried, and are created only in demo mode (`npm run demo`).
 */
export const DEMO_USERS: ReadonlyArray<{ email: string; name: string; role: Role; password: string }> = [
  { email: "merchant@acredita.test", name: "Mercedes Merchant", role: "merchant", password: "merchant-demo-2026" },
  { email: "support@acredita.test", name: "Santiago Support", role: "support", password: "support-demo-2026" },
  { email: "admin@acredita.test", name: "Ana Admin", role: "admin", password: "admin-demo-2026" },
];

/**
 * The same three role users with passwords that are NOT public, for the browser tests and the
 * dashboard benchmark: they run a production server, which refuses to serve a database where a demo
 * user still has its public password.
 */
export const TEST_ROLE_USERS: ReadonlyArray<{ email: string; name: string; role: Role; password: string }> = DEMO_USERS.map((user) => ({ ...user, password: `${user.password}-e2e-only` }));
