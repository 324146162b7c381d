import { TEST_API_TOKEN, TEST_DB } from "@/e2e/support/test-env";
// A data endpoint's Stripe API key, through the route handlers on the database under test: set with
// PUT /api/endpoints/<id>/api-key (refused for another provider, a malformed key, a key of the other mode),
// stored encrypted (no trace of the value in any row, answer or audit note), shown only as when it was set,
// removed with DELETE. A backfill asked for with POST /api/endpoints/<id>/backfill is queued (202; asked
// again, the same run) and run by a worker with that key against a local fake of Stripe's API: 3 missed
// events of 5 are stored and credited once in the endpoint's organization. A Connect endpoint's gap check
// lists the platform's events and each bound account's (Stripe-Account), each booked in its own
// organization, never an unbound account's. `npm run backfill -- --endpoint ep_…` reads the stored key.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import * as accountRoute from "@/app/api/endpoints/[id]/accounts/[account]/route";
import * as apiKeyRoute from "@/app/api/endpoints/[id]/api-key/route";
import * as backfillRoute from "@/app/api/endpoints/[id]/backfill/route";
import * as endpointRoute from "@/app/api/endpoints/[id]/route";
import * as endpointsRoute from "@/app/api/endpoints/route";
import * as apiKeysRoute from "@/app/api/api-keys/route";
import * as orderRoute from "@/app/api/orders/[id]/route";
import * as ordersRoute from "@/app/api/orders/route";
import * as orgsRoute from "@/app/api/orgs/route";
import { startFakeStripeApi, type FakeStripeApi } from "@/e2e/support/fake-stripe-api";
import { runMain } from "@/e2e/support/cli";
import { deliverStripe, paymentIntent, stripeEvent } from "@/e2e/support/providers";
import { callRoute as call } from "@/e2e/support/route-call";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { stripeReport } from "@/e2e/support/stripe-report-csv";
import { runGapCheck, runQueuedBackfill } from "@/lib/backfill/gap-check";
import { runDuePulls } from "@/lib/settlement-pull/settlement-pull";
import { closeDb, db } from "@/lib/db/client";
import { apiEndpoints } from "@/lib/endpoints/api-endpoints";
import { storedSecretsIssues } from "@/lib/endpoints/stored-secrets";
import { main as backfillMain } from "@/scripts/backfill";

void TEST_DB;
process.env.ACREDITA_SECRETS_KEY = randomBytes(32).toString("base64");
process.env.RECONCILIATION_SPOOL_DIR = mkdtempSync(path.join(tmpdir(), "acredita-api-keys-spool-"));
delete process.env.STRIPE_API_KEY;

const operator = { authorization: `Bearer ${TEST_API_TOKEN}` };
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const API_KEY = "rk_live_AkEndpointKey0123456789abcdef";
const SECRET = "whsec_api_key_endpoint_0001";
const CONNECT_SECRET = "whsec_api_key_connect_0001";

let api: FakeStripeApi;
const orgs = {} as Record<"a" | "b", { slug: string; id: string; key: string }>;
let endpointId = "";
let connectId = "";

/** A live payment_intent.succeeded for `orderId`, as Stripe's API lists it (`account` for a connected account's). */
function succeeded(id: string, orderId: string, amount: number, account?: string): Record<string, unknown> {
  return stripeEvent(id, "payment_intent.succeeded", paymentIntent({ id: `pi_${id}`, orderId, amount, currency: "usd" }), { created: Math.floor(Date.now() / 1000) - 3_600, ...(account ? { account } : {}) });
}

async function orderOf(key: string, orderId: string) {
  const order = await call(orderRoute, "GET", `/api/orders/${orderId}`, bearer(key), { id: orderId });
  assert.equal(order.status, 200, order.text);
  return [order.json.status, order.json.credited];
}

before(async () => {
  api = await startFakeStripeApi(API_KEY);
  process.env.STRIPE_API_BASE = api.url;
  const client = await db();
  for (const name of ["a", "b"] as const) {
    const slug = `ak-${name}`;
    assert.equal((await call(orgsRoute, "POST", "/api/orgs", operator, {}, { slug, name: `API keys ${name}` })).status, 201);
    const key = await call(apiKeysRoute, "POST", "/api/api-keys", { ...operator, "acredita-org": slug }, {}, { name: `${slug} admin`, role: "admin" });
    assert.equal(key.status, 201, key.text);
    orgs[name] = { slug, id: (await client.organization.findUniqueOrThrow({ where: { slug } })).id, key: key.json.key as string };
  }
  const created = await call(endpointsRoute, "POST", "/api/endpoints", bearer(orgs.a.key), {}, { provider: "stripe", account: "acct_akA", livemode: true, processingMode: "inline", secret: SECRET });
  assert.equal(created.status, 201, created.text);
  endpointId = created.json.id as string;
});
after(async () => {
  await api.close();
  await closeDb();
});

