import "@/e2e/support/test-env";
// Deactivating a user revokes their API keys for good: the admin page says they stop working, and
// reactivating the user (to let them sign in again) must not bring back a key that may have leaked
// while they were out. The admin plugin's ban and unban are stood in for by what they write (User.banned).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import * as ordersRoute from "@/app/api/orders/route";
import { createApiKeyAs } from "@/lib/auth/api-keys";
import { createUserWithPassword, setUserActiveAs, type AdminCalls } from "@/lib/auth/users";
import { closeDb, db } from "@/lib/db/client";

const admin = { id: "admin-deactivation", email: "admin@deactivation.test", name: "Admin", role: "admin" as const, organizationId: "org_default" };
let owner: { id: string; email: string };

/** The better-auth admin plugin's ban and unban, as they land in the database. */
const calls: AdminCalls = {
  setRole: async () => undefined,
  revokeSessions: async () => undefined,
  ban: async (userId) => (await db()).user.update({ where: { id: userId }, data: { banned: true } }),
  unban: async (userId) => (await db()).user.update({ where: { id: userId }, data: { banned: false } }),
};

async function listOrders(key: string): Promise<number> {
  const response = await ordersRoute.GET(new Request("http://127.0.0.1/api/orders", { headers: { authorization: `Bearer ${key}` } }));
  await response.arrayBuffer();
  return response.status;
}

before(async () => {
  const created = await createUserWithPassword(await db(), { email: "owner@deactivation.test", name: "Owner", role: "merchant", password: "quiet-harbour-lantern-2026" });
  assert.equal(created.kind, "created");
  if (created.kind === "created") owner = created.user;
});
after(closeDb);

describe("deactivation and API keys", () => {
  test("a deactivated user's keys stay refused (401) after reactivation, both revoked; a key issued after reactivation works (200)", async () => {
    const client = await db();
    const keys = await Promise.all(["backend", "reports"].map((name) => createApiKeyAs(client, admin, { userId: owner.id, name, days: 30 })));
    const clear = keys.map((key) => (key.kind === "created" ? key.key : assert.fail("key not created")));
    assert.deepEqual(await Promise.all(clear.map(listOrders)), [200, 200]);

    assert.equal(await setUserActiveAs(client, admin, calls, owner.id, false), "updated");
    assert.deepEqual(await Promise.all(clear.map(listOrders)), [401, 401]);
    assert.equal(await client.apiKey.count({ where: { userId: owner.id, revokedAt: { not: null } } }), 2);

    assert.equal(await setUserActiveAs(client, admin, calls, owner.id, true), "updated");
    assert.deepEqual(await Promise.all(clear.map(listOrders)), [401, 401]);
    assert.equal(await client.apiKey.count({ where: { userId: owner.id, revokedAt: null } }), 0);

    const fresh = await createApiKeyAs(client, admin, { userId: owner.id, name: "after reactivation", days: 30 });
    assert.equal(fresh.kind, "created");
    if (fresh.kind === "created") assert.equal(await listOrders(fresh.key), 200);
  });
});
