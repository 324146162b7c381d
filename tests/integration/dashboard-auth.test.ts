import "@/e2e/support/test-env";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { GET as authGet, POST as authPost } from "@/app/api/auth/[...all]/route";
import { GET as getOrders, POST as postOrders } from "@/app/api/orders/route";
import { GET as getHealth } from "@/app/api/health/route";
import { authBaseUrl, authTrustedOrigins } from "@/lib/auth/origins";
import { readSettings } from "@/lib/config/settings";
import { closeDb, db } from "@/lib/db/client";
import { DEMO_USERS, seedDemoUsers } from "@/lib/demo/demo-users";

const BASE = authBaseUrl();

function signIn(email: string, password: string, { ip = "198.51.100.1", origin = BASE } = {}): Promise<Response> {
  return authPost(new Request(`${BASE}/api/auth/sign-in/email`, { method: "POST", body: JSON.stringify({ email, password }), headers: { "content-type": "application/json", origin, "x-forwarded-for": ip } }));
}

/** The session cookie (name=value) from a sign-in response. */
function sessionCookie(response: Response): string {
  const cookie = response.headers.getSetCookie().find((value) => value.includes("session_token="));
  assert.ok(cookie, "sign-in sets a session cookie");
  assert.match(cookie, /HttpOnly/i);
  assert.match(cookie, /SameSite=Lax/i);
  return cookie.split(";")[0];
}

const demo = (role: string) => DEMO_USERS.find((user) => user.role === role)!;

before(async () => {
  // Production mode: no demo users.
  assert.deepEqual(await seedDemoUsers(await db(), { mode: "production" }), { created: 0, skipped: "production" });
  assert.equal(await (await db()).user.count(), 0);
  assert.deepEqual(await seedDemoUsers(await db(), { mode: "demo" }), { created: 3 });
});
after(closeDb);

