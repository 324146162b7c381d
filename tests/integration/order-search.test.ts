import { TEST_API_TOKEN, TEST_DB } from "@/e2e/support/test-env";
// Finding an order as a support agent does with a customer on the phone: by any part of its id in any
// case, by its checkout session, a payment, charge or event id, or the customer's e-mail (for roles that
// may read personal data, and only while the payload is kept); "needs attention" as a filter and a mark;
// GET /api/orders's search and cursor through the route handler; and the plans that keep each kind an
// index read on the database under test.
import assert from "node:assert/strict";
import Database from "better-sqlite3";
import pg from "pg";
import { after, before, describe, test } from "node:test";
import * as ordersRoute from "@/app/api/orders/route";
import * as ordersCsvRoute from "@/app/api/exports/orders.csv/route";
import * as ledgerCsvRoute from "@/app/api/exports/ledger.csv/route";
import * as ledgerRoute from "@/app/api/ledger/route";
import { createApiKeyAs } from "@/lib/auth/api-keys";
import { createUserWithPassword } from "@/lib/auth/users";
import { closeDb, db } from "@/lib/db/client";
import { sqliteDate } from "@/lib/db/driver";
import { listOrdersPage, type OrderQuery } from "@/lib/orders/list-orders";
import { orderPageStatements } from "@/lib/orders/order-rows";
import { namedEventsStatement } from "@/lib/orders/order-search";
import { purgeExpiredPayloads } from "@/lib/retention/purge-payloads";
import { createOrder, deliverLab, labEvent } from "@/e2e/support/http";
import { charge, checkoutSession, deliverStripe, paymentIntent, stripeEvent } from "@/e2e/support/providers";
import { onPostgres } from "@/e2e/support/test-database";
const DEFAULT_ORG = "org_default";

process.env.WEBHOOK_PROCESSING_MODE = "inline";
const SECRET = "whsec_search_0001";
process.env.STRIPE_WEBHOOK_SECRET = SECRET;
process.env.STRIPE_ACCOUNT_ID = "acct_search_tests";

const base: OrderQuery = { page: 1, pageSize: 50, sort: "id", dir: "asc" };
const admin = { id: "admin-search", email: "admin@search.test", name: "Admin", role: "admin" as const, organizationId: "org_default" };
const keys: Record<"merchant" | "support", string> = { merchant: "", support: "" };

async function search(q: string, options: { emails?: boolean; attention?: boolean } = {}) {
  const page = await listOrdersPage(await db(), DEFAULT_ORG, { ...base, q, attention: options.attention }, { emails: options.emails ?? true });
  // In code-point order whatever the database's collation (ids of mixed case).
  return page.data.map((row) => [row.id, row.matchedBy.join("+")]).sort(([a], [b]) => (a < b ? -1 : 1));
}

async function stripe(body: Record<string, unknown>) {
  const answer = await deliverStripe(JSON.stringify(body), { secret: SECRET });
  assert.equal(answer.status, 200, JSON.stringify(answer.json));
}

async function apiList(query: string, bearer = TEST_API_TOKEN) {
  const response = await ordersRoute.GET(new Request(`http://127.0.0.1/api/orders${query}`, { headers: { authorization: `Bearer ${bearer}` } }));
  return { status: response.status, json: (await response.json()) as { data?: { id: string; matchedBy: string[]; attention: { openDeadLetters: number; openExtraCharges: number } }[]; count?: number; nextCursor?: string | null; error?: string; code?: string } };
}

