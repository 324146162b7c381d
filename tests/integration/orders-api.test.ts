import { TEST_API_TOKEN } from "@/e2e/support/test-env";
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { closeDb } from "@/lib/db/client";
import * as ordersRoute from "@/app/api/orders/route";
import * as orderRoute from "@/app/api/orders/[id]/route";
import { createOrder, deliverLab, labEvent, listOrdersWith, readOrder } from "@/e2e/support/http";

after(closeDb);

describe("orders API", () => {
  test("POST /api/orders creates (201), the same body again is 200, a conflicting one 409", async () => {
    const created = await createOrder("ord_api_1", 2500000, "ars");
    assert.equal(created.status, 201);
    assert.deepEqual([created.json.id, created.json.status, created.json.amount, created.json.currency, created.json.credited], ["ord_api_1", "created", 2500000, "ARS", 0]);
    assert.equal((await createOrder("ord_api_1", 2500000, "ARS")).status, 200);
    const conflict = await createOrder("ord_api_1", 2600000, "ARS");
    assert.deepEqual([conflict.status, conflict.json.code, conflict.json.error], [409, "conflict", "order ord_api_1 already exists with different fields"]);
  });

  test("invalid orders are 400 naming the field", async () => {
    const negative = await createOrder("ord_api_bad", -1, "ARS");
    assert.deepEqual([negative.status, negative.json.error], [400, "amount: Too small: expected number to be >=1"]);
    const fraction = await createOrder("ord_api_bad", 10.5, "ARS");
    assert.deepEqual([fraction.status, fraction.json.error], [400, "amount: Invalid input: expected int, received number"]);
    const currency = await createOrder("ord_api_bad", 10, "PESOS");
    assert.deepEqual([currency.status, currency.json.error], [400, "currency: must be a 3-letter ISO 4217 code"]);
    const unknown = await createOrder("ord_api_bad", 10, "ZZZ");
    assert.deepEqual([unknown.status, unknown.json.error], [400, "currency: must be an ISO 4217 currency code (e.g. ARS, USD)"]);
  });

  test("a body that is not declared JSON is 415 naming what it expects, and creates nothing", async () => {
    // The body lacks its currency: past the media-type check it is a 400 naming the field, so no order is left behind.
    const post = (contentType: string) =>
      ordersRoute.POST(new Request("http://127.0.0.1/api/orders", { method: "POST", body: JSON.stringify({ id: "ord_api_plain", amount: 10 }), headers: { authorization: `Bearer ${TEST_API_TOKEN}`, "content-type": contentType } }));
    const plain = await post("text/plain");
    assert.deepEqual([plain.status, await plain.json()], [415, { error: "unsupported Content-Type text/plain: expected application/json", code: "unsupported_media_type" }]);
    const form = await post("application/x-www-form-urlencoded");
    assert.equal(form.status, 415);
    const json = await post("application/json; charset=utf-8");
    assert.deepEqual([json.status, (await json.json()).error], [400, "currency: Invalid input: expected string, received undefined"]);
  });

  test("a method a route does not serve is 405 JSON with Allow (PUT, PATCH, DELETE on the list; POST, PUT, PATCH, DELETE on one order); OPTIONS lists the same", async () => {
    const answers = [];
    for (const method of ["PUT", "PATCH", "DELETE"] as const) {
      const response = ordersRoute[method](new Request("http://127.0.0.1/api/orders", { method }));
      answers.push([method, response.status, response.headers.get("allow"), await response.json()]);
    }
    for (const method of ["POST", "PUT", "PATCH", "DELETE"] as const) {
      const response = orderRoute[method](new Request("http://127.0.0.1/api/orders/ord_1", { method }));
      answers.push([method, response.status, response.headers.get("allow"), await response.json()]);
    }
    assert.deepEqual(answers, [
      ["PUT", 405, "GET, POST, HEAD, OPTIONS", { error: "method PUT not allowed here; allowed: GET, POST, HEAD, OPTIONS", code: "method_not_allowed" }],
      ["PATCH", 405, "GET, POST, HEAD, OPTIONS", { error: "method PATCH not allowed here; allowed: GET, POST, HEAD, OPTIONS", code: "method_not_allowed" }],
      ["DELETE", 405, "GET, POST, HEAD, OPTIONS", { error: "method DELETE not allowed here; allowed: GET, POST, HEAD, OPTIONS", code: "method_not_allowed" }],
      ["POST", 405, "GET, HEAD, OPTIONS", { error: "method POST not allowed here; allowed: GET, HEAD, OPTIONS", code: "method_not_allowed" }],
      ["PUT", 405, "GET, HEAD, OPTIONS", { error: "method PUT not allowed here; allowed: GET, HEAD, OPTIONS", code: "method_not_allowed" }],
      ["PATCH", 405, "GET, HEAD, OPTIONS", { error: "method PATCH not allowed here; allowed: GET, HEAD, OPTIONS", code: "method_not_allowed" }],
      ["DELETE", 405, "GET, HEAD, OPTIONS", { error: "method DELETE not allowed here; allowed: GET, HEAD, OPTIONS", code: "method_not_allowed" }],
    ]);
    const listOptions = ordersRoute.OPTIONS();
    const oneOptions = orderRoute.OPTIONS();
    assert.deepEqual([listOptions.status, listOptions.headers.get("allow"), oneOptions.status, oneOptions.headers.get("allow")], [204, "GET, POST, HEAD, OPTIONS", 204, "GET, HEAD, OPTIONS"]);
  });

  test("GET needs the bearer token: none or a wrong one is 401", async () => {
    assert.equal((await listOrdersWith({})).status, 401);
    assert.equal((await listOrdersWith({ authorization: "Bearer wrong-token-000" })).status, 401);
    assert.equal((await listOrdersWith({ authorization: `Basic ${TEST_API_TOKEN}` })).status, 401);
    const huge = await listOrdersWith({ authorization: `Bearer ${TEST_API_TOKEN}` }, "?offset=99999999999999999999");
    assert.deepEqual([huge.status, ((await huge.json()) as { error: string }).error], [400, "offset: Too big: expected number to be <=1000000000"]);
    assert.equal((await listOrdersWith({ authorization: `Bearer ${TEST_API_TOKEN}` }, "?limit=abc")).status, 400);
    const ok = await listOrdersWith({ authorization: `Bearer ${TEST_API_TOKEN}` });
    assert.equal(ok.status, 200);
    const body = (await ok.json()) as { data: { id: string }[]; count: number };
    assert.equal(body.count, 1);
    assert.deepEqual(body.data.map((order) => order.id), ["ord_api_1"]);
  });

  test("an order's credited is the sum of its ledger entries and its events are listed", async () => {
    await createOrder("ord_api_2", 1500000, "ARS");
    await deliverLab(labEvent("evt_api_a", "payment.approved", "ord_api_2", "pay_api_2", 1500000));
    await deliverLab(labEvent("evt_api_r", "payment.refunded", "ord_api_2", "pay_api_2", 1500000));
    const order = await readOrder("ord_api_2");
    assert.deepEqual([order.status, order.credited], ["refunded", 0]);
    assert.deepEqual(order.ledger.map((entry) => [entry.kind, entry.amount]), [["credit", 1500000], ["refund", -1500000]]);
    assert.deepEqual(order.events.map((event) => [event.eventId, event.status]), [["evt_api_a", "processed"], ["evt_api_r", "processed"]]);
  });
});

