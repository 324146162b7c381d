import { TEST_DB } from "../support/test-env";
// slow-test: the access rules of every route and action against the built server over real HTTP
// Access that can be granted, limited and revoked, tried as an attacker would against the BUILT server
// (`next start`, real sockets): deactivation, demotion and a password change kill the user's other
// sessions; a session dies at its absolute lifetime; per-user API keys act with their owner's role and
// die when revoked, expired or their owner is deactivated; X-Forwarded-For cannot dodge the per-IP limit
// unless it comes from a trusted proxy; an account locks after repeated failures, even for the right
// password; weak passwords are refused with the reason; the admin plugin's HTTP endpoints are closed.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createApiKeyAs, revokeApiKeyAs } from "@/lib/auth/api-keys";
import { getAuth } from "@/lib/auth/auth";
import { adminCalls, createUserWithPassword, setUserActiveAs, setUserRoleAs } from "@/lib/auth/users";
import { closeDb, db } from "@/lib/db/client";
import { ensureBuilt } from "../support/real-server";
import { startServer, type RunningServer } from "../support/server";
import { storedText } from "../support/test-database";

// 32+ characters each (the production rule); the test process and both servers share the session secret,
// so the admin plugin, called here with an admin's cookie, accepts that cookie.
const AUTH_SECRET = "access-control-test-auth-secret-0123456789";
const API_TOKEN = "access-control-test-operator-token-0123456789";
const ORIGIN = "http://access-control.test.invalid";
process.env.AUTH_SECRET = AUTH_SECRET;
process.env.API_TOKEN = API_TOKEN;
process.env.AUTH_TRUSTED_ORIGINS = ORIGIN;
// Read by the settings on first use (in before()), after test-env's defaults.

/** Direct: no TRUSTED_PROXIES (the socket address is the client), 5 sign-ins a minute per client. */
let direct: RunningServer;
/** Behind proxies: 127.0.0.1 and 10.0.0.0/8 trusted, a high per-IP limit so the lockout is what is seen. */
let proxied: RunningServer;

const PASSWORD = "quiet-harbour-lantern-2026";
const users: Record<"admin" | "admin2" | "merchant" | "support" | "victim" | "locked" | "changer" | "old", { id: string; email: string }> = {} as never;

async function signIn(server: RunningServer, email: string, password: string, forwardedFor?: string): Promise<Response> {
  return fetch(`${server.url}/api/auth/sign-in/email`, {
    method: "POST",
    body: JSON.stringify({ email, password }),
    headers: { "content-type": "application/json", origin: ORIGIN, ...(forwardedFor ? { "x-forwarded-for": forwardedFor } : {}) },
  });
}

let hop = 0;
/** A session cookie for `email` on the proxied server, each from its own client address. */
async function cookieOf(email: string, password = PASSWORD): Promise<string> {
  hop += 1;
  const response = await signIn(proxied, email, password, `203.0.113.${hop}`);
  assert.equal(response.status, 200, `sign-in ${email}: ${await response.clone().text()}`);
  const cookie = response.headers.getSetCookie().find((value) => value.includes("session_token="));
  assert.ok(cookie);
  return cookie.split(";")[0];
}

function getOrders(server: RunningServer, headers: Record<string, string>): Promise<number> {
  return fetch(`${server.url}/api/orders`, { headers }).then(async (response) => (await response.arrayBuffer(), response.status));
}

function postOrder(server: RunningServer, id: string, headers: Record<string, string>): Promise<number> {
  return fetch(`${server.url}/api/orders`, { method: "POST", body: JSON.stringify({ id, amount: 1_000, currency: "ARS" }), headers: { "content-type": "application/json", ...headers } }).then(
    async (response) => (await response.arrayBuffer(), response.status),
  );
}

const adminActor = () => ({ ...users.admin, name: "Admin", role: "admin" as const, organizationId: "org_default" });

before(async () => {
  ensureBuilt();
  const client = await db();
  for (const [key, role] of [["admin", "admin"], ["admin2", "admin"], ["merchant", "merchant"], ["support", "support"], ["victim", "support"], ["locked", "merchant"], ["changer", "merchant"], ["old", "merchant"]] as const) {
    const created = await createUserWithPassword(client, { email: `${key}@access.test`, name: key, role, password: PASSWORD });
    assert.equal(created.kind, "created");
    if (created.kind === "created") users[key] = { id: created.user.id, email: created.user.email };
  }
  const common = { DATABASE_URL: TEST_DB.url, AUTH_SECRET, API_TOKEN, AUTH_TRUSTED_ORIGINS: ORIGIN, INBOX_WORKER_IN_PROCESS: "false", OUTBOX_DISPATCHER_ENABLED: "false" };
  [direct, proxied] = await Promise.all([
    startServer({ ...common, AUTH_LOGIN_MAX_ATTEMPTS: "5", AUTH_LOGIN_WINDOW_SECONDS: "60" }),
    startServer({ ...common, TRUSTED_PROXIES: "127.0.0.1,10.0.0.0/8", AUTH_LOGIN_MAX_ATTEMPTS: "1000" }),
  ]);
});

