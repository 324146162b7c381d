import { TEST_API_TOKEN } from "@/e2e/support/test-env";
// The CSV exports and the JSON lists with cursors, through their route handlers: a header row, one
// record per row (parsed back with csv-parse), money in major units with "." beside a currency column,
// formula-safe text, the pages' filters as query parameters, strict parameters, 401 without credentials.
import assert from "node:assert/strict";
import { parse } from "csv-parse/sync";
import { after, before, describe, test } from "node:test";
import * as decisionsCsvRoute from "@/app/api/exports/decisions.csv/route";
import * as ledgerCsvRoute from "@/app/api/exports/ledger.csv/route";
import * as ordersCsvRoute from "@/app/api/exports/orders.csv/route";
import * as decisionsRoute from "@/app/api/decisions/route";
import * as ledgerRoute from "@/app/api/ledger/route";
import { closeDb, db } from "@/lib/db/client";
import { createOrder, deliverLab, labEvent } from "@/e2e/support/http";

const bearer = { authorization: `Bearer ${TEST_API_TOKEN}` };
type Handler = (request: Request) => Promise<Response>;

async function csv(handler: Handler, query: string, headers: Record<string, string> = bearer): Promise<{ status: number; type: string | null; disposition: string | null; rows: string[][]; text: string }> {
  const response = await handler(new Request(`http://127.0.0.1/api/exports/x.csv${query}`, { headers }));
  const text = await response.text();
  return { status: response.status, type: response.headers.get("content-type"), disposition: response.headers.get("content-disposition"), rows: response.status === 200 ? (parse(text) as string[][]) : [], text };
}

