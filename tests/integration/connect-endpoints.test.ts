import { TEST_API_TOKEN } from "@/e2e/support/test-env";
// Stripe Connect endpoints, through the route handlers on the database under test: the operator makes a
// Connect endpoint for platform account acct_cx_platform in organization A; A's admin binds connected
// accounts acct_cxc1 to B and acct_cxc2 to C. A payment of acct_cxc1 for order CX-1 credits B's CX-1
// only; the same event id and payment of acct_cxc2 credits C's CX-1 only; one without `account` is
// A's. An unbound account's event is answered 200, recorded `ignored` (account_not_bound), stores no
// event and books nothing, and is counted in the metrics; after an unbind the account's next event is
// ignored too. Inbox mode stores the routed organization and account on the row (the worker books
// there); a connected account's dead letter is its organization's and its retry books there; a binding
// written by another process holds within a second. Who may bind, what is refused
// (another organization's endpoint 404, a non-Connect endpoint 400, a bad account, an unknown slug), and
// a rebinding to another organization (409 unless `move`).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import * as accountRoute from "@/app/api/endpoints/[id]/accounts/[account]/route";
import * as accountsRoute from "@/app/api/endpoints/[id]/accounts/route";
import * as endpointsRoute from "@/app/api/endpoints/route";
import * as apiKeysRoute from "@/app/api/api-keys/route";
import * as metricsRoute from "@/app/api/metrics/route";
import * as prometheusRoute from "@/app/api/metrics/prometheus/route";
import * as orderRoute from "@/app/api/orders/[id]/route";
import * as ordersRoute from "@/app/api/orders/route";
import * as orgsRoute from "@/app/api/orgs/route";
import { checkoutSession, deliverStripe, stripeEvent } from "@/e2e/support/providers";
import { closeDb, db } from "@/lib/db/client";
import { ENDPOINTS_VERSION_CHECK_MS } from "@/lib/endpoints/data-endpoints";
import { InboxWorker } from "@/lib/inbox/inbox-worker";
import { retryDeadLetter } from "@/lib/triage/retry-dead-letter";
import { callRoute as call, type RouteAnswer } from "@/e2e/support/route-call";

process.env.ACREDITA_SECRETS_KEY = randomBytes(32).toString("base64");


const operator = { authorization: `Bearer ${TEST_API_TOKEN}` };
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

const SECRET = "whsec_connect_endpoint_0001";
const TEST_SECRET = "whsec_connect_endpoint_test_0001";
const PLATFORM = "acct_cxplatform";
const ORDER = "CX-1";

interface Org {
  slug: string;
  id: string;
  key: string;
  amount: number;
}
const orgs = {} as Record<"a" | "b" | "c", Org>;
let endpointId = "";
let inboxEndpointId = "";

// The operator, acting in A: only the operator binds a connected account to another organization than the endpoint's own.
const bind = (id: string, account: string, body: unknown, headers: Record<string, string> = { ...operator, "acredita-org": "cx-a" }) => call(accountRoute, "PUT", `/api/endpoints/${id}/accounts/${account}`, headers, { id, account }, body);
const unbind = (id: string, account: string, headers: Record<string, string> = bearer(orgs.a.key)) => call(accountRoute, "DELETE", `/api/endpoints/${id}/accounts/${account}`, headers, { id, account });
const bindings = (id: string, headers: Record<string, string> = bearer(orgs.a.key)) => call(accountsRoute, "GET", `/api/endpoints/${id}/accounts`, headers, { id });

/** A signed Stripe payment (a paid Checkout Session for `orderId`, payment intent `pi_<eventId>` unless given) delivered to the Connect endpoint, with `account` at the event's top level when given. */
function pay(eventId: string, orderId: string, amount: number, account: string | undefined, options: { endpoint?: string; secret?: string; livemode?: boolean; paymentIntent?: string } = {}) {
  const session = checkoutSession({ id: `cs_${eventId}`, paymentIntent: options.paymentIntent ?? `pi_${eventId}`, clientReferenceId: orderId, amount, currency: "usd" });
  const body = JSON.stringify(stripeEvent(eventId, "checkout.session.completed", session, { ...(account ? { account } : {}), ...(options.livemode === false ? { livemode: false } : {}) }));
  return deliverStripe(body, { secret: options.secret ?? SECRET, endpoint: options.endpoint ?? endpointId });
}

