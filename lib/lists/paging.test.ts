import assert from "node:assert/strict";
import { test } from "node:test";
import { dayFromParams, pageOf, pagingFromParams, pagingSchema, prefixRange, timeFromParams, toQueryString } from "@/lib/lists/paging";
import { orderQueryFromParams, orderQuerySchema } from "@/lib/orders/list-orders";
import { decisionQueryFromParams } from "@/lib/decisions/list-decisions";

test("the URL is parsed leniently: a bad value falls back to the default, never throws", () => {
  assert.deepEqual(pagingFromParams({ page: "3", pageSize: "50" }), { page: 3, pageSize: 50 });
  assert.deepEqual(pagingFromParams({ page: "-2", pageSize: "1000" }), { page: 1, pageSize: 25 });
  assert.deepEqual(pagingFromParams({ page: "abc", pageSize: "7" }), { page: 1, pageSize: 25 });
  assert.deepEqual(pagingFromParams({ page: ["4", "9"] }), { page: 4, pageSize: 25 });
  assert.deepEqual(pagingFromParams({ page: "99999999" }), { page: 10_000, pageSize: 25 });
  const orders = orderQueryFromParams({ sort: "password", dir: "sideways", status: "stolen", currency: "ars", from: "2026-02-30", to: "2026-11-29", q: " ord_10 " });
  assert.equal(orders.sort, "updatedAt");
  assert.equal(orders.dir, "desc");
  assert.equal(orders.status, undefined);
  assert.equal(orders.currency, "ARS");
  assert.equal(orders.from, undefined);
  assert.equal(orders.to?.toISOString(), "2026-11-30T00:00:00.000Z");
  assert.equal(orders.q, "ord_10");
  const decisions = decisionQueryFromParams({ outcome: "applied", status: "999", from: "2026-11-29T10:30", to: "nope" });
  assert.equal(decisions.outcome, "applied");
  assert.equal(decisions.httpStatus, undefined);
  assert.equal(decisions.from?.toISOString(), "2026-11-29T10:30:00.000Z");
  assert.equal(decisions.to, undefined);
});

test("queries are validated strictly: pageSize is capped at 100", () => {
  assert.equal(pagingSchema.safeParse({ page: 1, pageSize: 100 }).success, true);
  assert.equal(pagingSchema.safeParse({ page: 1, pageSize: 101 }).success, false);
  assert.equal(pagingSchema.safeParse({ page: 0, pageSize: 10 }).success, false);
  assert.equal(orderQuerySchema.safeParse({ page: 1, pageSize: 10, sort: "credited", dir: "asc" }).success, false);
});

test("pages, days, times, query strings and id prefixes", () => {
  assert.deepEqual(pageOf(["a"], 51, 2, 25), { data: ["a"], count: 51, page: 2, pageSize: 25, totalPages: 3 });
  assert.equal(pageOf([], 0, 1, 25).totalPages, 1);
  assert.equal(dayFromParams({ d: "2026-11-29" }, "d")?.toISOString(), "2026-11-29T00:00:00.000Z");
  assert.equal(dayFromParams({ d: "29/11/2026" }, "d"), undefined);
  assert.equal(timeFromParams({ t: "2026-11-29T10:30:15" }, "t")?.toISOString(), "2026-11-29T10:30:15.000Z");
  assert.equal(toQueryString({ a: "1", b: undefined, c: "", d: 2 }), "?a=1&d=2");
  assert.equal(toQueryString({}), "");
  assert.deepEqual(prefixRange("ord_10"), { gte: "ord_10", lt: "ord_10\uffff" });
});
