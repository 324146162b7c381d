import { TEST_DB } from "../support/test-env";
// Red team: a demo database turned into a deployment, served by a bare `next start` in production.
//
// `npm start` refuses a production database whose demo users still have their public passwords
// (scripts/start.ts:96, usersWithPublicDemoPasswords). The README says a bare `next start` gets the
// same checks as `npm start` ("Demo and production"; instrumentation.ts), and the Security model says
// nobody can "use the public ... passwords (refused at start ...)". But instrumentation.ts:7-13 only
// runs checkServerConfiguration: no demo-password check. A bare `next start` (a Dockerfile CMD, a
// systemd unit, a PaaS start command) on the database `npm run demo` seeded serves the dashboard, and
// anyone signs in as admin@acredita.test / admin-demo-2026 (README, "Demo users").
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { closeDb, db } from "@/lib/db/client";
import { DEMO_USERS, seedDemoUsers } from "@/lib/demo/demo-users";
import { startServer, type RunningServer } from "../support/server";

const BASE = "http://127.0.0.1:3000";
const admin = DEMO_USERS.find((user) => user.role === "admin")!;
let server: RunningServer | undefined;
let startError: unknown;

before(async () => {
  // What `npm run demo` left in the database.
  assert.deepEqual(await seedDemoUsers(await db(), { mode: "demo" }), { created: 3 });
  await closeDb();
  try {
    // Production (ACREDITA_MODE unset), the operator's own strong secrets, no demo value anywhere.
    server = await startServer({
      DATABASE_URL: TEST_DB.url,
      ACREDITA_MODE: "",
      AUTH_SECRET: "redteam-auth-secret-0123456789abcdef-0123",
      API_TOKEN: "redteam-operator-token-0123456789abcdef",
      AUTH_BASE_URL: BASE,
    });
  } catch (error) {
    startError = error;
  }
});
after(async () => {
  await server?.stop();
});

test("a bare `next start` in production does not let anyone sign in with a public demo password", async () => {
  if (!server) {
    assert.ok(startError, "refused to start");
    return; // refusing to start on such a database is a fix
  }
  const response = await fetch(`${server.url}/api/auth/sign-in/email`, {
    method: "POST",
    body: JSON.stringify({ email: admin.email, password: admin.password }),
    headers: { "content-type": "application/json", origin: BASE },
  });
  const cookie = response.headers.getSetCookie().find((value) => value.includes("session_token="));
  let ordersStatus: number | undefined;
  if (cookie) ordersStatus = (await fetch(`${server.url}/api/orders`, { headers: { cookie: cookie.split(";")[0] } })).status;
  assert.deepEqual(
    { signIn: response.status, session: Boolean(cookie), orders: ordersStatus },
    { signIn: 401, session: false, orders: undefined },
    "signed in as the demo admin with its public password on a production server",
  );
});