/** An organization's order as its own admin key reads it: status, credited, and its ledger's amounts and events. */
async function orderOf(org: Org, orderId = ORDER) {
  const order = await call(orderRoute, "GET", `/api/orders/${orderId}`, bearer(org.key), { id: orderId });
  assert.equal(order.status, 200, order.text);
  return { status: order.json.status, credited: order.json.credited, ledger: (order.json.ledger as { amount: number; eventId: string }[]).map((entry) => [entry.amount, entry.eventId]) };
}

before(async () => {
  const client = await db();
  for (const [name, amount] of [
    ["a", 3_000],
    ["b", 1_000],
    ["c", 2_000],
  ] as const) {
    const slug = `cx-${name}`;
    assert.equal((await call(orgsRoute, "POST", "/api/orgs", operator, {}, { slug, name: `Connect ${name}` })).status, 201);
    const key = await call(apiKeysRoute, "POST", "/api/api-keys", { ...operator, "acredita-org": slug }, {}, { name: `${slug} admin`, role: "admin" });
    assert.equal(key.status, 201, key.text);
    const id = (await client.organization.findUniqueOrThrow({ where: { slug } })).id;
    orgs[name] = { slug, id, key: key.json.key as string, amount };
    const order = await call(ordersRoute, "POST", "/api/orders", bearer(orgs[name].key), {}, { id: ORDER, amount, currency: "USD" });
    assert.equal(order.status, 201, order.text);
  }
  const created = await call(endpointsRoute, "POST", "/api/endpoints", { ...operator, "acredita-org": "cx-a" }, {}, { provider: "stripe", account: PLATFORM, livemode: true, processingMode: "inline", secret: SECRET, connect: true });
  assert.equal(created.status, 201, created.text);
  endpointId = created.json.id as string;
});
after(closeDb);