after(async () => {
  await Promise.all([direct?.stop(), proxied?.stop()]);
  await closeDb();
});

describe("sessions end when access changes", () => {
  test("no one reaches the password-strength check without a session: the reset endpoints are closed (404), a change without a session is 401", async () => {
    // The check costs CPU (zxcvbn): before, both answered 400 WEAK_PASSWORD to anyone, after running it on the body.
    // From an address of its own: the change-password limit (3 per 10 s per address) belongs to the next test.
    const post = (path: string, body: unknown) => fetch(`${proxied.url}${path}`, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json", origin: ORIGIN, "x-forwarded-for": "203.0.113.250" } });
    const reset = await post("/api/auth/reset-password", { newPassword: "password1234", token: "x" });
    assert.equal(reset.status, 404);
    const requested = await post("/api/auth/request-password-reset", { email: users.merchant.email });
    assert.equal(requested.status, 404);
    const change = await post("/api/auth/change-password", { currentPassword: "x", newPassword: "password1234" });
    assert.equal(change.status, 401);
    assert.notEqual(((await change.json()) as { code?: string }).code, "WEAK_PASSWORD");
  });

  test("deactivating a user kills their session at once (401), refuses their sign-in (403) and reactivating lets them back", async () => {
    const admin = await cookieOf(users.admin.email);
    const victim = await cookieOf(users.victim.email);
    assert.equal(await getOrders(proxied, { cookie: victim }), 200);
    const calls = adminCalls(await getAuth(), new Headers({ cookie: admin }));
    assert.equal(await setUserActiveAs(await db(), adminActor(), calls, users.victim.id, false), "updated");
    assert.equal(await getOrders(proxied, { cookie: victim }), 401);
    assert.equal(await (await db()).session.count({ where: { userId: users.victim.id } }), 0);
    const refused = await signIn(proxied, users.victim.email, PASSWORD, "203.0.113.200");
    assert.equal(refused.status, 403);
    assert.equal(((await refused.json()) as { code: string }).code, "BANNED_USER");
    // A deactivated admin cannot deactivate themself, and an admin cannot deactivate themself either.
    assert.equal(await setUserActiveAs(await db(), adminActor(), calls, users.admin.id, false), "self");
    assert.equal(await setUserActiveAs(await db(), adminActor(), calls, users.victim.id, true), "updated");
    assert.equal((await signIn(proxied, users.victim.email, PASSWORD, "203.0.113.201")).status, 200);
    const audit = await (await db()).auditEntry.findMany({ where: { targetId: users.victim.id }, orderBy: { at: "asc" }, select: { action: true, actorEmail: true } });
    assert.deepEqual(audit, [
      { action: "user.deactivate", actorEmail: users.admin.email },
      { action: "user.reactivate", actorEmail: users.admin.email },
    ]);
  });

  test("demoting an admin ends their sessions: the old cookie can no longer create orders, or anything (401)", async () => {
    const admin = await cookieOf(users.admin.email);
    const admin2 = await cookieOf(users.admin2.email);
    assert.equal(await postOrder(proxied, "ord_ac_before_demotion", { cookie: admin2, origin: ORIGIN }), 201);
    const calls = adminCalls(await getAuth(), new Headers({ cookie: admin }));
    assert.equal(await setUserRoleAs(await db(), adminActor(), calls, users.admin2.id, "merchant"), "updated");
    assert.equal(await postOrder(proxied, "ord_ac_after_demotion", { cookie: admin2, origin: ORIGIN }), 401);
    assert.equal(await getOrders(proxied, { cookie: admin2 }), 401);
    assert.equal((await (await db()).user.findUniqueOrThrow({ where: { id: users.admin2.id } })).role, "merchant");
    // Signed in again, the demoted user is a merchant: reading yes, creating no.
    const again = await cookieOf(users.admin2.email);
    assert.equal(await postOrder(proxied, "ord_ac_after_demotion", { cookie: again, origin: ORIGIN }), 403);
  });

  test("a password change ends the user's other sessions; the session that changed it goes on", async () => {
    const laptop = await cookieOf(users.changer.email);
    const phone = await cookieOf(users.changer.email);
    const change = (cookie: string, currentPassword: string, newPassword: string) =>
      fetch(`${proxied.url}/api/auth/change-password`, {
        method: "POST",
        body: JSON.stringify({ currentPassword, newPassword, revokeOtherSessions: false }),
        headers: { "content-type": "application/json", origin: ORIGIN, cookie },
      });
    const weak = await change(laptop, PASSWORD, "password1234");
    assert.equal(weak.status, 400);
    assert.deepEqual(await weak.json(), {
      code: "WEAK_PASSWORD",
      message: "password too weak (strength 1 of 4, 3 needed): This is similar to a commonly used password. Add more words that are less common.",
      reason: { code: "password_too_weak_because", params: { score: 1, needed: 3, tips: "warnings.similarToCommon suggestions.anotherWord", details: "This is similar to a commonly used password. Add more words that are less common." } },
    });
    const short = await change(laptop, PASSWORD, "Xy7#short");
    assert.equal(((await short.json()) as { message: string }).message, "password too short: at least 12 characters");
    assert.equal(await getOrders(proxied, { cookie: phone }), 200, "a refused change ends nothing");
    // The client asks to keep its other sessions; the server ends them anyway.
    const changed = await change(laptop, PASSWORD, "velvet-compass-orchard-2026");
    assert.equal(changed.status, 200);
    const fresh = changed.headers.getSetCookie().find((value) => value.includes("session_token="))!.split(";")[0];
    assert.equal(await getOrders(proxied, { cookie: phone }), 401);
    assert.equal(await getOrders(proxied, { cookie: fresh }), 200);
    assert.equal(await (await db()).session.count({ where: { userId: users.changer.id } }), 1);
    // Audited once, for the change that happened (the refused ones wrote nothing), never with the password.
    const audits = await (await db()).auditEntry.findMany({ where: { action: "user.password_change" } });
    assert.deepEqual(audits.map((row) => [row.actorEmail, row.targetType, row.targetId, row.note]), [[users.changer.email, "user", users.changer.id, `${users.changer.email} changed their password; their other sessions ended`]]);
    assert.equal((await signIn(proxied, users.changer.email, PASSWORD, "203.0.113.210")).status, 401);
    assert.equal((await signIn(proxied, users.changer.email, "velvet-compass-orchard-2026", "203.0.113.211")).status, 200);
  });

  test("a session older than SESSION_MAX_AGE_DAYS (7) is dead even while in use, and deleted", async () => {
    const cookie = await cookieOf(users.old.email);
    assert.equal(await getOrders(proxied, { cookie }), 200);
    const client = await db();
    await client.session.updateMany({ where: { userId: users.old.id }, data: { createdAt: new Date(Date.now() - 7 * 86_400_000 - 60_000) } });
    assert.equal(await getOrders(proxied, { cookie }), 401);
    assert.equal(await client.session.count({ where: { userId: users.old.id } }), 0);
    const page = await fetch(`${proxied.url}/orders`, { headers: { cookie }, redirect: "manual" });
    assert.equal(page.status, 307);
    assert.match(page.headers.get("location") ?? "", /^\/sign-in/);
  });

  test("the admin plugin's own HTTP endpoints are closed, even to an admin (404)", async () => {
    const admin = await cookieOf(users.admin.email);
    for (const [path, body] of [
      ["/api/auth/admin/set-role", { userId: users.merchant.id, role: "admin" }],
      ["/api/auth/admin/create-user", { email: "sneaky@access.test", password: "weak", name: "S", role: "admin" }],
      ["/api/auth/admin/impersonate-user", { userId: users.merchant.id }],
      ["/api/auth/admin/ban-user", { userId: users.merchant.id }],
    ] as const) {
      const response = await fetch(`${proxied.url}${path}`, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json", origin: ORIGIN, cookie: admin } });
      assert.equal(response.status, 404, path);
    }
    const listed = await fetch(`${proxied.url}/api/auth/admin/list-users`, { headers: { origin: ORIGIN, cookie: admin } });
    assert.equal(listed.status, 404);
    assert.equal((await (await db()).user.findUniqueOrThrow({ where: { id: users.merchant.id } })).role, "merchant");
    assert.equal(await (await db()).user.count({ where: { email: "sneaky@access.test" } }), 0);
  });
});

describe("per-user API keys", () => {
  test("a key acts with its owner's role: a merchant's key reads (200) but cannot create orders (403); an admin's creates (201)", async () => {
    const client = await db();
    const merchantKey = await createApiKeyAs(client, adminActor(), { userId: users.merchant.id, name: "shop reader", days: 30 });
    const adminKey = await createApiKeyAs(client, adminActor(), { userId: users.admin.id, name: "shop backend", days: 30 });
    assert.ok(merchantKey.kind === "created" && adminKey.kind === "created");
    assert.match(merchantKey.key, /^acr_[A-Za-z0-9_-]{43}$/);
    const asMerchant = { authorization: `Bearer ${merchantKey.key}` };
    const asAdmin = { authorization: `Bearer ${adminKey.key}` };
    assert.equal(await getOrders(direct, asMerchant), 200);
    assert.equal(await postOrder(direct, "ord_ac_by_merchant_key", asMerchant), 403);
    assert.equal(await postOrder(direct, "ord_ac_by_admin_key", asAdmin), 201);
    assert.equal(await fetch(`${direct.url}/api/metrics`, { headers: asMerchant }).then((response) => response.status), 403);
    assert.equal(await fetch(`${direct.url}/api/metrics`, { headers: asAdmin }).then((response) => response.status), 200);
    // Reconciliation through a key is audited with the key's owner as actor.
    const run = await fetch(`${direct.url}/api/reconciliations?source=nightly`, { method: "POST", body: "order_id,provider_status,amount,currency\n", headers: { ...asMerchant, "content-type": "text/csv" } });
    assert.equal(run.status, 202, await run.clone().text());
    const audit = await client.auditEntry.findFirstOrThrow({ where: { action: "reconciliation.run" }, orderBy: { at: "desc" } });
    assert.equal(audit.actorEmail, users.merchant.email);
    assert.match(audit.note ?? "", /^nightly: queued, 41 bytes \(API, API key acr_\S{6}…\)$/);
    // Hashed at rest: the database holds the SHA-256, never the key; the last use is recorded.
    const row = await client.apiKey.findUniqueOrThrow({ where: { id: merchantKey.view.id } });
    assert.notEqual(row.keyHash, merchantKey.key);
    assert.equal(row.start, merchantKey.key.slice(0, 10));
    assert.ok(row.lastUsedAt && Date.now() - row.lastUsedAt.getTime() < 60_000);
    assert.equal((await storedText(TEST_DB)).includes(merchantKey.key.slice(10)), false, "no stored copy of the key");
  });

  test("a revoked key, an expired key, a deactivated owner's key (also once the owner is reactivated) and a made-up key are all 401", async () => {
    const client = await db();
    const make = async (userId: string, name: string) => {
      const created = await createApiKeyAs(client, adminActor(), { userId, name, days: 30 });
      assert.equal(created.kind, "created");
      return created.kind === "created" ? created : never();
    };
    const revoked = await make(users.support.id, "to revoke");
    assert.equal(await getOrders(direct, { authorization: `Bearer ${revoked.key}` }), 200);
    assert.equal(await revokeApiKeyAs(client, adminActor(), revoked.view.id), "revoked");
    assert.equal(await getOrders(direct, { authorization: `Bearer ${revoked.key}` }), 401);
    assert.equal(await revokeApiKeyAs(client, adminActor(), revoked.view.id), "not_found");

    const expired = await make(users.support.id, "to expire");
    await client.apiKey.update({ where: { id: expired.view.id }, data: { expiresAt: new Date(Date.now() - 1_000) } });
    assert.equal(await getOrders(direct, { authorization: `Bearer ${expired.key}` }), 401);

    const owned = await make(users.locked.id, "owner deactivated");
    assert.equal(await getOrders(direct, { authorization: `Bearer ${owned.key}` }), 200);
    const admin = await cookieOf(users.admin.email);
    assert.equal(await setUserActiveAs(client, adminActor(), adminCalls(await getAuth(), new Headers({ cookie: admin })), users.locked.id, false), "updated");
    assert.equal(await getOrders(direct, { authorization: `Bearer ${owned.key}` }), 401);
    // Reactivation lets the owner sign in again; their keys stay revoked (deactivation revoked them for good).
    assert.equal(await setUserActiveAs(client, adminActor(), adminCalls(await getAuth(), new Headers({ cookie: admin })), users.locked.id, true), "updated");
    assert.equal(await getOrders(direct, { authorization: `Bearer ${owned.key}` }), 401);
    assert.notEqual((await client.apiKey.findUniqueOrThrow({ where: { id: owned.view.id } })).revokedAt, null);

    assert.equal(await getOrders(direct, { authorization: `Bearer acr_${"A".repeat(43)}` }), 401);
    assert.equal(await getOrders(direct, { authorization: `Bearer ${owned.key.slice(0, -1)}` }), 401);
    assert.equal((await createApiKeyAs(client, adminActor(), { userId: "missing", name: "x", days: 1 })).kind, "not_found");
    const actions = (await client.auditEntry.findMany({ where: { action: { startsWith: "api_key." } }, select: { action: true } })).map((entry) => entry.action);
    assert.deepEqual([actions.filter((action) => action === "api_key.create").length, actions.filter((action) => action === "api_key.revoke").length], [5, 1]);
  });

  test("API_TOKEN stays the operator key; a wrong bearer is 401 even with a valid session cookie beside it", async () => {
    assert.equal(await postOrder(direct, "ord_ac_by_operator", { authorization: `Bearer ${API_TOKEN}` }), 201);
    const merchant = await cookieOf(users.merchant.email);
    assert.equal(await getOrders(direct, { cookie: merchant }), 200);
    assert.equal(await getOrders(direct, { cookie: merchant, authorization: "Bearer not-the-token" }), 401);
  });
});

describe("sign-in throttling", () => {
  test("without TRUSTED_PROXIES a new X-Forwarded-For on every attempt does not dodge the per-IP limit", async () => {
    const statuses: number[] = [];
    for (let attempt = 1; attempt <= 6; attempt++) {
      // Six different accounts, so only the per-IP limit can stop the sixth.
      statuses.push((await signIn(direct, `nobody${attempt}@access.test`, "wrong-password-1", `198.18.0.${attempt}`)).status);
    }
    assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429]);
    const buckets = await (await db()).rateLimit.findMany({ where: { key: { endsWith: "|/sign-in/email" } }, select: { key: true, count: true } });
    assert.deepEqual(buckets.filter((bucket) => bucket.key.startsWith("198.18.")), [], "no bucket for a spoofed address");
    assert.equal(buckets.find((bucket) => bucket.key === "127.0.0.1|/sign-in/email")?.count, 5);
  });

  test("behind trusted proxies the right-most untrusted hop is the client, whatever the client prepends", async () => {
    for (let attempt = 1; attempt <= 3; attempt++) {
      assert.equal((await signIn(proxied, `ghost${attempt}@access.test`, "wrong-password-1", `6.6.6.${attempt}, 198.51.100.77, 10.1.2.3`)).status, 401);
    }
    const bucket = await (await db()).rateLimit.findUnique({ where: { key: "198.51.100.77|/sign-in/email" } });
    assert.equal(bucket?.count, 3);
    assert.equal(await (await db()).rateLimit.count({ where: { key: { startsWith: "6.6.6." } } }), 0);
  });

  test("5 failures lock the account (423 with Retry-After), even for the right password from another address; then the lock doubles", async () => {
    const email = users.locked.email;
    const statuses: number[] = [];
    for (let attempt = 1; attempt <= 5; attempt++) statuses.push((await signIn(proxied, email, `wrong-password-${attempt}`, `192.0.2.${attempt}`)).status);
    assert.deepEqual(statuses, [401, 401, 401, 401, 401]);
    const locked = await signIn(proxied, email, PASSWORD, "192.0.2.99");
    assert.equal(locked.status, 423);
    assert.ok(["59", "60"].includes(locked.headers.get("retry-after") ?? ""), `retry-after ${locked.headers.get("retry-after")}`);
    assert.deepEqual(await locked.json(), { code: "ACCOUNT_LOCKED", message: `this account is locked after repeated failed sign-ins; try again in ${locked.headers.get("retry-after")} s` });
    // The same email in other capitals is the same account.
    assert.equal((await signIn(proxied, email.toUpperCase(), PASSWORD, "192.0.2.100")).status, 423);
    const client = await db();
    const row = await client.loginLockout.findUniqueOrThrow({ where: { email } });
    assert.equal(row.failures, 5);
    // The lock ends (moved into the past here); one more failure locks for twice as long.
    await client.loginLockout.update({ where: { email }, data: { lockedUntil: new Date(Date.now() - 1_000) } });
    assert.equal((await signIn(proxied, email, "wrong-password-6", "192.0.2.6")).status, 401);
    const doubled = await client.loginLockout.findUniqueOrThrow({ where: { email } });
    assert.equal(doubled.failures, 6);
    const seconds = (doubled.lockedUntil!.getTime() - Date.now()) / 1000;
    assert.ok(seconds > 115 && seconds <= 120, `locked for ${seconds} s`);
    // After that lock, the right password signs in and the count starts again.
    await client.loginLockout.update({ where: { email }, data: { lockedUntil: new Date(Date.now() - 1_000) } });
    assert.equal((await signIn(proxied, email, PASSWORD, "192.0.2.7")).status, 200);
    assert.equal(await client.loginLockout.count({ where: { email } }), 0);
  });
});

function never(): never {
  throw new Error("unreachable");
}
