import { TEST_API_TOKEN } from "@/e2e/support/test-env";
// Organizations' access, through the route handlers on the database under test: the operator creates
// organizations (POST /api/orgs) and acts in the one `Acredita-Org` names; an organization's admin key
// (POST /api/api-keys) acts only in its organization; a session user only where they are a member; every
// endpoints route tried with another organization's credentials is 404, and nothing changes; a provider
// account belongs to one organization (409); routes over the books answer with the organization's own books.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import * as apiKeysRoute from "@/app/api/api-keys/route";
import * as endpointsRoute from "@/app/api/endpoints/route";
import * as endpointRoute from "@/app/api/endpoints/[id]/route";
import * as secretsRoute from "@/app/api/endpoints/[id]/secrets/route";
import * as secretRoute from "@/app/api/endpoints/[id]/secrets/[label]/route";
import * as ordersRoute from "@/app/api/orders/route";
import * as orgsRoute from "@/app/api/orgs/route";
import { createApiKeyAs } from "@/lib/auth/api-keys";
import { getAuth } from "@/lib/auth/auth";
import { authTrustedOrigins } from "@/lib/auth/origins";
import { createUserWithPassword, listUsers, revokeUserSessionsAs, setUserActiveAs, setUserRoleAs, type AdminCalls } from "@/lib/auth/users";
import { closeDb, db } from "@/lib/db/client";
import { setMembership } from "@/lib/organizations/memberships";

process.env.ACREDITA_SECRETS_KEY = randomBytes(32).toString("base64");

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response> | Response;
interface Answer {
  status: number;
  json: Record<string, unknown>;
  text: string;
}

const operator = { authorization: `Bearer ${TEST_API_TOKEN}` };
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const PASSWORD = "quiet-harbour-lantern-2026";