describe("binding connected accounts", () => {
  test("the operator binds acct_cxc1 to B (201, then 200 when bound again) and acct_cxc2 to C; A's admin may not route an account to another organization; the list shows both; each is audited in A", async () => {
    // A's admin cannot write a connected account's money into B's books: 403, the same whether B exists or not.
    for (const org of ["cx-b", "cx-nowhere"]) {
      const refused = await bind(endpointId, "acct_cxc1", { org }, bearer(orgs.a.key));
      assert.deepEqual([refused.status, refused.json], [403, { error: "org: only the operator (API_TOKEN) binds a connected account to another organization than the endpoint's own", code: "forbidden" }], org);
    }
    const first = await bind(endpointId, "acct_cxc1", { org: "cx-b" });
    assert.deepEqual([first.status, first.json], [201, { endpointId, account: "acct_cxc1", org: "cx-b" }]);
    const again = await bind(endpointId, "acct_cxc1", { org: "cx-b" });
    assert.deepEqual([again.status, again.json], [200, { endpointId, account: "acct_cxc1", org: "cx-b" }]);
    const byOperator = await bind(endpointId, "acct_cxc2", { org: "cx-c" });
    assert.deepEqual([byOperator.status, byOperator.json], [201, { endpointId, account: "acct_cxc2", org: "cx-c" }]);
    const listed = await bindings(endpointId);
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(
      (listed.json.data as Record<string, unknown>[]).map((binding) => [binding.account, binding.org, binding.endpointId]),
      [
        ["acct_cxc1", "cx-b", endpointId],
        ["acct_cxc2", "cx-c", endpointId],
      ],
    );
    assert.equal(listed.json.count, 2);
    const audit = await (await db()).auditEntry.findMany({ where: { targetId: endpointId, action: { startsWith: "connect." } }, orderBy: { at: "asc" }, select: { organizationId: true, action: true, actorEmail: true, note: true } });
    assert.deepEqual(audit, [
      { organizationId: orgs.a.id, action: "connect.bind", actorEmail: "operator (API_TOKEN)", note: "connected account acct_cxc1 bound to organization cx-b: its events are booked there" },
      { organizationId: orgs.a.id, action: "connect.bind", actorEmail: "operator (API_TOKEN)", note: "connected account acct_cxc2 bound to organization cx-c: its events are booked there" },
    ]);
  });

  test("refused: another organization's admin (404 on every route), a non-Connect endpoint (400 not_connect), a bad account id, an unknown slug, the platform's own account, a merchant key", async () => {
    const b = bearer(orgs.b.key);
    for (const answer of [await bind(endpointId, "acct_cxc9", { org: "cx-b" }, b), await unbind(endpointId, "acct_cxc1", b), await bindings(endpointId, b)]) {
      assert.deepEqual([answer.status, answer.json.code], [404, "not_found"], answer.text);
    }
    // The operator without A's header acts in the default organization: A's endpoint is not there.
    assert.equal((await bind(endpointId, "acct_cxc9", { org: "cx-b" }, operator)).status, 404);
    const plain = await call(endpointsRoute, "POST", "/api/endpoints", bearer(orgs.a.key), {}, { provider: "stripe", account: "acct_cxplain", livemode: true, secret: SECRET });
    assert.equal(plain.status, 201, plain.text);
    const plainId = plain.json.id as string;
    const notConnect = await bind(plainId, "acct_cxc9", { org: "cx-b" });
    assert.deepEqual([notConnect.status, notConnect.json.code], [400, "not_connect"]);
    assert.deepEqual([(await bindings(plainId)).status, (await unbind(plainId, "acct_cxc9")).status], [400, 400]);
    for (const account of ["acct_", "acct_bad-1", "cus_cxc1", `acct_${"x".repeat(256)}`]) {
      const bad = await bind(endpointId, account, { org: "cx-b" });
      assert.deepEqual([bad.status, bad.json.code], [400, "invalid_account"], account);
    }
    const unknown = await bind(endpointId, "acct_cxc9", { org: "cx-nowhere" });
    assert.deepEqual([unknown.status, unknown.json], [400, { error: "org: no organization has the slug cx-nowhere", code: "unknown_org" }]);
    const badBody = await bind(endpointId, "acct_cxc9", { org: "cx-b", extra: 1 });
    assert.deepEqual([badBody.status, badBody.json.code], [400, "invalid_body"]);
    const own = await bind(endpointId, PLATFORM, { org: "cx-b" });
    assert.deepEqual([own.status, own.json.code], [400, "platform_account"]);
    const merchantKey = await call(apiKeysRoute, "POST", "/api/api-keys", { ...operator, "acredita-org": "cx-a" }, {}, { name: "cx-a merchant", role: "merchant" });
    assert.equal((await bind(endpointId, "acct_cxc9", { org: "cx-b" }, bearer(merchantKey.json.key as string))).status, 403);
    assert.equal((await unbind(endpointId, "acct_cxc9")).status, 404);
    assert.equal(await (await db()).connectBinding.count({ where: { account: "acct_cxc9" } }), 0);
  });

  test("a bound account belongs to its organization: another organization cannot take it with an endpoint of its own (409 account_taken)", async () => {
    const taken = await call(endpointsRoute, "POST", "/api/endpoints", bearer(orgs.c.key), {}, { provider: "stripe", account: "acct_cxc1", livemode: true, secret: SECRET });
    assert.deepEqual([taken.status, taken.json.code], [409, "account_taken"], taken.text);
    // The other mode is another scope.
    const testMode = await call(endpointsRoute, "POST", "/api/endpoints", bearer(orgs.c.key), {}, { provider: "stripe", account: "acct_cxc1", livemode: false, secret: SECRET });
    assert.equal(testMode.status, 201, testMode.text);
    assert.equal((await call(endpointsRoute, "GET", "/api/endpoints", bearer(orgs.c.key))).status, 200);
  });
});

