import { TEST_API_TOKEN } from "@/e2e/support/test-env";
// Books per organization, through the route handlers on the database under test: two organizations each
// receive a payment for the same order id (A-1001) through their own lab endpoint, and each is credited
// once in its own books; then every route handler over the books, tried with one organization's key,
// shows nothing of the other's (its order, event, ledger entry, decision, dead letter, replay and
// reconciliation run ids are 404, and no list, export or page of it carries the other's marks).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import * as alertChannelRoute from "@/app/api/alerts/channels/[id]/route";
import * as alertChannelsRoute from "@/app/api/alerts/channels/route";
import * as incidentsRoute from "@/app/api/alerts/incidents/route";
import * as apiKeysRoute from "@/app/api/api-keys/route";
import * as retriesRoute from "@/app/api/dead-letters/retries/route";
import * as decisionsRoute from "@/app/api/decisions/route";
import * as accountRoute from "@/app/api/endpoints/[id]/accounts/[account]/route";
import * as apiKeyRoute from "@/app/api/endpoints/[id]/api-key/route";
import * as backfillRoute from "@/app/api/endpoints/[id]/backfill/route";
import * as accountsRoute from "@/app/api/endpoints/[id]/accounts/route";
import * as endpointRoute from "@/app/api/endpoints/[id]/route";
import * as endpointsRoute from "@/app/api/endpoints/route";
import * as eventRoute from "@/app/api/events/[id]/route";
import * as eventsRoute from "@/app/api/events/route";
import * as decisionsCsvRoute from "@/app/api/exports/decisions.csv/route";
import * as ledgerCsvRoute from "@/app/api/exports/ledger.csv/route";
import * as ordersCsvRoute from "@/app/api/exports/orders.csv/route";
import * as ledgerRoute from "@/app/api/ledger/route";
import * as orderRoute from "@/app/api/orders/[id]/route";
import * as ordersRoute from "@/app/api/orders/route";
import * as orgsRoute from "@/app/api/orgs/route";
import * as mismatchesRoute from "@/app/api/reconciliations/[id]/mismatches/route";
import * as runRoute from "@/app/api/reconciliations/[id]/route";
import * as runsRoute from "@/app/api/reconciliations/route";
import * as replayApplyRoute from "@/app/api/replays/[id]/apply/route";
import * as replayRoute from "@/app/api/replays/[id]/route";
import * as replaysRoute from "@/app/api/replays/route";
import * as webhookRoute from "@/app/api/webhooks/[endpoint]/route";
import { queueBackfill } from "@/lib/monitoring/gap-checks";
import { closeDb, db } from "@/lib/db/client";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";
import { callRoute as call, type RouteAnswer } from "@/e2e/support/route-call";

process.env.ACREDITA_SECRETS_KEY = randomBytes(32).toString("base64");
// A globex alert channel on a local address, never called here.
process.env.ALERTS_ALLOW_PRIVATE_URLS = "true";


const operator = { authorization: `Bearer ${TEST_API_TOKEN}` };
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

interface Tenant {
  slug: "acme" | "globex";
  key: string;
  endpointId: string;
  secret: string;
  account: string;
  amount: number;
}
const tenants = {} as Record<"acme" | "globex", Tenant>;

const ORDER = "A-1001";
const labBody = (eventId: string, orderId: string, amount: number) => JSON.stringify({ id: eventId, type: "payment.approved", created: 1760181330, data: { payment_id: `pay_${eventId}`, order_id: orderId, amount, currency: "ARS" } });

/** Delivers a signed lab payment to the tenant's own endpoint through the webhook route. */
async function deliver(tenant: Tenant, eventId: string, orderId: string, amount: number): Promise<RouteAnswer> {
  const body = labBody(eventId, orderId, amount);
  const signature = signTimestamped(tenant.secret, Math.floor(Date.now() / 1000), body);
  return call(webhookRoute, "POST", `/api/webhooks/${tenant.endpointId}`, { "content-type": "application/json", "Lab-Signature": signature }, { endpoint: tenant.endpointId }, body);
}