describe("GET /api/orders's query", () => {
  const list = async (query: string) => {
    const response = await listOrdersWith({ authorization: `Bearer ${TEST_API_TOKEN}` }, query);
    return { status: response.status, json: (await response.json()) as { error?: string; code?: string; data?: { id: string; status: string }[]; count?: number } };
  };

  test("?status= filters by a known status; an unknown one is 400 listing the statuses", async () => {
    const paid = await list("?status=created");
    assert.equal(paid.status, 200);
    assert.ok(paid.json.data!.length > 0 && paid.json.data!.every((order) => order.status === "created"));
    assert.equal(paid.json.count, paid.json.data!.length);
    assert.deepEqual(await list("?status=bogus"), { status: 400, json: { error: "status: must be one of created, paid, refunded, disputed, dispute_lost", code: "invalid_query" } });
  });

  test("a parameter it does not take (page, a misspelt status) is 400 naming it, never ignored", async () => {
    assert.deepEqual(await list("?page=99"), { status: 400, json: { error: "page: not a parameter of GET /api/orders (it takes limit, offset, cursor, status, currency, from, to, q, attention)", code: "invalid_query" } });
    assert.deepEqual(await list("?stauts=paid&limit=5"), { status: 400, json: { error: "stauts: not a parameter of GET /api/orders (it takes limit, offset, cursor, status, currency, from, to, q, attention)", code: "invalid_query" } });
  });
});
