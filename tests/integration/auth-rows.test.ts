import "@/e2e/support/test-env";
// What anonymous traffic to /api/auth/* may leave in the database, through the route handler Next.js
// calls: a made-up path answers 404 before better-auth runs (each used to add a RateLimit row keyed by
// its path, 200 requests of 10 KB paths added 2 MB); only failed sign-ins are counted per address (a
// success gives its attempt back, so an office behind one address can sign in all at once); the
// retention job deletes buckets whose window is over.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { GET as authGet, POST as authPost } from "@/app/api/auth/[...all]/route";
import { authBaseUrl } from "@/lib/auth/origins";
import { createUserWithPassword } from "@/lib/auth/users";
import { closeDb, db } from "@/lib/db/client";
import { runRetentionIfDue } from "@/lib/retention/retention-schedule";

const BASE = authBaseUrl();
const PASSWORD = "quiet-harbour-lantern-2026";
const EMAIL = "office@rows.test";

function signIn(email: string, password: string, ip: string): Promise<Response> {
  return authPost(new Request(`${BASE}/api/auth/sign-in/email`, { method: "POST", body: JSON.stringify({ email, password }), headers: { "content-type": "application/json", origin: BASE, "x-forwarded-for": ip } }));
}

before(async () => {
  assert.equal((await createUserWithPassword(await db(), { email: EMAIL, name: "Office", role: "merchant", password: PASSWORD })).kind, "created");
});
after(closeDb);

describe("rows anonymous traffic can add", () => {
  test("200 anonymous requests to random /api/auth/* paths answer 404 and add no row; known paths other than sign-in add none either", async () => {
    const before = await (await db()).rateLimit.count();
    const statuses = new Map<number, number>();
    // 200: every mix of method and depth many times over; a row per request would show at the first.
    for (let i = 0; i < 200; i++) {
      const path = `/api/auth/${randomBytes(96).toString("hex")}${i}${i % 3 === 0 ? "/deeper" : ""}`;
      const request = new Request(`${BASE}${path}`, i % 2 === 0 ? { method: "POST", body: "{}", headers: { "content-type": "application/json", origin: BASE, "x-forwarded-for": "203.0.113.9" } } : { headers: { "x-forwarded-for": "203.0.113.9" } });
      const response = await (i % 2 === 0 ? authPost(request) : authGet(request));
      await response.arrayBuffer();
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    }
    assert.deepEqual([...statuses], [[404, 200]]);
    for (const path of ["/api/auth/get-session", "/api/auth/ok", "/api/auth/list-sessions"]) {
      for (let i = 0; i < 20; i++) await (await authGet(new Request(`${BASE}${path}`, { headers: { "x-forwarded-for": "203.0.113.9" } }))).arrayBuffer();
    }
    for (let i = 0; i < 20; i++) await (await authPost(new Request(`${BASE}/api/auth/sign-out`, { method: "POST", body: "{}", headers: { "content-type": "application/json", origin: BASE, "x-forwarded-for": "203.0.113.9" } }))).arrayBuffer();
    assert.equal((await (await db()).rateLimit.count()) - before, 0);
    // The one bucket an address can have from outside: its failed sign-ins.
    for (let i = 0; i < 3; i++) assert.equal((await signIn("nobody@rows.test", "wrong-password-1", "203.0.113.9")).status, 401);
    assert.deepEqual(await (await db()).rateLimit.findMany({ where: { key: { startsWith: "203.0.113.9|" } }, select: { key: true, count: true } }), [{ key: "203.0.113.9|/sign-in/email", count: 3 }]);
  });

  test("10 successful sign-ins from one address within a minute all succeed (200); failures still reach the per-address limit (5, then 429 even for the right password)", async () => {
    const ip = "198.51.100.77";
    const successes: number[] = [];
    for (let i = 0; i < 10; i++) successes.push((await signIn(EMAIL, PASSWORD, ip)).status);
    assert.deepEqual(successes, Array(10).fill(200));
    const bucket = () => db().then((client) => client.rateLimit.findUnique({ where: { key: `${ip}|/sign-in/email` }, select: { count: true } }));
    assert.equal((await bucket())?.count, 0);
    // Failures on accounts that do not exist, so the per-account lockout plays no part.
    const failures: number[] = [];
    const firstFailureAt = Date.now();
    for (let i = 0; i < 6; i++) failures.push((await signIn(`nobody${i}@rows.test`, "wrong-password-1", ip)).status);
    assert.deepEqual(failures, [401, 401, 401, 401, 401, 429]);
    const refused = await signIn(EMAIL, PASSWORD, ip);
    assert.equal(refused.status, 429);
    // The window opened at the first failure: what is left of its 60 s, whatever this machine's load made the failures take.
    const retryAfter = Number(refused.headers.get("x-retry-after"));
    const elapsedSeconds = Math.ceil((Date.now() - firstFailureAt) / 1000);
    assert.ok(retryAfter <= 60 && retryAfter >= 60 - elapsedSeconds - 1, `x-retry-after ${retryAfter} after ${elapsedSeconds} s`);
    assert.equal((await bucket())?.count, 5);
    // Another address is not held back by this one's failures.
    assert.equal((await signIn(EMAIL, PASSWORD, "198.51.100.78")).status, 200);
  });

  test("20 failed sign-ins at once from one address: exactly 5 are checked (401), 15 refused (429); the bucket holds 5", async () => {
    const ip = "198.51.100.90";
    const statuses = await Promise.all(Array.from({ length: 20 }, (_, i) => signIn(`parallel${i}@rows.test`, "wrong-password-1", ip).then((response) => response.status)));
    assert.deepEqual([statuses.filter((status) => status === 401).length, statuses.filter((status) => status === 429).length], [5, 15]);
    assert.equal((await (await db()).rateLimit.findUnique({ where: { key: `${ip}|/sign-in/email` } }))?.count, 5);
  });

  test("the retention job deletes the rate-limit rows whose window is over and keeps the others", async () => {
    const client = await db();
    await client.rateLimit.deleteMany({});
    const now = new Date("2026-11-02T12:00:00Z");
    // AUTH_LOGIN_WINDOW_SECONDS is 60 here: the longest window of any bucket.
    await client.rateLimit.createMany({
      data: [
        { key: "192.0.2.1|/sign-in/email", count: 5, lastRequest: BigInt(now.getTime() - 61_000) },
        { key: "192.0.2.2|/change-password", count: 1, lastRequest: BigInt(now.getTime() - 3_600_000) },
        { key: "192.0.2.3|/sign-in/email", count: 2, lastRequest: BigInt(now.getTime() - 59_000) },
        { key: "192.0.2.4|/change-password", count: 3, lastRequest: BigInt(now.getTime() - 1_000) },
      ],
    });
    const report = await runRetentionIfDue(client, { now });
    assert.deepEqual(report?.rateLimits, { rateLimitCutoff: "2026-11-02T11:59:00.000Z", rateLimitsDeleted: 2, dryRun: false });
    assert.deepEqual((await client.rateLimit.findMany({ orderBy: { key: "asc" }, select: { key: true } })).map((row) => row.key), ["192.0.2.3|/sign-in/email", "192.0.2.4|/change-password"]);
  });
});