before(async () => {
  for (const [slug, amount] of [
    ["acme", 150_000],
    ["globex", 275_000],
  ] as const) {
    assert.equal((await call(orgsRoute, "POST", "/api/orgs", operator, {}, { slug: `ob-${slug}`, name: slug })).status, 201);
    const key = await call(apiKeysRoute, "POST", "/api/api-keys", { ...operator, "acredita-org": `ob-${slug}` }, {}, { name: `${slug} books`, role: "admin" });
    assert.equal(key.status, 201, key.text);
    const account = `lab_ob_${slug}`;
    const endpoint = await call(endpointsRoute, "POST", "/api/endpoints", bearer(key.json.key as string), {}, { provider: "lab", account, livemode: true, processingMode: "inline" });
    assert.equal(endpoint.status, 201, endpoint.text);
    tenants[slug] = { slug, key: key.json.key as string, endpointId: endpoint.json.id as string, secret: endpoint.json.secret as string, account, amount };
  }
});
after(closeDb);

describe("two organizations with the same order id", () => {
  test("each creates A-1001 and is paid by its own endpoint: each credited once, in its own books; the default organization has no A-1001", async () => {
    for (const tenant of Object.values(tenants)) {
      const created = await call(ordersRoute, "POST", "/api/orders", bearer(tenant.key), {}, { id: ORDER, amount: tenant.amount, currency: "ARS" });
      assert.equal(created.status, 201, created.text);
    }
    for (const tenant of Object.values(tenants)) {
      const paid = await deliver(tenant, `evt_ob_${tenant.slug}_1`, ORDER, tenant.amount);
      assert.deepEqual([paid.status, paid.json.outcome], [200, "applied"], paid.text);
      // The same event again is a duplicate in its own books.
      const again = await deliver(tenant, `evt_ob_${tenant.slug}_1`, ORDER, tenant.amount);
      assert.deepEqual([again.status, again.json.outcome], [200, "duplicate"], again.text);
    }
    for (const tenant of Object.values(tenants)) {
      const order = await call(orderRoute, "GET", `/api/orders/${ORDER}`, bearer(tenant.key), { id: ORDER });
      assert.equal(order.status, 200, order.text);
      assert.deepEqual(
        { status: order.json.status, amount: order.json.amount, credited: order.json.credited, ledger: (order.json.ledger as { amount: number; eventId: string }[]).map((entry) => [entry.amount, entry.eventId]) },
        { status: "paid", amount: tenant.amount, credited: tenant.amount, ledger: [[tenant.amount, `evt_ob_${tenant.slug}_1`]] },
      );
      assert.deepEqual((order.json.events as { eventId: string }[]).map((event) => event.eventId), [`evt_ob_${tenant.slug}_1`]);
    }
    assert.equal((await call(orderRoute, "GET", `/api/orders/${ORDER}`, operator, { id: ORDER })).status, 404);
    const client = await db();
    assert.equal(await client.order.count({ where: { id: ORDER } }), 2);
    assert.equal(await client.ledgerEntry.count({ where: { orderId: ORDER } }), 2);
    assert.deepEqual(
      (await client.ledgerEntry.findMany({ where: { orderId: ORDER }, select: { organizationId: true, amount: true }, orderBy: { amount: "asc" } })).map((entry) => entry.amount),
      [150_000, 275_000],
    );
  });

  test("a payment for an order only the other organization has is an unknown order in the receiving organization's books, and books nothing", async () => {
    const globexOnly = "G-STRAY-8";
    for (const id of [globexOnly, "G-ONLY-7"]) assert.equal((await call(ordersRoute, "POST", "/api/orders", bearer(tenants.globex.key), {}, { id, amount: 5_000, currency: "ARS" })).status, 201);
    const answer = await deliver(tenants.acme, "evt_ob_acme_stray", globexOnly, 5_000);
    assert.equal(answer.json.outcome, "dead_lettered", answer.text);
    const globexOrder = await call(orderRoute, "GET", `/api/orders/${globexOnly}`, bearer(tenants.globex.key), { id: globexOnly });
    assert.deepEqual([globexOrder.json.status, globexOrder.json.credited], ["created", 0]);
    const client = await db();
    const letter = await client.deadLetter.findFirstOrThrow({ where: { eventId: "evt_ob_acme_stray" }, select: { organizationId: true, category: true } });
    assert.equal(letter.category, "unknown_order");
    assert.notEqual(letter.organizationId, "org_default");
  });
});