describe("sign-in and roles", () => {
  test("demo users are created once, one per role, and only on a database without users", async () => {
    assert.deepEqual(await seedDemoUsers(await db(), { mode: "demo" }), { created: 0, skipped: "users_exist" });
    const users = await (await db()).user.findMany({ orderBy: { email: "asc" }, select: { email: true, role: true } });
    assert.deepEqual(users, [
      { email: "admin@acredita.test", role: "admin" },
      { email: "merchant@acredita.test", role: "merchant" },
      { email: "support@acredita.test", role: "support" },
    ]);
    const accounts = await (await db()).account.findMany({ select: { providerId: true, password: true } });
    assert.equal(accounts.length, 3);
    for (const account of accounts) {
      assert.equal(account.providerId, "credential");
      assert.ok(account.password && !DEMO_USERS.some((user) => account.password!.includes(user.password)), "passwords are stored hashed");
    }
  });

  test("the right password signs in (200, httpOnly cookie), a wrong one is 401, a foreign Origin 403", async () => {
    const ok = await signIn(demo("support").email, demo("support").password, { ip: "198.51.100.2" });
    assert.equal(ok.status, 200);
    sessionCookie(ok);
    assert.equal((await signIn(demo("support").email, "wrong-password", { ip: "198.51.100.3" })).status, 401);
    assert.equal((await signIn(demo("support").email, demo("support").password, { ip: "198.51.100.4", origin: "https://evil.example" })).status, 403);
  });

  test("self sign-up is disabled: no request can create a user or choose a role", async () => {
    const before = await (await db()).user.count();
    const response = await authPost(
      new Request(`${BASE}/api/auth/sign-up/email`, {
        method: "POST",
        body: JSON.stringify({ email: "mallory@evil.example", password: "mallory-password-1", name: "Mallory", role: "admin" }),
        headers: { "content-type": "application/json", origin: BASE, "x-forwarded-for": "198.51.100.5" },
      }),
    );
    assert.equal(response.status, 400);
    assert.equal(await (await db()).user.count(), before);
  });

  test("login attempts are limited per client IP: 5 in the window, the 6th is 429 even with the right password", async () => {
    const ip = "198.51.100.20";
    const statuses: number[] = [];
    const firstFailureAt = Date.now();
    // Failures on an unknown account: the per-IP limit holds across accounts (the per-account lockout is
    // in access-control.test.ts), and the merchant's own account stays unlocked.
    for (let attempt = 0; attempt < 5; attempt++) statuses.push((await signIn("nobody@acredita.test", "wrong-password", { ip })).status);
    assert.deepEqual(statuses, [401, 401, 401, 401, 401]);
    const blocked = await signIn(demo("merchant").email, demo("merchant").password, { ip });
    assert.equal(blocked.status, 429);
    // What is left of the 60 s window opened by the first failure, whatever this machine's load made the failures take.
    const retryAfter = Number(blocked.headers.get("x-retry-after"));
    const elapsedSeconds = Math.ceil((Date.now() - firstFailureAt) / 1000);
    assert.ok(retryAfter <= 60 && retryAfter >= 60 - elapsedSeconds - 1, `x-retry-after ${retryAfter} after ${elapsedSeconds} s`);
    assert.equal((await signIn(demo("merchant").email, demo("merchant").password, { ip: "198.51.100.21" })).status, 200);
    const bucket = await (await db()).rateLimit.findUnique({ where: { key: `${ip}|/sign-in/email` } });
    assert.equal(bucket?.count, 5);
  });

  test("the orders API takes the bearer token or a session; a merchant session may read but not create", async () => {
    assert.equal((await getOrders(new Request(`${BASE}/api/orders`))).status, 401);
    const merchant = sessionCookie(await signIn(demo("merchant").email, demo("merchant").password, { ip: "198.51.100.30" }));
    const read = await getOrders(new Request(`${BASE}/api/orders`, { headers: { cookie: merchant } }));
    assert.equal(read.status, 200);
    const create = (cookie: string, origin: string | null = BASE) =>
      postOrders(
        new Request(`${BASE}/api/orders`, {
          method: "POST",
          body: JSON.stringify({ id: "ord_session", amount: 100, currency: "ARS" }),
          headers: { cookie, "content-type": "application/json", ...(origin ? { origin } : {}) },
        }),
      );
    const byMerchant = await create(merchant);
    assert.deepEqual([byMerchant.status, await byMerchant.json()], [403, { error: "your role does not allow this", code: "forbidden" }]);
    const admin = sessionCookie(await signIn(demo("admin").email, demo("admin").password, { ip: "198.51.100.31" }));
    // A session cookie alone does not let another site (or a request without Origin) create orders; the
    // answer says the origin is the problem, not the role.
    const crossSite = { error: "a change made with a session cookie must come from the dashboard's own origin (Origin header)", code: "cross_site" };
    const fromElsewhere = await create(admin, "https://evil.example");
    assert.deepEqual([fromElsewhere.status, await fromElsewhere.json()], [403, crossSite]);
    const withoutOrigin = await create(admin, null);
    assert.deepEqual([withoutOrigin.status, await withoutOrigin.json()], [403, crossSite]);
    assert.equal((await create(admin)).status, 201);
    assert.equal((await getOrders(new Request(`${BASE}/api/orders`, { headers: { cookie: "better-auth.session_token=forged.value" } }))).status, 401);
    assert.equal((await getHealth()).status, 200);
  });

  test("the session endpoint reports the user's role from the database", async () => {
    const cookie = sessionCookie(await signIn(demo("support").email, demo("support").password, { ip: "198.51.100.40" }));
    const session = (await (await authGet(new Request(`${BASE}/api/auth/get-session`, { headers: { cookie } }))).json()) as { user: { role: string } };
    assert.equal(session.user.role, "support");
  });

  test("trusted origins pair 127.0.0.1 with localhost and add AUTH_TRUSTED_ORIGINS", () => {
    assert.deepEqual(authTrustedOrigins(readSettings({ PORT: "4000" })), ["http://127.0.0.1:4000", "http://localhost:4000"]);
    assert.deepEqual(authTrustedOrigins(readSettings({ AUTH_BASE_URL: "https://pay.example.com", AUTH_TRUSTED_ORIGINS: "https://admin.example.com/x" })), ["https://pay.example.com", "https://admin.example.com"]);
  });
});