async function json(handler: Handler, query: string, headers: Record<string, string> = bearer) {
  const response = await handler(new Request(`http://127.0.0.1/api/x${query}`, { headers }));
  return { status: response.status, json: (await response.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** The records of `rows` (header first) as objects, by the header's names. */
function records(rows: string[][]): Record<string, string>[] {
  const [header, ...body] = rows;
  return body.map((row) => Object.fromEntries(header.map((name, index) => [name, row[index]])));
}

before(async () => {
  for (const [id, amount, currency] of [
    ["x_ord_1", 2550, "USD"],
    ["x_ord_2", 1500000, "ARS"],
    ["x_ord_3", 500, "JPY"],
    ["-5", 100, "USD"],
  ] as const) {
    assert.equal((await createOrder(id, amount, currency)).status, 201);
  }
  assert.equal((await deliverLab(labEvent("x_evt_1", "payment.approved", "x_ord_1", "x_pay_1", 2550, "USD"))).json.outcome, "applied");
  assert.equal((await deliverLab(labEvent("x_evt_2", "payment.approved", "x_ord_2", "x_pay_2", 1500000))).json.outcome, "applied");
  assert.equal((await deliverLab(labEvent("x_evt_2r", "payment.refunded", "x_ord_2", "x_pay_2", 1500000))).json.outcome, "applied");
  assert.equal((await deliverLab(labEvent("x_evt_3", "payment.approved", "x_ord_3", "x_pay_3", 500, "JPY"))).json.outcome, "applied");
  // A second payment of x_ord_1 (an open extra charge), and an unhandled type that reads as a formula.
  assert.equal((await deliverLab(labEvent("x_evt_1b", "payment.approved", "x_ord_1", "x_pay_1b", 2550, "USD"))).json.outcome, "applied");
  const formula = JSON.stringify({ id: "x_evt_f", type: "=HYPERLINK(\"http://evil.example\",\"x\")", created: 1760181330, data: { payment_id: "x_pay_f", order_id: "-5", amount: 100, currency: "USD" } });
  assert.equal((await deliverLab(formula)).json.outcome, "ignored");
});
after(closeDb);

describe("GET /api/exports/orders.csv", () => {
  test("a header row, then each order in id order: money in major units by the currency's exponent, attention, times in UTC", async () => {
    const answer = await csv(ordersCsvRoute.GET, "");
    assert.equal(answer.status, 200);
    assert.equal(answer.type, "text/csv; charset=utf-8");
    assert.match(answer.disposition ?? "", /^attachment; filename="orders-\d{8}T\d{6}Z\.csv"$/);
    assert.deepEqual(answer.rows[0], ["order_id", "status", "currency", "amount", "credited", "refunded", "disputed", "difference", "open_dead_letters", "open_extra_charges", "livemode", "checkout_session_id", "created_at", "updated_at", "last_event_at"]);
    assert.ok(answer.text.endsWith("\r\n"));
    const byId = new Map(records(answer.rows).map((row) => [row.order_id, row]));
    assert.deepEqual(
      ["x_ord_1", "x_ord_2", "x_ord_3"].map((id) => {
        const row = byId.get(id)!;
        return [row.status, row.currency, row.amount, row.credited, row.refunded, row.difference, row.open_dead_letters, row.open_extra_charges, row.livemode];
      }),
      [
        ["paid", "USD", "25.50", "25.50", "0.00", "0.00", "0", "1", "true"],
        ["refunded", "ARS", "15000.00", "0.00", "15000.00", "0.00", "0", "0", "true"],
        ["paid", "JPY", "500", "500", "0", "0", "0", "0", "true"],
      ],
    );
    assert.match(byId.get("x_ord_1")!.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // An order id a spreadsheet would read as a formula is written as text.
    assert.ok(byId.has("'-5"), [...byId.keys()].join(" "));
    assert.equal(answer.rows.length, 1 + 4);
  });

  test("the page's filters as query parameters; another parameter is 400; no credentials is 401", async () => {
    assert.deepEqual(records((await csv(ordersCsvRoute.GET, "?status=paid&currency=USD")).rows).map((row) => row.order_id), ["x_ord_1"]);
    assert.deepEqual(records((await csv(ordersCsvRoute.GET, "?q=X_ORD")).rows).map((row) => row.order_id), ["x_ord_1", "x_ord_2", "x_ord_3"]);
    assert.deepEqual(records((await csv(ordersCsvRoute.GET, "?q=x_pay_2")).rows).map((row) => row.order_id), ["x_ord_2"]);
    assert.deepEqual(records((await csv(ordersCsvRoute.GET, "?attention=1")).rows).map((row) => row.order_id), ["x_ord_1"]);
    const bad = await csv(ordersCsvRoute.GET, "?sort=amount");
    assert.deepEqual([bad.status, JSON.parse(bad.text)], [400, { error: "sort: not a parameter of GET /api/exports/orders.csv (it takes status, currency, from, to, q, attention)", code: "invalid_query" }]);
    assert.equal((await csv(ordersCsvRoute.GET, "?status=lost")).status, 400);
    assert.equal((await csv(ordersCsvRoute.GET, "", {})).status, 401);
  });
});

describe("GET /api/exports/decisions.csv and GET /api/decisions", () => {
  test("the log's rows newest first with reasons in the reader's language; formula-looking input is text", async () => {
    const answer = await csv(decisionsCsvRoute.GET, "?orderId=x_ord_2");
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.rows[0], ["at", "provider", "endpoint", "event_id", "verified", "event_type", "order_id", "outcome", "http_status", "reason_code", "reason", "diagnosis", "secret_label", "source"]);
    assert.deepEqual(records(answer.rows).map((row) => [row.event_id, row.outcome, row.http_status, row.reason_code, row.reason, row.secret_label]), [
      ["x_evt_2r", "applied", "200", "refunded", "refunded ARS 15,000.00 (total ARS 15,000.00); order x_ord_2 paid → refunded", "LAB_WEBHOOK_SECRET[0]"],
      ["x_evt_2", "applied", "200", "credited", "credited ARS 15,000.00; order x_ord_2 created → paid", "LAB_WEBHOOK_SECRET[0]"],
    ]);
    const spanish = records((await csv(decisionsCsvRoute.GET, "?orderId=x_ord_2&outcome=applied", { ...bearer, cookie: "NEXT_LOCALE=es-AR" })).rows);
    assert.equal(spanish[1].reason, "se acreditaron $ 15.000,00; orden x_ord_2: creada → pagada");
    const formula = records((await csv(decisionsCsvRoute.GET, "?eventId=x_evt_f")).rows);
    assert.deepEqual(formula.map((row) => [row.event_type, row.outcome]), [["'=HYPERLINK(\"http://evil.example\",\"x\")", "ignored"]]);
    assert.equal((await csv(decisionsCsvRoute.GET, "?status=abc")).status, 400);
  });

  test("GET /api/decisions walks the log with cursor/nextCursor, each row once, newest first", async () => {
    const all = await json(decisionsRoute.GET, "?limit=500");
    assert.equal(all.status, 200);
    const expected = all.json.data.map((row: { id: string }) => row.id);
    assert.equal(expected.length, all.json.count);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await json(decisionsRoute.GET, `?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      assert.equal(page.status, 200);
      seen.push(...page.json.data.map((row: { id: string }) => row.id));
      cursor = page.json.nextCursor;
    } while (cursor);
    assert.deepEqual(seen, expected);
    const one = await json(decisionsRoute.GET, "?eventId=x_evt_1&limit=1");
    assert.deepEqual([one.json.count, one.json.nextCursor, one.json.data[0].reasonText], [1, null, "credited $25.50; order x_ord_1 created → paid"]);
    assert.deepEqual(await json(decisionsRoute.GET, "?cursor=abc"), { status: 400, json: { error: "cursor: not a cursor this API gave (use nextCursor from the previous page)", code: "invalid_query" } });
  });
});

describe("GET /api/exports/ledger.csv and GET /api/ledger", () => {
  test("signed amounts in major units with their currency; one order's entries; the orders' filters; booking days", async () => {
    const answer = await csv(ledgerCsvRoute.GET, "?orderId=x_ord_2");
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.rows[0], ["booked_at", "occurred_at", "order_id", "kind", "currency", "amount", "business_key", "payment_id", "provider", "account", "livemode", "event_id"]);
    assert.deepEqual(records(answer.rows).map((row) => [row.kind, row.currency, row.amount, row.business_key, row.event_id]), [
      ["credit", "ARS", "15000.00", "credit:lab:lab:live:x_pay_2", "x_evt_2"],
      ["refund", "ARS", "-15000.00", "refund:lab:lab:live:x_pay_2:total:1500000:at:1760181330", "x_evt_2r"],
    ]);
    assert.deepEqual(records((await csv(ledgerCsvRoute.GET, "?currency=JPY")).rows).map((row) => [row.order_id, row.amount]), [["x_ord_3", "500"]]);
    assert.deepEqual(records((await csv(ledgerCsvRoute.GET, "?status=refunded")).rows).map((row) => row.amount), ["15000.00", "-15000.00"]);
    const today = new Date().toISOString().slice(0, 10);
    assert.equal(records((await csv(ledgerCsvRoute.GET, `?bookedFrom=${today}&bookedTo=${today}&q=x_ord`)).rows).length, 4);
    assert.equal(records((await csv(ledgerCsvRoute.GET, "?bookedTo=2020-01-01")).rows).length, 0);
    assert.equal((await csv(ledgerCsvRoute.GET, "?bookedFrom=yesterday")).status, 400);
  });

  test("GET /api/ledger pages by cursor in booking order, minor units in JSON", async () => {
    const first = await json(ledgerRoute.GET, "?q=x_ord&limit=3");
    assert.equal(first.status, 200);
    assert.equal(first.json.count, 4);
    assert.equal(first.json.data.length, 3);
    const rest = await json(ledgerRoute.GET, `?q=x_ord&limit=3&cursor=${first.json.nextCursor}`);
    assert.deepEqual([rest.json.data.length, rest.json.nextCursor], [1, null]);
    const entries = [...first.json.data, ...rest.json.data];
    assert.deepEqual(entries.map((entry: { kind: string; amount: number; currency: string }) => [entry.kind, entry.amount, entry.currency]).sort(), [
      ["credit", 1500000, "ARS"],
      ["credit", 2550, "USD"],
      ["credit", 500, "JPY"],
      ["refund", -1500000, "ARS"],
    ]);
    assert.equal((await (await (await db()).ledgerEntry.count({ where: { orderId: { startsWith: "x_ord" } } })).toString()), "4");
  });
});