describe("a data endpoint's API key", () => {
  test("refused for a lab endpoint, a malformed key and a test key on a live endpoint (400, the value never echoed); set, it shows only when (200), and no row, answer or audit note holds it", async () => {
    const lab = await call(endpointsRoute, "POST", "/api/endpoints", bearer(orgs.a.key), {}, { provider: "lab", account: "lab_ak", livemode: false });
    assert.equal(lab.status, 201, lab.text);
    const put = (id: string, apiKey: string) => call(apiKeyRoute, "PUT", `/api/endpoints/${id}/api-key`, bearer(orgs.a.key), { id }, { apiKey });
    const refusals = [await put(lab.json.id as string, API_KEY), await put(endpointId, "sk_test_short"), await put(endpointId, "rk_test_AkEndpointKey0123456789abcdef")];
    assert.deepEqual(refusals.map((answer) => answer.status), [400, 400, 400]);
    assert.deepEqual(
      refusals.map((answer) => [answer.json.code, (answer.json.error as string).split(":")[0]]),
      [["invalid_body", "apiKey"], ["invalid_body", "apiKey"], ["invalid_body", "apiKey"]],
    );
    for (const answer of refusals) assert.ok(!answer.text.includes("AkEndpointKey"), answer.text);

    const set = await put(endpointId, API_KEY);
    assert.equal(set.status, 200, set.text);
    assert.ok(!set.text.includes("AkEndpointKey"));
    const shown = await call(endpointRoute, "GET", `/api/endpoints/${endpointId}`, bearer(orgs.a.key), { id: endpointId });
    assert.deepEqual(Object.keys(shown.json.apiKey as object), ["setAt"]);
    assert.ok(!shown.text.includes("AkEndpointKey"));

    const client = await db();
    const row = await client.endpoint.findUniqueOrThrow({ where: { id: endpointId }, select: { apiKeyCiphertext: true } });
    assert.match(row.apiKeyCiphertext!, /^acs1:/);
    const stored = JSON.stringify([await client.endpoint.findMany(), await client.auditEntry.findMany(), await client.endpointSecret.findMany()]);
    for (const trace of [API_KEY, "AkEndpointKey0123456789abcdef", Buffer.from(API_KEY).toString("base64"), Buffer.from(API_KEY).toString("hex")]) assert.ok(!stored.includes(trace), `found ${trace.slice(0, 12)}…`);
    assert.deepEqual(
      (await client.auditEntry.findMany({ where: { organizationId: orgs.a.id, action: { startsWith: "endpoint.api_key" } }, select: { action: true, targetId: true } })),
      [{ action: "endpoint.api_key_set", targetId: endpointId }],
    );
    // Start-up's check counts it with the signing secrets: under another key, neither decrypts.
    const issues = await storedSecretsIssues(client, { ACREDITA_SECRETS_KEY: randomBytes(32).toString("base64") });
    assert.equal(issues.length, 1);
    assert.match(issues[0], /ACREDITA_SECRETS_KEY: \d+ stored endpoint secrets are encrypted under key/);
  });

  test("a backfill asked for over the API is queued (202, the same run when asked again) and run by a worker with the stored key: 3 missed events of 5 stored and credited once in A", async () => {
    for (let index = 0; index < 5; index++) assert.equal((await call(ordersRoute, "POST", "/api/orders", bearer(orgs.a.key), {}, { id: `AK-${index}`, amount: 1_000 + index, currency: "USD" })).status, 201);
    api.events = Array.from({ length: 5 }, (_, index) => succeeded(`evt_ak_${index}`, `AK-${index}`, 1_000 + index));
    for (const index of [0, 3]) {
      const answer = await deliverStripe(JSON.stringify({ ...api.events[index], pending_webhooks: 1 }), { secret: SECRET, endpoint: endpointId });
      assert.equal(answer.status, 200, JSON.stringify(answer.json));
    }
    const asked = await call(backfillRoute, "POST", `/api/endpoints/${endpointId}/backfill`, bearer(orgs.a.key), { id: endpointId }, { sinceHours: 24 });
    assert.equal(asked.status, 202, asked.text);
    assert.deepEqual([asked.json.status, asked.json.trigger, asked.json.endpoint], ["queued", "dashboard", endpointId]);
    const again = await call(backfillRoute, "POST", `/api/endpoints/${endpointId}/backfill`, bearer(orgs.a.key), { id: endpointId }, {});
    assert.deepEqual([again.status, again.json.id], [202, asked.json.id]);
    // Another organization's admin: not found, as an endpoint that does not exist.
    assert.equal((await call(backfillRoute, "POST", `/api/endpoints/${endpointId}/backfill`, bearer(orgs.b.key), { id: endpointId }, {})).status, 404);

    const requests = api.requests.length;
    assert.equal(await runQueuedBackfill(await db(), { apiBase: api.url }), true);
    assert.equal(await runQueuedBackfill(await db(), { apiBase: api.url }), false, "nothing else queued");
    assert.ok(api.requests.slice(requests).every((request) => request.keyStart === API_KEY.slice(0, 8) && request.stripeAccount === undefined));
    const done = await call(backfillRoute, "GET", `/api/endpoints/${endpointId}/backfill`, bearer(orgs.a.key), { id: endpointId });
    assert.deepEqual(
      { status: done.json.status, listed: done.json.listed, alreadyStored: done.json.alreadyStored, stored: done.json.stored, skipped: done.json.skipped },
      { status: "done", listed: 5, alreadyStored: 2, stored: 3, skipped: 0 },
    );
    for (let index = 0; index < 5; index++) assert.deepEqual(await orderOf(orgs.a.key, `AK-${index}`), ["paid", 1_000 + index]);
    const client = await db();
    assert.equal(await client.ledgerEntry.count({ where: { organizationId: orgs.a.id, orderId: { startsWith: "AK-" } } }), 5);
    assert.deepEqual(
      (await client.decision.findMany({ where: { eventId: { startsWith: "evt_ak_" }, source: "backfill" }, select: { eventId: true }, orderBy: { eventId: "asc" } })).map((row) => row.eventId),
      ["evt_ak_1", "evt_ak_2", "evt_ak_4"],
    );
  });

  test("npm run backfill -- --endpoint <id> reads the stored key; removed (DELETE), the key is gone: the command and the API refuse, naming how to set one", async () => {
    const env = { ...process.env, STRIPE_API_BASE: api.url };
    const ran = await runMain(backfillMain, ["--endpoint", endpointId, "--since", "24h"], env);
    assert.equal(ran.code, 0, ran.stderr);
    assert.deepEqual(JSON.parse(ran.stdout), { listed: 5, alreadyStored: 5, stored: 0, skipped: 0 });

    const removed = await call(apiKeyRoute, "DELETE", `/api/endpoints/${endpointId}/api-key`, bearer(orgs.a.key), { id: endpointId });
    assert.deepEqual([removed.status, removed.json.apiKey], [200, null]);
    assert.equal((await (await db()).endpoint.findUniqueOrThrow({ where: { id: endpointId } })).apiKeyCiphertext, null);
    const refused = await runMain(backfillMain, ["--endpoint", endpointId, "--since", "24h"], env);
    assert.deepEqual([refused.code, refused.stderr.trim()], [2, `backfill: endpoint ${endpointId} holds no API key: set a restricted key with read access to events (PUT /api/endpoints/${endpointId}/api-key, or the Endpoints page)`]);
    const asked = await call(backfillRoute, "POST", `/api/endpoints/${endpointId}/backfill`, bearer(orgs.a.key), { id: endpointId }, {});
    assert.deepEqual([asked.status, asked.json.code], [409, "api_key_missing"]);
  });
});