before(async () => {
  for (const [id, amount, currency, extra] of [
    ["ord_Search_Lab_1", 1000, "ARS", {}],
    ["ord_search_stripe_1", 2500, "USD", { checkoutSessionId: "cs_search_1" }],
    ["ord_search_stripe_2", 1000, "USD", {}],
    ["ord_search_dl", 3000, "ARS", {}],
    ["ordXsearch_9", 4000, "ARS", {}],
    // Created without its checkout session: the session names it only through client_reference_id.
    ["ord_cs_ref_3", 3500, "USD", {}],
  ] as const) {
    assert.equal((await createOrder(id, amount, currency, extra)).status, 201);
  }
  assert.equal((await deliverLab(labEvent("evt_s_lab_1", "payment.approved", "ord_Search_Lab_1", "pay_s_lab_1", 1000))).json.outcome, "applied");
  // A second payment of the paid order: an open extra charge. A refund before any payment: an open dead letter.
  assert.equal((await deliverLab(labEvent("evt_s_lab_2", "payment.approved", "ord_Search_Lab_1", "pay_s_lab_1_again", 1000))).json.outcome, "applied");
  assert.equal((await deliverLab(labEvent("evt_s_dl", "payment.refunded", "ord_search_dl", "pay_s_dl", 3000))).status, 409);

  // Stripe: a Checkout Session paid with the customer's e-mail, a partial refund of its charge, and a
  // second order of the same customer paid by an intent with a receipt e-mail.
  await stripe(stripeEvent("evt_s_cs_1", "checkout.session.completed", { ...checkoutSession({ id: "cs_search_1", paymentIntent: "pi_search_1", amount: 2500, currency: "usd" }), customer_details: { email: "Ana.Search@Example.COM", name: "Ana" } }));
  await stripe(stripeEvent("evt_s_ch_1", "charge.refunded", { ...charge({ id: "ch_search_1", paymentIntent: "pi_search_1", amount: 2500, amountRefunded: 500, currency: "usd", orderId: "ord_search_stripe_1" }), billing_details: { email: "ana.search@example.com" } }, { created: 1764400100 }));
  await stripe(stripeEvent("evt_s_cs_3", "checkout.session.completed", checkoutSession({ id: "cs_search_3", paymentIntent: "pi_search_3", clientReferenceId: "ord_cs_ref_3", amount: 3500, currency: "usd" })));
  await stripe(stripeEvent("evt_s_pi_2", "payment_intent.succeeded", { ...paymentIntent({ id: "pi_search_2", orderId: "ord_search_stripe_2", amount: 1000, currency: "usd" }), receipt_email: "ANA.search@example.com" }));

  const client = await db();
  for (const role of ["merchant", "support"] as const) {
    const user = await createUserWithPassword(client, { email: `${role}@search.test`, name: role, role, password: "quiet-harbour-lantern-2026" });
    assert.equal(user.kind, "created");
    if (user.kind !== "created") continue;
    const key = await createApiKeyAs(client, admin, { userId: user.user.id, name: "search", days: 30 });
    keys[role] = key.kind === "created" ? key.key : assert.fail("no key");
  }
});
after(closeDb);