describe("routing events by their account", () => {
  test("acct_cxc1's payment for CX-1 credits B's CX-1; acct_cxc2's, with the same event id and payment, credits C's CX-1; each once, nothing elsewhere", async () => {
    const same = { paymentIntent: "pi_cx_same" };
    const c1 = await pay("evt_cx_pay", ORDER, 1_000, "acct_cxc1", same);
    assert.deepEqual([c1.status, c1.json], [200, { outcome: "applied", reason: "credited 1000 USD; order CX-1 created -> paid" }]);
    const c2 = await pay("evt_cx_pay", ORDER, 2_000, "acct_cxc2", same);
    assert.deepEqual([c2.status, c2.json], [200, { outcome: "applied", reason: "credited 2000 USD; order CX-1 created -> paid" }]);
    // Each again: a duplicate in its own scope.
    assert.deepEqual((await pay("evt_cx_pay", ORDER, 1_000, "acct_cxc1", same)).json.outcome, "duplicate");
    assert.deepEqual(await orderOf(orgs.b), { status: "paid", credited: 1_000, ledger: [[1_000, "evt_cx_pay"]] });
    assert.deepEqual(await orderOf(orgs.c), { status: "paid", credited: 2_000, ledger: [[2_000, "evt_cx_pay"]] });
    assert.deepEqual(await orderOf(orgs.a), { status: "created", credited: 0, ledger: [] });
    const client = await db();
    const events = await client.webhookEvent.findMany({ where: { eventId: "evt_cx_pay" }, orderBy: { account: "asc" }, select: { organizationId: true, account: true, endpoint: true, status: true } });
    assert.deepEqual(events, [
      { organizationId: orgs.b.id, account: "acct_cxc1", endpoint: endpointId, status: "processed" },
      { organizationId: orgs.c.id, account: "acct_cxc2", endpoint: endpointId, status: "processed" },
    ]);
    const ledger = await client.ledgerEntry.findMany({ where: { orderId: ORDER }, orderBy: { amount: "asc" }, select: { organizationId: true, amount: true, businessKey: true } });
    assert.deepEqual(ledger, [
      { organizationId: orgs.b.id, amount: 1_000, businessKey: "credit:stripe:acct_cxc1:live:pi_cx_same" },
      { organizationId: orgs.c.id, amount: 2_000, businessKey: "credit:stripe:acct_cxc2:live:pi_cx_same" },
    ]);
    const decisions = await client.decision.findMany({ where: { eventId: "evt_cx_pay", outcome: "applied" }, select: { organizationId: true } });
    assert.deepEqual(decisions.map((decision) => decision.organizationId).sort(), [orgs.b.id, orgs.c.id].sort());
  });

  test("an event without account is the platform's own: A's CX-1, scoped by the platform account", async () => {
    const own = await pay("evt_cx_platform", ORDER, 3_000, undefined);
    assert.deepEqual([own.status, own.json.outcome], [200, "applied"], JSON.stringify(own.json));
    assert.deepEqual(await orderOf(orgs.a), { status: "paid", credited: 3_000, ledger: [[3_000, "evt_cx_platform"]] });
    const stored = await (await db()).webhookEvent.findFirstOrThrow({ where: { eventId: "evt_cx_platform" }, select: { organizationId: true, account: true } });
    assert.deepEqual(stored, { organizationId: orgs.a.id, account: PLATFORM });
  });

  test("an unbound account's event: 200 ignored (account_not_bound), no stored event, nothing booked, counted in the metrics", async () => {
    const client = await db();
    const ledgerBefore = await client.ledgerEntry.count();
    const stray = await pay("evt_cx_stray", ORDER, 3_000, "acct_cxc9");
    assert.deepEqual([stray.status, stray.json], [200, { outcome: "ignored", reason: `Connect event of account acct_cxc9, which endpoint ${endpointId} is not bound to: recorded, not applied` }]);
    assert.equal(await client.webhookEvent.count({ where: { eventId: "evt_cx_stray" } }), 0);
    assert.equal(await client.ledgerEntry.count(), ledgerBefore);
    const decision = await client.decision.findFirstOrThrow({ where: { eventId: "evt_cx_stray" }, select: { organizationId: true, outcome: true, reasonCode: true, httpStatus: true, endpoint: true } });
    assert.deepEqual(decision, { organizationId: orgs.a.id, outcome: "ignored", reasonCode: "account_not_bound", httpStatus: 200, endpoint: endpointId });
    const metrics = await call(metricsRoute, "GET", "/api/metrics", operator);
    assert.equal(metrics.json.unboundAccountEventsLastHour, 1);
    const prometheus = await call(prometheusRoute, "GET", "/api/metrics/prometheus", operator);
    assert.ok(prometheus.text.split("\n").includes("acredita_connect_events_unbound_last_hour 1"), prometheus.text);
  });

  test("after an unbind (204) the account's next event is ignored; the books it made stay", async () => {
    const removed = await unbind(endpointId, "acct_cxc1");
    assert.deepEqual([removed.status, removed.text], [204, ""]);
    assert.equal((await unbind(endpointId, "acct_cxc1")).status, 404);
    const next = await pay("evt_cx_after_unbind", "CX-2", 500, "acct_cxc1");
    assert.deepEqual([next.status, next.json.outcome], [200, "ignored"]);
    const client = await db();
    assert.equal((await client.decision.findFirstOrThrow({ where: { eventId: "evt_cx_after_unbind" } })).reasonCode, "account_not_bound");
    assert.equal(await client.webhookEvent.count({ where: { eventId: "evt_cx_after_unbind" } }), 0);
    assert.deepEqual(await orderOf(orgs.b), { status: "paid", credited: 1_000, ledger: [[1_000, "evt_cx_pay"]] });
    const audit = await client.auditEntry.findFirstOrThrow({ where: { targetId: endpointId, action: "connect.unbind" }, select: { note: true, organizationId: true } });
    assert.deepEqual(audit, { note: "connected account acct_cxc1 unbound from organization cx-b: its next events are recorded, not applied", organizationId: orgs.a.id });
  });

  test("rebinding to another organization is refused (409 account_bound) unless it moves explicitly; the next events go to the new organization", async () => {
    const refused = await bind(endpointId, "acct_cxc2", { org: "cx-b" });
    assert.deepEqual([refused.status, refused.json.code], [409, "account_bound"], refused.text);
    const moved = await bind(endpointId, "acct_cxc2", { org: "cx-b", move: true });
    assert.deepEqual([moved.status, moved.json], [200, { endpointId, account: "acct_cxc2", org: "cx-b" }]);
    assert.equal((await call(ordersRoute, "POST", "/api/orders", bearer(orgs.b.key), {}, { id: "CX-3", amount: 700, currency: "USD" })).status, 201);
    const next = await pay("evt_cx_moved", "CX-3", 700, "acct_cxc2");
    assert.deepEqual([next.status, next.json.outcome], [200, "applied"], JSON.stringify(next.json));
    assert.deepEqual(await orderOf(orgs.b, "CX-3"), { status: "paid", credited: 700, ledger: [[700, "evt_cx_moved"]] });
    // C's books keep what was booked while it held the account.
    assert.deepEqual(await orderOf(orgs.c), { status: "paid", credited: 2_000, ledger: [[2_000, "evt_cx_pay"]] });
    const audit = await (await db()).auditEntry.findFirstOrThrow({ where: { targetId: endpointId, action: "connect.move" }, select: { note: true } });
    assert.equal(audit.note, "connected account acct_cxc2 moved from organization cx-c to cx-b: its next events are booked there, its earlier books stay");
  });
});