describe("a Connect endpoint's gap check and settlement pulls", () => {
  test("lists the platform's events and each bound account's on its behalf, booked in each one's organization; an unbound account is never asked for", async () => {
    const created = await call(endpointsRoute, "POST", "/api/endpoints", { ...operator, "acredita-org": orgs.a.slug }, {}, { provider: "stripe", account: "acct_akplatform", livemode: true, processingMode: "inline", secret: CONNECT_SECRET, connect: true });
    assert.equal(created.status, 201, created.text);
    connectId = created.json.id as string;
    const bound = await call(accountRoute, "PUT", `/api/endpoints/${connectId}/accounts/acct_akc1`, { ...operator, "acredita-org": orgs.a.slug }, { id: connectId, account: "acct_akc1" }, { org: orgs.b.slug });
    assert.equal(bound.status, 201, bound.text);
    assert.equal((await call(apiKeyRoute, "PUT", `/api/endpoints/${connectId}/api-key`, bearer(orgs.a.key), { id: connectId }, { apiKey: API_KEY })).status, 200);
    assert.equal((await call(ordersRoute, "POST", "/api/orders", bearer(orgs.a.key), {}, { id: "AKC-1", amount: 700, currency: "USD" })).status, 201);
    assert.equal((await call(ordersRoute, "POST", "/api/orders", bearer(orgs.b.key), {}, { id: "AKC-1", amount: 900, currency: "USD" })).status, 201);
    api.events = [succeeded("evt_akc_platform", "AKC-1", 700)];
    api.byAccount.set("acct_akc1", [succeeded("evt_akc_c1", "AKC-1", 900, "acct_akc1")]);
    api.byAccount.set("acct_akc2", [succeeded("evt_akc_c2", "AKC-1", 500, "acct_akc2")]);

    const targets = (await apiEndpoints(await db())).map((target) => target.endpoint.name);
    assert.deepEqual(targets.filter((name) => name === connectId || name === endpointId), [connectId], "the endpoint whose key was removed is not called for");
    const requests = api.requests.length;
    const results = await runGapCheck(await db(), { apiBase: api.url });
    const mine = results.find((result) => result.endpoint === connectId);
    assert.deepEqual(mine?.report, { listed: 2, alreadyStored: 0, stored: 2, skipped: 0 });
    assert.deepEqual(
      api.requests.slice(requests).filter((request) => request.path.startsWith("/v1/events")).map((request) => request.stripeAccount ?? "platform"),
      ["platform", "acct_akc1"],
    );
    assert.deepEqual(await orderOf(orgs.a.key, "AKC-1"), ["paid", 700]);
    assert.deepEqual(await orderOf(orgs.b.key, "AKC-1"), ["paid", 900]);
    const client = await db();
    assert.deepEqual(
      (await client.webhookEvent.findMany({ where: { eventId: { startsWith: "evt_akc_" } }, select: { eventId: true, organizationId: true, account: true }, orderBy: { eventId: "asc" } })),
      [
        { eventId: "evt_akc_c1", organizationId: orgs.b.id, account: "acct_akc1" },
        { eventId: "evt_akc_platform", organizationId: orgs.a.id, account: "acct_akplatform" },
      ],
    );
    const run = await client.gapCheck.findFirstOrThrow({ where: { endpoint: connectId, trigger: "scheduled" } });
    assert.deepEqual([run.organizationId, run.status, run.stored], [orgs.a.id, "done", 2]);
  });

  test("the daily settlement pull asks for the platform's report and each bound account's on its behalf; each run is its organization's, in its account's scope", async () => {
    api.pendingPolls = 0;
    api.reportCsv = stripeReport([]);
    const requests = api.requests.length;
    const options = (at: string) => ({ pullMinutes: 6 * 60, apiBase: api.url, now: () => new Date(at), sleep: async () => undefined });
    // 06:00 UTC: the day before is asked for; a minute later each report is done, downloaded and queued.
    await runDuePulls(await db(), options("2026-12-02T06:00:00Z"));
    await runDuePulls(await db(), options("2026-12-02T06:01:01Z"));
    const client = await db();
    const pulls = await client.settlementPull.findMany({ where: { day: "2026-12-01" }, orderBy: { endpoint: "asc" }, select: { endpoint: true, status: true, runId: true } });
    assert.deepEqual(pulls.map((pull) => [pull.endpoint, pull.status]), [[connectId, "queued"], [`${connectId}/acct_akc1`, "queued"]]);
    const reporting = api.requests.slice(requests).filter((request) => request.path.startsWith("/v1/reporting/report_runs") || request.path.startsWith("/v1/files/"));
    assert.deepEqual(
      reporting.map((request) => `${request.method} ${request.path.split("/").slice(0, 3).join("/")} ${request.stripeAccount ?? "platform"}`).sort(),
      ["GET /v1/files acct_akc1", "GET /v1/files platform", "GET /v1/reporting acct_akc1", "GET /v1/reporting platform", "POST /v1/reporting acct_akc1", "POST /v1/reporting platform"],
    );
    const runs = await client.reconciliationRun.findMany({ where: { id: { in: pulls.map((pull) => pull.runId!) } }, select: { organizationId: true, account: true, origin: true, actor: true }, orderBy: { account: "asc" } });
    assert.deepEqual(runs, [
      { organizationId: orgs.b.id, account: "acct_akc1", origin: "scheduled", actor: `scheduled:${connectId}/acct_akc1` },
      { organizationId: orgs.a.id, account: "acct_akplatform", origin: "scheduled", actor: `scheduled:${connectId}` },
    ]);
  });
});