describe("search: each kind of id, the e-mail, and case", () => {
  test("the order id matches any part in any case; '_' is a character, not a wildcard", async () => {
    assert.deepEqual(await search("SEARCH_lab"), [["ord_Search_Lab_1", "order_id"]]);
    assert.deepEqual(await search("ord_search"), [
      ["ord_Search_Lab_1", "order_id"],
      ["ord_search_dl", "order_id"],
      ["ord_search_stripe_1", "order_id"],
      ["ord_search_stripe_2", "order_id"],
    ]);
    assert.deepEqual(await search("stripe_2"), [["ord_search_stripe_2", "order_id"]]);
    assert.deepEqual(await search("%"), []);
  });

  test("a checkout session, payment, charge or event id finds its order, exactly and in its own case", async () => {
    assert.deepEqual(await search("cs_search_1"), [["ord_search_stripe_1", "checkout_session_id"]]);
    // An order the merchant created without its session is found by the session its events named.
    assert.deepEqual(await search("cs_search_3"), [["ord_cs_ref_3", "checkout_session_id"]]);
    assert.deepEqual(await search("cs_search"), []);
    assert.deepEqual(await search("pi_search_1"), [["ord_search_stripe_1", "payment_id"]]);
    assert.deepEqual(await search("pi_search_2"), [["ord_search_stripe_2", "payment_id"]]);
    assert.deepEqual(await search("ch_search_1"), [["ord_search_stripe_1", "charge_id"]]);
    assert.deepEqual(await search("evt_s_ch_1"), [["ord_search_stripe_1", "event_id"]]);
    assert.deepEqual(await search("pay_s_lab_1"), [["ord_Search_Lab_1", "payment_id"]]);
    assert.deepEqual(await search("pay_s_lab_1_again"), [["ord_Search_Lab_1", "payment_id"]]);
    // The dead-lettered refund was never stored (inline mode): its dead letter still names the order.
    assert.deepEqual(await search("evt_s_dl"), [["ord_search_dl", "event_id"]]);
    // Provider ids match exactly: a part, or another case, finds nothing.
    assert.deepEqual(await search("pi_search"), []);
    assert.deepEqual(await search("PI_SEARCH_1"), []);
    assert.deepEqual(await search("ch_search"), []);
  });

  test("the customer's e-mail finds every order of the customer in any case, for a role that may read personal data only", async () => {
    assert.deepEqual(await search("ana.search@EXAMPLE.com"), [
      ["ord_search_stripe_1", "customer_email"],
      ["ord_search_stripe_2", "customer_email"],
    ]);
    assert.deepEqual(await search(" Ana.Search@example.com "), [
      ["ord_search_stripe_1", "customer_email"],
      ["ord_search_stripe_2", "customer_email"],
    ]);
    assert.deepEqual(await search("ana.search@example.com", { emails: false }), []);
    assert.deepEqual(await search("ana.search@"), []);
    const stored = await (await db()).webhookEvent.findMany({ where: { eventId: { in: ["evt_s_cs_1", "evt_s_ch_1", "evt_s_pi_2", "evt_s_lab_1"] } }, orderBy: { eventId: "asc" }, select: { eventId: true, customerEmail: true, chargeId: true } });
    assert.deepEqual(stored.map((row) => [row.eventId, row.customerEmail, row.chargeId]), [
      ["evt_s_ch_1", "ana.search@example.com", "ch_search_1"],
      ["evt_s_cs_1", "ana.search@example.com", null],
      ["evt_s_lab_1", null, null],
      ["evt_s_pi_2", "ana.search@example.com", null],
    ]);
  });

  test("?attention keeps the orders with an open dead letter or extra charge, and each row carries its counts", async () => {
    const page = await listOrdersPage(await db(), DEFAULT_ORG, { ...base, attention: true });
    assert.deepEqual(page.data.map((row) => [row.id, row.attention.openDeadLetters, row.attention.openExtraCharges]), [
      ["ord_Search_Lab_1", 0, 1],
      ["ord_search_dl", 1, 0],
    ]);
    assert.equal(page.count, 2);
    const all = await listOrdersPage(await db(), DEFAULT_ORG, { ...base, q: "search" });
    assert.deepEqual(all.data.map((row) => [row.id, row.attention.openDeadLetters + row.attention.openExtraCharges]).sort(([a], [b]) => (a < b ? -1 : 1)), [
      ["ordXsearch_9", 0],
      ["ord_Search_Lab_1", 1],
      ["ord_search_dl", 1],
      ["ord_search_stripe_1", 0],
      ["ord_search_stripe_2", 0],
    ]);
    assert.deepEqual((await listOrdersPage(await db(), DEFAULT_ORG, { ...base, q: "ord_search", attention: true, status: "created" })).data.map((row) => row.id), ["ord_search_dl"]);
  });
});