/** Every route handler file under app/api, as `app/api/...` paths. */
function routeFiles(dir = "app/api"): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? routeFiles(full) : name === "route.ts" ? [full] : [];
  });
}

describe("one organization's key sees nothing of another's", () => {
  test("every route handler over the books, with acme's key: globex's ids are 404 and no answer carries globex's marks", async () => {
    const client = await db();
    const globexOrg = (await client.organization.findUniqueOrThrow({ where: { slug: "ob-globex" } })).id;
    const globexEvent = await client.webhookEvent.findFirstOrThrow({ where: { organizationId: globexOrg }, select: { id: true, eventId: true } });
    // A replay preview and a reconciliation run of globex, to ask for with acme's key.
    const preview = await call(replaysRoute, "POST", "/api/replays", bearer(tenants.globex.key), {}, { dryRun: true, filter: { eventIds: [globexEvent.eventId] } });
    assert.equal(preview.status, 201, preview.text);
    const labReport = "order_id,provider_status,amount,currency\nG-ONLY-7,approved,5000,ARS\n";
    const upload = await call(runsRoute, "POST", "/api/reconciliations?format=lab&account=lab_ob_globex&source=globex.csv", { ...bearer(tenants.globex.key), "content-type": "text/csv" }, {}, labReport);
    assert.equal(upload.status, 202, upload.text);
    const globexRun = upload.json.runId as string;
    const channel = await call(alertChannelsRoute, "POST", "/api/alerts/channels", bearer(tenants.globex.key), {}, { kind: "webhook", url: "http://127.0.0.1:9/globex-alerts-hook" });
    assert.equal(channel.status, 201, channel.text);
    const globexChannel = channel.json.id as string;
    // A backfill of globex's endpoint, queued as its Endpoints page would (a lab endpoint cannot be asked for one).
    await queueBackfill(client, { name: tenants.globex.endpointId, organizationId: globexOrg }, new Date(Date.now() - 3_600_000), new Date());

    const acme = bearer(tenants.acme.key);
    const marks = ["G-ONLY-7", globexEvent.eventId, globexEvent.id, preview.json.id as string, globexRun, tenants.globex.endpointId, "275000", "2750.00", "globex.csv", globexChannel, "globex-alerts-hook"];
    const carriesNoMark = (label: string, answer: RouteAnswer) => {
      for (const mark of marks) assert.ok(!answer.text.includes(mark), `${label} answered ${answer.status} with ${mark}: ${answer.text.slice(0, 300)}`);
    };
    // Each route file is named here with how it is tried; a new route file fails this test until it is.
    const tried: Record<string, () => Promise<void>> = {
      "app/api/orders/route.ts": async () => carriesNoMark("GET /api/orders", await call(ordersRoute, "GET", "/api/orders?q=G-ONLY", acme)),
      "app/api/orders/[id]/route.ts": async () => assert.equal((await call(orderRoute, "GET", "/api/orders/G-ONLY-7", acme, { id: "G-ONLY-7" })).status, 404),
      "app/api/events/route.ts": async () => carriesNoMark("GET /api/events", await call(eventsRoute, "GET", `/api/events?eventId=${globexEvent.eventId}`, acme)),
      "app/api/events/[id]/route.ts": async () => assert.equal((await call(eventRoute, "GET", `/api/events/${globexEvent.id}`, acme, { id: globexEvent.id })).status, 404),
      "app/api/decisions/route.ts": async () => carriesNoMark("GET /api/decisions", await call(decisionsRoute, "GET", `/api/decisions?eventId=${globexEvent.eventId}`, acme)),
      "app/api/ledger/route.ts": async () => carriesNoMark("GET /api/ledger", await call(ledgerRoute, "GET", "/api/ledger?limit=500", acme)),
      "app/api/exports/orders.csv/route.ts": async () => carriesNoMark("orders.csv", await call(ordersCsvRoute, "GET", "/api/exports/orders.csv", acme)),
      "app/api/exports/ledger.csv/route.ts": async () => carriesNoMark("ledger.csv", await call(ledgerCsvRoute, "GET", "/api/exports/ledger.csv", acme)),
      "app/api/exports/decisions.csv/route.ts": async () => carriesNoMark("decisions.csv", await call(decisionsCsvRoute, "GET", "/api/exports/decisions.csv", acme)),
      "app/api/replays/route.ts": async () => {
        carriesNoMark("GET /api/replays", await call(replaysRoute, "GET", "/api/replays", acme));
        const named = await call(replaysRoute, "POST", "/api/replays", acme, {}, { dryRun: true, filter: { eventIds: [globexEvent.eventId] } });
        assert.equal(named.status, 422, named.text);
      },
      "app/api/replays/[id]/route.ts": async () => assert.equal((await call(replayRoute, "GET", `/api/replays/${preview.json.id}`, acme, { id: preview.json.id as string })).status, 404),
      "app/api/replays/[id]/apply/route.ts": async () => assert.equal((await call(replayApplyRoute, "POST", `/api/replays/${preview.json.id}/apply`, acme, { id: preview.json.id as string })).status, 404),
      "app/api/reconciliations/route.ts": async () => {
        // Reconciling another organization's account would read its books: refused, naming why.
        const refused = await call(runsRoute, "POST", "/api/reconciliations?format=lab&account=lab_ob_globex&source=peek.csv", { ...acme, "content-type": "text/csv" }, {}, labReport);
        assert.deepEqual([refused.status, (refused.json.reason as { code: string }).code], [400, "scope_account_elsewhere"], refused.text);
      },
      "app/api/reconciliations/[id]/route.ts": async () => assert.equal((await call(runRoute, "GET", `/api/reconciliations/${globexRun}`, acme, { id: globexRun })).status, 404),
      "app/api/reconciliations/[id]/mismatches/route.ts": async () => assert.equal((await call(mismatchesRoute, "GET", `/api/reconciliations/${globexRun}/mismatches`, acme, { id: globexRun })).status, 404),
      "app/api/dead-letters/retries/route.ts": async () => {
        const counted = await call(retriesRoute, "POST", "/api/dead-letters/retries", acme, {}, { dryRun: true, filter: { orderId: "G-ONLY-7" } });
        assert.deepEqual([counted.status, counted.json.count], [200, 0], counted.text);
      },
      "app/api/endpoints/route.ts": async () => carriesNoMark("GET /api/endpoints", await call(endpointsRoute, "GET", "/api/endpoints", acme)),
      "app/api/alerts/channels/route.ts": async () => carriesNoMark("GET /api/alerts/channels", await call(alertChannelsRoute, "GET", "/api/alerts/channels", acme)),
      "app/api/alerts/channels/[id]/route.ts": async () => {
        assert.equal((await call(alertChannelRoute, "DELETE", `/api/alerts/channels/${globexChannel}`, acme, { id: globexChannel })).status, 404);
        assert.equal(await (await db()).alertChannel.count({ where: { id: globexChannel, disabledAt: null } }), 1, "globex's channel is untouched");
      },
      "app/api/alerts/incidents/route.ts": async () => carriesNoMark("GET /api/alerts/incidents", await call(incidentsRoute, "GET", "/api/alerts/incidents", acme)),
      "app/api/endpoints/[id]/route.ts": async () => assert.equal((await call(endpointRoute, "GET", `/api/endpoints/${tenants.globex.endpointId}`, acme, { id: tenants.globex.endpointId })).status, 404),
      "app/api/endpoints/[id]/accounts/route.ts": async () => assert.equal((await call(accountsRoute, "GET", `/api/endpoints/${tenants.globex.endpointId}/accounts`, acme, { id: tenants.globex.endpointId })).status, 404),
      "app/api/endpoints/[id]/accounts/[account]/route.ts": async () => {
        const params = { id: tenants.globex.endpointId, account: "acct_obglobex" };
        assert.equal((await call(accountRoute, "PUT", `/api/endpoints/${params.id}/accounts/${params.account}`, acme, params, { org: "ob-acme" })).status, 404);
        assert.equal((await call(accountRoute, "DELETE", `/api/endpoints/${params.id}/accounts/${params.account}`, acme, params)).status, 404);
      },
      "app/api/endpoints/[id]/api-key/route.ts": async () => {
        const params = { id: tenants.globex.endpointId };
        assert.equal((await call(apiKeyRoute, "PUT", `/api/endpoints/${params.id}/api-key`, acme, params, { apiKey: "rk_test_obglobex0123456789" })).status, 404);
        assert.equal((await call(apiKeyRoute, "DELETE", `/api/endpoints/${params.id}/api-key`, acme, params)).status, 404);
      },
      "app/api/endpoints/[id]/backfill/route.ts": async () => {
        const params = { id: tenants.globex.endpointId };
        assert.equal((await call(backfillRoute, "POST", `/api/endpoints/${params.id}/backfill`, acme, params, {})).status, 404);
        assert.equal((await call(backfillRoute, "GET", `/api/endpoints/${params.id}/backfill`, acme, params)).status, 404);
        assert.equal((await call(backfillRoute, "GET", `/api/endpoints/${params.id}/backfill`, bearer(tenants.globex.key), params)).status, 200, "globex sees its own backfill");
      },
    };
    // Route files that hold no organization's data, or whose isolation other files prove.
    const elsewhere = new Set([
      "app/api/[...missing]/route.ts",
      "app/api/auth/[...all]/route.ts",
      "app/api/health/live/route.ts",
      "app/api/health/route.ts",
      "app/api/locale/route.ts",
      "app/api/webhooks/[endpoint]/route.ts",
      "app/api/orgs/route.ts",
      "app/api/api-keys/route.ts",
      // The operator's deployment-wide figures: the default organization's callers only (tests/integration/organizations.test.ts).
      "app/api/metrics/route.ts",
      "app/api/metrics/prometheus/route.ts",
      // Secrets' rotation and retirement: tests/integration/organizations.test.ts tries each with another organization's key.
      "app/api/endpoints/[id]/secrets/route.ts",
      "app/api/endpoints/[id]/secrets/[label]/route.ts",
    ]);
    const untried = routeFiles().filter((file) => !(file in tried) && !elsewhere.has(file));
    assert.deepEqual(untried, [], "every route handler is tried across organizations or named as holding no organization's data");
    for (const [file, attempt] of Object.entries(tried)) {
      await attempt().catch((error: unknown) => {
        throw new Error(`${file}: ${(error as Error).message}`);
      });
    }
    // And globex still sees its own.
    const own = await call(replayRoute, "GET", `/api/replays/${preview.json.id}`, bearer(tenants.globex.key), { id: preview.json.id as string });
    assert.equal(own.status, 200, own.text);
    assert.equal((await call(runRoute, "GET", `/api/reconciliations/${globexRun}?mismatches=none`, bearer(tenants.globex.key), { id: globexRun })).status, 200);
  });
});