/** Calls a route handler as Next.js would, the path's segments as its params. */
async function call(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Answer> {
  const request = new Request(`http://127.0.0.1${path}`, { method, headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const [, , area, id, part, label] = path.split("?")[0].split("/");
  const route = area === "orgs" ? orgsRoute : area === "api-keys" ? apiKeysRoute : area === "orders" ? ordersRoute : part === "secrets" ? (label ? secretRoute : secretsRoute) : id ? endpointRoute : endpointsRoute;
  const handler = (route as unknown as Record<string, Handler>)[method];
  const response = await handler(request, { params: Promise.resolve({ id: id ?? "", label: label ?? "" }) });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {}, text };
}

const ORG_NOT_FOUND = { error: "organization not found: the Acredita-Org header names no organization this caller can act in", code: "not_found" };

const orgs: Record<"acme" | "globex", { id: string; slug: string; name: string }> = {} as never;
const keys: Record<"acme" | "globex" | "acmeMerchant", string> = {} as never;

before(async () => {
  for (const [slug, name] of [
    ["acme", "Acme Payments"],
    ["globex", "Globex"],
  ] as const) {
    const created = await call("POST", "/api/orgs", operator, { slug, name });
    assert.equal(created.status, 201, created.text);
    orgs[slug] = created.json as { id: string; slug: string; name: string };
  }
  for (const [name, slug, role] of [
    ["acme", "acme", "admin"],
    ["globex", "globex", "admin"],
    ["acmeMerchant", "acme", "merchant"],
  ] as const) {
    const created = await call("POST", "/api/api-keys", { ...operator, "acredita-org": slug }, { name: `${name} backend`, role });
    assert.equal(created.status, 201, created.text);
    keys[name] = created.json.key as string;
  }
});
after(closeDb);

describe("organizations and keys", () => {
  test("POST /api/orgs: 201 {id, slug, name}; 409 for a taken slug; 400 for a bad slug; 403 for anyone but the operator", async () => {
    assert.deepEqual(Object.keys(orgs.acme), ["id", "slug", "name"]);
    assert.match(orgs.acme.id, /^org_[a-z0-9]{20}$/);
    assert.deepEqual({ slug: orgs.globex.slug, name: orgs.globex.name }, { slug: "globex", name: "Globex" });
    const taken = await call("POST", "/api/orgs", operator, { slug: "acme", name: "Acme again" });
    assert.deepEqual([taken.status, taken.json], [409, { error: "slug acme is taken by another organization", code: "slug_taken" }]);
    const bad = await call("POST", "/api/orgs", operator, { slug: "Acme Inc", name: "Acme" });
    assert.deepEqual([bad.status, bad.json], [400, { error: "slug: 2 to 40 characters of a-z, 0-9 and -", code: "invalid_body" }]);
    const byKey = await call("POST", "/api/orgs", bearer(keys.acme), { slug: "acme-2", name: "Acme 2" });
    assert.deepEqual([byKey.status, byKey.json.code], [403, "forbidden"]);
    assert.equal(await (await db()).organization.count(), 3);
    const listed = await call("GET", "/api/orgs", operator);
    assert.deepEqual((listed.json.data as { slug: string }[]).map((row) => row.slug), ["default", "acme", "globex"]);
  });

  test("POST /api/api-keys shows the key once and stores its digest; GET lists the organization's keys without secrets", async () => {
    const made = await call("POST", "/api/api-keys", bearer(keys.acme), { name: "acme reports", role: "support", expiresAt: new Date(Date.now() + 7 * 86_400_000).toISOString() });
    assert.equal(made.status, 201, made.text);
    const key = made.json.key as string;
    assert.match(key, /^acr_[A-Za-z0-9_-]{43}$/);
    // Made by acme's operator-made admin key: ownerless like it, support in acme.
    assert.deepEqual([made.json.name, made.json.role, made.json.owner, made.json.start], ["acme reports", "support", null, key.slice(0, 10)]);
    const stored = await (await db()).apiKey.findMany({ where: { organizationId: orgs.acme.id }, select: { keyHash: true, name: true } });
    assert.equal(stored.length, 3);
    assert.ok(stored.every((row) => !row.keyHash.includes(key) && row.keyHash.length === 64));

    const listed = await call("GET", "/api/api-keys", bearer(keys.acme));
    assert.equal(listed.status, 200);
    assert.deepEqual((listed.json.data as { name: string; role: string }[]).map((row) => [row.name, row.role]), [
      ["acme reports", "support"],
      ["acmeMerchant backend", "merchant"],
      ["acme backend", "admin"],
    ]);
    assert.equal(listed.json.count, 3);
    for (const secret of [key, keys.acme, keys.acmeMerchant, keys.globex]) assert.ok(!listed.text.includes(secret));
    assert.ok(!listed.text.includes("keyHash"));
    const globex = await call("GET", "/api/api-keys", bearer(keys.globex));
    assert.deepEqual((globex.json.data as { name: string }[]).map((row) => row.name), ["globex backend"]);

    assert.deepEqual((await call("GET", "/api/api-keys", bearer(keys.acmeMerchant))).status, 403);
    const past = await call("POST", "/api/api-keys", bearer(keys.acme), { name: "late", role: "admin", expiresAt: "2020-01-01T00:00:00Z" });
    assert.deepEqual([past.status, past.json], [400, { error: "expiresAt: must be in the future", code: "invalid_body" }]);
  });

  test("the operator acts in the organization Acredita-Org names (the default one without it); an unknown slug is 404", async () => {
    assert.deepEqual((await call("GET", "/api/api-keys", { ...operator, "acredita-org": "globex" })).json.count, 1);
    const unknown = await call("GET", "/api/endpoints", { ...operator, "acredita-org": "no-such-org" });
    assert.deepEqual([unknown.status, unknown.json], [404, ORG_NOT_FOUND]);
    assert.deepEqual((await call("GET", "/api/api-keys", operator)).json.count, 0);
  });

  test("a key acts only in its organization: Acredita-Org naming another is 404, its own is fine; the books' routes answer with the organization's own books", async () => {
    const other = await call("GET", "/api/endpoints", { ...bearer(keys.acme), "acredita-org": "globex" });
    assert.deepEqual([other.status, other.json], [404, ORG_NOT_FOUND]);
    const unknown = await call("GET", "/api/endpoints", { ...bearer(keys.acme), "acredita-org": "no-such-org" });
    assert.deepEqual([unknown.status, unknown.json], [404, ORG_NOT_FOUND]);
    assert.equal((await call("GET", "/api/endpoints", { ...bearer(keys.acme), "acredita-org": "acme" })).status, 200);
    const orders = await call("GET", "/api/orders", bearer(keys.acme));
    assert.deepEqual([orders.status, orders.json], [200, { data: [], count: 0, nextCursor: null }]);
    assert.deepEqual((await call("GET", "/api/orders", { ...bearer(keys.acme), "acredita-org": "globex" })).json, ORG_NOT_FOUND);
    assert.deepEqual((await call("GET", "/api/orders", { ...operator, "acredita-org": "acme" })).json, { data: [], count: 0, nextCursor: null });
    assert.equal((await call("GET", "/api/orders", operator)).status, 200);
  });
});

describe("endpoints are scoped by organization", () => {
  const endpoints: Record<"acme" | "globex", string> = {} as never;

  before(async () => {
    for (const name of ["acme", "globex"] as const) {
      const created = await call("POST", "/api/endpoints", bearer(keys[name]), { provider: "lab", account: `lab-${name}`, livemode: true });
      assert.equal(created.status, 201, created.text);
      endpoints[name] = created.json.id as string;
    }
  });

  test("every endpoints route tried with the other organization's admin key is 404, and changes nothing", async () => {
    for (const [owner, intruder] of [
      ["acme", "globex"],
      ["globex", "acme"],
    ] as const) {
      const id = endpoints[owner];
      const other = bearer(keys[intruder]);
      const tries: [string, string, unknown?][] = [
        ["GET", `/api/endpoints/${id}`],
        ["PATCH", `/api/endpoints/${id}`, { status: "disabled" }],
        ["POST", `/api/endpoints/${id}/secrets`, { overlapSeconds: 0 }],
        ["DELETE", `/api/endpoints/${id}/secrets/secret-1`],
        ["DELETE", `/api/endpoints/${id}`],
      ];
      for (const [method, path, body] of tries) {
        const answer = await call(method, path, other, body);
        assert.deepEqual([answer.status, answer.json], [404, { error: `endpoint ${id} not found`, code: "not_found" }], `${intruder} ${method} ${path}`);
      }
      // The operator acting in the other organization sees it no more than that organization's key does.
      assert.equal((await call("GET", `/api/endpoints/${id}`, { ...operator, "acredita-org": intruder })).status, 404);
      const listed = await call("GET", "/api/endpoints", other);
      assert.deepEqual((listed.json.data as { id: string }[]).map((row) => row.id), [endpoints[intruder]]);
      // Untouched: enabled, one active secret, not deleted, no audit row by the intruder.
      const mine = await call("GET", `/api/endpoints/${id}`, bearer(keys[owner]));
      assert.deepEqual([mine.status, mine.json.status, (mine.json.secrets as { label: string; state: string }[]).map((secret) => [secret.label, secret.state])], [200, "enabled", [["secret-1", "active"]]]);
    }
    const client = await db();
    assert.deepEqual(await client.endpoint.count({ where: { id: { in: Object.values(endpoints) }, deletedAt: null, status: "enabled" } }), 2);
    assert.deepEqual(await client.endpointSecret.count({ where: { endpointId: { in: Object.values(endpoints) } } }), 2);
    assert.deepEqual(await client.auditEntry.count({ where: { targetId: { in: Object.values(endpoints) } } }), 2);
  });

  test("a provider account belongs to one organization: another's endpoint on it is 409 until the owner deletes its endpoint", async () => {
    const same = { provider: "lab", account: "lab-acme", livemode: true };
    const refused = await call("POST", "/api/endpoints", bearer(keys.globex), same);
    assert.deepEqual([refused.status, refused.json], [409, { error: "account: lab account lab-acme (live) belongs to another organization; an account's events belong to one organization", code: "account_taken" }]);
    // The same account's test mode is another event space; the owner may add a second endpoint on it (a move).
    assert.equal((await call("POST", "/api/endpoints", bearer(keys.globex), { ...same, livemode: false })).status, 201);
    const second = await call("POST", "/api/endpoints", bearer(keys.acme), same);
    assert.equal(second.status, 201);
    assert.equal((await call("POST", "/api/endpoints", { ...operator }, same)).status, 409);
    assert.equal(await (await db()).endpoint.count({ where: { account: "lab-acme", livemode: true } }), 2);
    assert.equal((await call("DELETE", `/api/endpoints/${second.json.id as string}`, bearer(keys.acme))).status, 204);
    assert.equal((await call("DELETE", `/api/endpoints/${endpoints.acme}`, bearer(keys.acme))).status, 204);
    const taken = await call("POST", "/api/endpoints", bearer(keys.globex), same);
    assert.equal(taken.status, 201, taken.text);
    assert.equal(await (await db()).endpoint.count({ where: { account: "lab-acme", livemode: true, deletedAt: null, organizationId: orgs.globex.id } }), 1);
  });
});

describe("people act where they are members, with the membership's role", () => {
  const origin = () => authTrustedOrigins()[0];

  async function signIn(email: string): Promise<string> {
    const response = await (await getAuth()).handler(
      new Request(`${origin()}/api/auth/sign-in/email`, { method: "POST", body: JSON.stringify({ email, password: PASSWORD }), headers: { "content-type": "application/json", origin: origin(), "x-forwarded-for": "198.51.100.41" } }),
    );
    assert.equal(response.status, 200, await response.clone().text());
    return response.headers.getSetCookie().find((value) => value.includes("session_token="))!.split(";")[0];
  }

  test("a session acts in the default organization, or the one Acredita-Org names where it is a member; a non-member gets 404, never 403", async () => {
    const client = await db();
    const olga = await createUserWithPassword(client, { email: "olga@acme.test", name: "Olga", role: "admin", password: PASSWORD }, { organizationId: orgs.acme.id });
    const dana = await createUserWithPassword(client, { email: "dana@shop.test", name: "Dana", role: "admin", password: PASSWORD });
    assert.ok(olga.kind === "created" && dana.kind === "created");
    const olgaCookie = { cookie: await signIn("olga@acme.test") };
    const danaCookie = { cookie: await signIn("dana@shop.test") };

    // Olga: admin in acme only. Her default-organization request is 404 (not a member), acme's is hers.
    assert.deepEqual([(await call("GET", "/api/endpoints", olgaCookie)).status, (await call("GET", "/api/endpoints", olgaCookie)).json], [404, ORG_NOT_FOUND]);
    const inAcme = await call("GET", "/api/endpoints", { ...olgaCookie, "acredita-org": "acme" });
    // (acme deleted both its endpoints above.)
    assert.deepEqual([inAcme.status, inAcme.json.count], [200, 0]);
    assert.deepEqual((await call("GET", "/api/endpoints", { ...olgaCookie, "acredita-org": "globex" })).json, ORG_NOT_FOUND);
    // Dana: admin in the default organization, not in acme.
    assert.equal((await call("GET", "/api/endpoints", danaCookie)).status, 200);
    assert.equal((await call("GET", "/api/endpoints", { ...danaCookie, "acredita-org": "acme" })).status, 404);

    // Dana joins acme as a merchant: acme's endpoints are now 403 for her (her role there), the default's still hers.
    await setMembership(client, dana.user.id, orgs.acme.id, "merchant");
    assert.deepEqual((await call("GET", "/api/endpoints", { ...danaCookie, "acredita-org": "acme" })).json, { error: "your role does not allow this", code: "forbidden" });
    assert.equal((await call("GET", "/api/endpoints", danaCookie)).status, 200);
    // Her membership in acme left User.role (better-auth's mirror of the default organization) alone.
    assert.equal((await client.user.findUniqueOrThrow({ where: { id: dana.user.id }, select: { role: true } })).role, "admin");
  });

  test("a person's key acts with the owner's role in the key's organization, and stops with the membership", async () => {
    const client = await db();
    const owner = await createUserWithPassword(client, { email: "kai@shop.test", name: "Kai", role: "admin", password: PASSWORD });
    assert.equal(owner.kind, "created");
    const ownerId = owner.kind === "created" ? owner.user.id : "";
    const admin = { id: ownerId, email: "kai@shop.test", name: "Kai", role: "admin" as const, organizationId: "org_default" };
    const made = await createApiKeyAs(client, admin, { userId: ownerId, name: "kai backend", days: 30 });
    const key = made.kind === "created" ? made.key : assert.fail("no key");
    assert.equal((await call("GET", "/api/endpoints", bearer(key))).status, 200);
    // The key of a default-organization admin made through the API, capped at support: 403 on endpoints.
    const capped = await call("POST", "/api/api-keys", bearer(key), { name: "kai support", role: "support" });
    assert.deepEqual([capped.status, capped.json.owner, capped.json.role], [201, "kai@shop.test", "support"]);
    assert.equal((await call("GET", "/api/endpoints", bearer(capped.json.key as string))).status, 403);
    // Demoted to merchant in the default organization: both keys follow the owner's role.
    await setMembership(client, ownerId, "org_default", "merchant");
    assert.equal((await call("GET", "/api/endpoints", bearer(key))).status, 403);
    assert.equal((await call("GET", "/api/orders", bearer(capped.json.key as string))).status, 200);
    // No longer a member: the keys are refused (401), as a deactivated owner's are.
    await client.membership.delete({ where: { userId_organizationId: { userId: ownerId, organizationId: "org_default" } } });
    assert.equal((await call("GET", "/api/orders", bearer(key))).status, 401);
    assert.equal((await call("GET", "/api/orders", bearer(capped.json.key as string))).status, 401);
  });

  test("the Users page (the default organization's) neither lists nor manages a user who belongs only to another organization", async () => {
    const client = await db();
    const made: string[] = [];
    const calls: AdminCalls = { setRole: async (id) => made.push(`setRole ${id}`), ban: async (id) => made.push(`ban ${id}`), unban: async (id) => made.push(`unban ${id}`), revokeSessions: async (id) => made.push(`revoke ${id}`) };
    const olga = await client.user.findUniqueOrThrow({ where: { email: "olga@acme.test" }, select: { id: true } });
    const admin = { id: "u_page_admin", email: "page-admin@shop.test", name: "Page Admin", role: "admin" as const, organizationId: "org_default" };
    assert.equal((await listUsers(client)).some((user) => user.email === "olga@acme.test"), false);
    assert.ok((await listUsers(client)).some((user) => user.email === "dana@shop.test"));
    assert.equal(await setUserRoleAs(client, admin, calls, olga.id, "support"), "not_found");
    assert.equal(await setUserActiveAs(client, admin, calls, olga.id, false), "not_found");
    assert.equal(await revokeUserSessionsAs(client, admin, calls, olga.id), "not_found");
    assert.deepEqual(made, []);
  });

  test("a person in the default organization and another one is not deactivated from the Users page: the ban and the key revocation would lock them out of the other too", async () => {
    const client = await db();
    const made: string[] = [];
    const calls: AdminCalls = { setRole: async (id) => made.push(`setRole ${id}`), ban: async (id) => made.push(`ban ${id}`), unban: async (id) => made.push(`unban ${id}`), revokeSessions: async (id) => made.push(`revoke ${id}`) };
    const both = await createUserWithPassword(client, { email: "bea@both.test", name: "Bea", role: "merchant", password: PASSWORD });
    const beaId = both.kind === "created" ? both.user.id : assert.fail("not created");
    await setMembership(client, beaId, orgs.acme.id, "admin");
    const admin = { id: "u_page_admin", email: "page-admin@shop.test", name: "Page Admin", role: "admin" as const, organizationId: "org_default" };
    assert.equal((await createApiKeyAs(client, admin, { userId: beaId, name: "bea backend", days: 30 })).kind, "created");
    assert.equal(await setUserActiveAs(client, admin, calls, beaId, false), "shared");
    assert.deepEqual(made, []);
    assert.equal(await client.apiKey.count({ where: { userId: beaId, revokedAt: null } }), 1);
    // Only in the default organization again, the same call deactivates.
    await client.membership.delete({ where: { userId_organizationId: { userId: beaId, organizationId: orgs.acme.id } } });
    assert.equal(await setUserActiveAs(client, admin, calls, beaId, false), "updated");
    assert.deepEqual(made, [`ban ${beaId}`]);
    assert.equal(await client.apiKey.count({ where: { userId: beaId, revokedAt: null } }), 0);
  });
});