describe("GET /api/orders: the search, attention and the cursor through HTTP", () => {
  test("q finds by e-mail with the operator token and a support key; a merchant's key does not search e-mails", async () => {
    const byToken = await apiList("?q=Ana.Search%40example.com");
    assert.equal(byToken.status, 200);
    assert.deepEqual([byToken.json.count, byToken.json.nextCursor], [2, null]);
    assert.deepEqual(byToken.json.data!.map((order) => [order.id, order.matchedBy]).sort(), [
      ["ord_search_stripe_1", ["customer_email"]],
      ["ord_search_stripe_2", ["customer_email"]],
    ]);
    assert.equal((await apiList("?q=ana.search%40example.com", keys.support)).json.count, 2);
    const merchant = await apiList("?q=ana.search%40example.com", keys.merchant);
    assert.deepEqual([merchant.status, merchant.json.count, merchant.json.data], [200, 0, []]);
    const byPayment = await apiList("?q=pi_search_1", keys.merchant);
    assert.deepEqual(byPayment.json.data!.map((order) => [order.id, order.matchedBy]), [["ord_search_stripe_1", ["payment_id"]]]);
    const attention = await apiList("?attention=1");
    assert.deepEqual(attention.json.data!.map((order) => [order.id, order.attention]).sort(), [
      ["ord_Search_Lab_1", { openDeadLetters: 0, openExtraCharges: 1 }],
      ["ord_search_dl", { openDeadLetters: 1, openExtraCharges: 0 }],
    ]);
  });

  test("the exports and the ledger list search by e-mail for support only: a merchant's key gets the header row and nothing else", async () => {
    const get = async (handler: (request: Request) => Promise<Response>, path: string, bearer: string) => {
      const response = await handler(new Request(`http://127.0.0.1${path}`, { headers: { authorization: `Bearer ${bearer}` } }));
      return { status: response.status, text: await response.text() };
    };
    const orderIds = (csv: string) => csv.trim().split("\r\n").slice(1).map((line) => line.split(",")[0]).sort();
    const support = await get(ordersCsvRoute.GET, "/api/exports/orders.csv?q=ANA.search%40example.com", keys.support);
    assert.equal(support.status, 200);
    assert.deepEqual(orderIds(support.text), ["ord_search_stripe_1", "ord_search_stripe_2"]);
    const merchant = await get(ordersCsvRoute.GET, "/api/exports/orders.csv?q=ANA.search%40example.com", keys.merchant);
    assert.equal(merchant.status, 200);
    assert.deepEqual(orderIds(merchant.text), []);
    assert.equal(merchant.text.includes("@"), false);
    assert.deepEqual(orderIds((await get(ordersCsvRoute.GET, "/api/exports/orders.csv?q=pi_search_1", keys.merchant)).text), ["ord_search_stripe_1"]);
    const ledgerOrders = (csv: string) => [...new Set(csv.trim().split("\r\n").slice(1).map((line) => line.split(",")[2]))].sort();
    assert.deepEqual(ledgerOrders((await get(ledgerCsvRoute.GET, "/api/exports/ledger.csv?q=ana.search%40example.com", keys.support)).text), ["ord_search_stripe_1", "ord_search_stripe_2"]);
    assert.deepEqual(ledgerOrders((await get(ledgerCsvRoute.GET, "/api/exports/ledger.csv?q=ana.search%40example.com", keys.merchant)).text), []);
    const list = async (bearer: string) => JSON.parse((await get(ledgerRoute.GET, "/api/ledger?q=ana.search%40example.com", bearer)).text) as { count: number };
    assert.deepEqual([(await list(keys.support)).count > 0, (await list(keys.merchant)).count], [true, 0]);
  });

  test("cursor walks every match once in the list's order; nextCursor is null on the last page; bad cursors are 400", async () => {
    const everything = await apiList("?q=search&limit=500");
    const expected = everything.json.data!.map((order) => order.id);
    assert.equal(expected.length, 5);
    const seen: string[] = [];
    let cursor: string | null | undefined;
    for (let page = 0; page < 5; page++) {
      const answer = await apiList(`?q=search&limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      assert.equal(answer.status, 200);
      assert.equal(answer.json.count, 5);
      seen.push(...answer.json.data!.map((order) => order.id));
      cursor = answer.json.nextCursor;
      if (!cursor) break;
    }
    assert.deepEqual(seen, expected);
    assert.equal(cursor, null);
    assert.deepEqual(await apiList("?cursor=bm90LWEtY3Vyc29y"), { status: 400, json: { error: "cursor: not a cursor this API gave (use nextCursor from the previous page)", code: "invalid_query" } });
    const both = await apiList(`?offset=2&cursor=${(await apiList("?limit=1")).json.nextCursor}`);
    assert.deepEqual(both, { status: 400, json: { error: "cursor: give offset or cursor, not both", code: "invalid_query" } });
    assert.deepEqual(await apiList("?attention=maybe"), { status: 400, json: { error: "attention: must be 1, true, 0 or false", code: "invalid_query" } });
  });
});

describe("each kind of search is an index read", () => {
  test("SQLite: the events a text names are five index seeks; the order id's part reads a covering index of the organization's orders, no table row", { skip: onPostgres ? "SQLite only" : false }, async () => {
    const sqlite = new Database(TEST_DB.file!, { readonly: true });
    try {
      const named = namedEventsStatement(DEFAULT_ORG, "pi_x", "ana@example.com");
      const plan = (sqlite.prepare(`EXPLAIN QUERY PLAN ${named.sql}`).all(...(named.params as never[])) as { detail: string }[]).map((row) => row.detail).join("\n");
      for (const index of ["WebhookEvent_paymentKey_idx", "WebhookEvent_chargeId_idx", "WebhookEvent_checkoutSessionId_idx", "WebhookEvent_eventId_idx", "WebhookEvent_customerEmail_idx"]) assert.match(plan, new RegExp(`USING INDEX ${index}`), plan);
      assert.doesNotMatch(plan, /SCAN WebhookEvent\b/, plan);
      const { count } = orderPageStatements("sqlite", { organizationId: "org_default", q: "abc" }, [], { sort: "id", dir: "asc", offset: 0, limit: 50 });
      const countPlan = (sqlite.prepare(`EXPLAIN QUERY PLAN ${count.sql}`).all(...(count.params.map((value) => (value instanceof Date ? sqliteDate(value) : value)) as never[])) as { detail: string }[]).map((row) => row.detail).join("\n");
      // The organization's entries of a covering index: no table row, no other organization's orders.
      assert.match(countPlan, /SEARCH Order USING COVERING INDEX \w+ \(organizationId=\?\)/, countPlan);
    } finally {
      sqlite.close();
    }
  });

  test("PostgreSQL: a part of an order id reads the trigram index; the events a text names are a BitmapOr of five indexes", { skip: onPostgres ? false : "PostgreSQL only" }, async () => {
    const client = new pg.Client({ connectionString: TEST_DB.url });
    await client.connect();
    try {
      // 5,000 orders and events, then fresh statistics: the planner weighs the indexes on real numbers
      // (it already picks these plans at 1,500; more rows only cost the database time).
      await client.query(`INSERT INTO "Order" ("id", "amount", "currency", "status", "updatedAt") SELECT 'bulk_' || md5(n::text), 100, 'ARS', 'created', now() FROM generate_series(1, 5000) AS n`);
      await client.query(`
        INSERT INTO "WebhookEvent" ("id", "provider", "endpoint", "account", "livemode", "eventId", "type", "bodyHash", "orderId", "paymentKey", "chargeId", "customerEmail", "status", "payload", "receivedAt")
        SELECT 'we_bulk_' || n, 'lab', 'lab', 'lab', true, 'evt_bulk_' || n, 'payment.approved', 'h', 'bulk_' || md5(n::text), 'pay_bulk_' || n, 'ch_bulk_' || n, 'c' || n || '@example.com', 'processed', '{}', now()
        FROM generate_series(1, 5000) AS n`);
      await client.query(`ANALYZE "Order"; ANALYZE "WebhookEvent"`);
      const numbered = (sql: string) => {
        let n = 0;
        return sql.replace(/\?/g, () => `$${++n}`);
      };
      const { count } = orderPageStatements("postgresql", { organizationId: "org_default", q: "1a2b3" }, [], { sort: "id", dir: "asc", offset: 0, limit: 50 });
      const countPlan = (await client.query<{ "QUERY PLAN": string }>(`EXPLAIN ${numbered(count.sql)}`, count.params)).rows.map((row) => row["QUERY PLAN"]).join("\n");
      assert.match(countPlan, /Bitmap Index Scan on "Order_id_trgm_idx"/, countPlan);
      assert.doesNotMatch(countPlan, /Seq Scan/, countPlan);
      const named = namedEventsStatement(DEFAULT_ORG, "pay_bulk_77", "c77@example.com");
      const plan = (await client.query<{ "QUERY PLAN": string }>(`EXPLAIN ${numbered(named.sql)}`, named.params)).rows.map((row) => row["QUERY PLAN"]).join("\n");
      for (const index of ["WebhookEvent_paymentKey_idx", "WebhookEvent_chargeId_idx", "WebhookEvent_checkoutSessionId_idx", "WebhookEvent_eventId_idx", "WebhookEvent_customerEmail_idx"]) assert.match(plan, new RegExp(`Bitmap Index Scan on "${index}"`), plan);
      assert.doesNotMatch(plan, /Seq Scan/, plan);
      // The rows found are those of the ids and e-mail given, whatever else the table holds.
      assert.deepEqual((await listOrdersPage(await db(), DEFAULT_ORG, { ...base, q: "pay_bulk_77" })).data.map((row) => row.matchedBy), [["payment_id"]]);
    } finally {
      await client.end();
    }
  });
});

describe("retention: the e-mail goes with the payload", () => {
  test("once retention empties the payloads, the e-mail finds nothing and is gone from the rows; ids still find the orders", async () => {
    const report = await purgeExpiredPayloads(await db(), { retentionDays: 30, now: new Date(Date.now() + 60 * 86_400_000) });
    assert.ok(report.eventsPurged >= 3, JSON.stringify(report));
    assert.deepEqual(await search("ana.search@example.com"), []);
    assert.equal(await (await db()).webhookEvent.count({ where: { customerEmail: { not: null } } }), 0);
    assert.deepEqual(await search("pi_search_2"), [["ord_search_stripe_2", "payment_id"]]);
    assert.deepEqual(await search("ch_search_1"), [["ord_search_stripe_1", "charge_id"]]);
  });
});