describe("a connected account's dead letter", () => {
  test("an inline payment for an order B does not have yet is dead-lettered in B under the connected account; retried once B has the order, it credits B's", async () => {
    // acct_cxc2 was moved to B above.
    const early = await pay("evt_cx_early", "CX-5", 600, "acct_cxc2");
    assert.deepEqual([early.status, early.json.outcome], [409, "dead_lettered"], JSON.stringify(early.json));
    const client = await db();
    const letter = await client.deadLetter.findFirstOrThrow({ where: { eventId: "evt_cx_early" }, select: { id: true, organizationId: true, account: true, category: true } });
    assert.deepEqual({ ...letter, id: undefined }, { id: undefined, organizationId: orgs.b.id, account: "acct_cxc2", category: "unknown_order" });
    assert.equal((await call(ordersRoute, "POST", "/api/orders", bearer(orgs.b.key), {}, { id: "CX-5", amount: 600, currency: "USD" })).status, 201);
    const retried = await retryDeadLetter(client, orgs.b.id, letter.id, "admin@cx-b.test");
    assert.equal(retried.outcome, "applied", retried.reason);
    assert.deepEqual(await orderOf(orgs.b, "CX-5"), { status: "paid", credited: 600, ledger: [[600, "evt_cx_early"]] });
  });
});

describe("inbox mode and other processes", () => {
  test("inbox mode: the routed organization and account are stored on the row at receipt, and the worker books there", async () => {
    const created = await call(endpointsRoute, "POST", "/api/endpoints", { ...operator, "acredita-org": "cx-a" }, {}, { provider: "stripe", account: PLATFORM, livemode: false, processingMode: "inbox", secret: TEST_SECRET, connect: true });
    assert.equal(created.status, 201, created.text);
    inboxEndpointId = created.json.id as string;
    // acct_cxc1's test mode belongs to C (its own endpoint, above): binding it to B is refused; to C it is fine.
    assert.equal((await bind(inboxEndpointId, "acct_cxc1", { org: "cx-b" })).json.code, "account_taken");
    assert.equal((await bind(inboxEndpointId, "acct_cxc1", { org: "cx-c" })).status, 201);
    assert.equal((await call(ordersRoute, "POST", "/api/orders", bearer(orgs.c.key), {}, { id: "CX-T", amount: 900, currency: "USD", livemode: false })).status, 201);
    const accepted = await pay("evt_cx_inbox", "CX-T", 900, "acct_cxc1", { endpoint: inboxEndpointId, secret: TEST_SECRET, livemode: false });
    assert.deepEqual([accepted.status, accepted.json.outcome], [200, "accepted"]);
    const client = await db();
    assert.deepEqual(await client.webhookEvent.findFirstOrThrow({ where: { eventId: "evt_cx_inbox" }, select: { organizationId: true, account: true, livemode: true } }), { organizationId: orgs.c.id, account: "acct_cxc1", livemode: false });
    const results = await new InboxWorker(db, { policy: { baseDelayMs: 1_000, maxDelayMs: 10_000, maxAttempts: 3, maxAgeSeconds: 3_600 }, leaseMs: 30_000, random: () => 0.5 }).drain();
    assert.deepEqual(results.map((result) => result.kind), ["applied"]);
    assert.deepEqual(await orderOf(orgs.c, "CX-T"), { status: "paid", credited: 900, ledger: [[900, "evt_cx_inbox"]] });
    const unbound = await pay("evt_cx_inbox_stray", "CX-T", 900, "acct_cxc7", { endpoint: inboxEndpointId, secret: TEST_SECRET, livemode: false });
    assert.deepEqual([unbound.status, unbound.json.outcome], [200, "ignored"]);
    assert.equal(await client.webhookEvent.count({ where: { eventId: "evt_cx_inbox_stray" } }), 0);
  });

  test("a binding written by another process (the row and the counter, this process's cache not told) routes here within a second", async () => {
    assert.equal((await call(ordersRoute, "POST", "/api/orders", bearer(orgs.c.key), {}, { id: "CX-4", amount: 400, currency: "USD" })).status, 201);
    // Served once, so the endpoint (without acct_cxc4's binding) is in this process's cache.
    assert.equal((await pay("evt_cx_elsewhere_1", "CX-4", 400, "acct_cxc4")).json.outcome, "ignored");
    const client = await db();
    await client.$transaction([
      client.connectBinding.create({ data: { endpointId, account: "acct_cxc4", organizationId: orgs.c.id, createdBy: "another process" } }),
      client.configVersion.update({ where: { name: "endpoints" }, data: { version: { increment: 1 } } }),
    ]);
    await new Promise((resolve) => setTimeout(resolve, ENDPOINTS_VERSION_CHECK_MS + 50));
    const later = await pay("evt_cx_elsewhere_2", "CX-4", 400, "acct_cxc4");
    assert.deepEqual([later.status, later.json.outcome], [200, "applied"], JSON.stringify(later.json));
    assert.deepEqual(await orderOf(orgs.c, "CX-4"), { status: "paid", credited: 400, ledger: [[400, "evt_cx_elsewhere_2"]] });
  });
});
