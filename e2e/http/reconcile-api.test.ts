// POST /api/reconciliations and GET /api/reconciliations/{id} against the BUILT app over real HTTP: an
// upload is streamed to disk under RECONCILIATION_UPLOAD_MAX_BYTES (413 naming the limit, declared or
// streamed), answered 202 with the run's id, run by the server's worker in the background; the summary
// has the totals per currency and paginated mismatches; the CSV export lists them.
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { postStreaming } from "../support/streaming-post";
import { waitFor } from "../support/real-server";
import { startServer, type RunningServer } from "../support/server";
import { stripeReport } from "../support/stripe-reports";

const TOKEN = "reconcile-api-token-0123456789abcdef";
const LIMIT = 8_192;
const spool = mkdtempSync(path.join(tmpdir(), "acredita-spool-"));
const auth = { authorization: `Bearer ${TOKEN}` };
let server: RunningServer;

before(async () => {
  server = await startServer({ API_TOKEN: TOKEN, RECONCILIATION_UPLOAD_MAX_BYTES: String(LIMIT), RECONCILIATION_SPOOL_DIR: spool, STRIPE_ACCOUNT_ID: "acct_api", INBOX_POLL_INTERVAL_MS: "50" });
});
after(() => server.stop());

async function upload(body: string | Buffer, query = ""): Promise<{ status: number; json: Record<string, unknown>; location: string | null }> {
  const response = await fetch(`${server.url}/api/reconciliations${query}`, { method: "POST", body: typeof body === "string" ? body : new Uint8Array(body), headers: { ...auth, "content-type": "text/csv" } });
  return { status: response.status, json: (await response.json()) as Record<string, unknown>, location: response.headers.get("location") };
}

interface RunAnswer {
  run: { status: string; scope: unknown; period: unknown; progress: { rows: number; bytes: number; bytesTotal: number; mismatches: number }; totals: Record<string, Record<string, number>>; error: string | null; errorReason: unknown; actor: string };
  mismatches: { data: { code: string; paymentId: string; settled: number; booked: number; line: number | null }[]; count: number; page: number; pageSize: number; totalPages: number };
}

async function get(runId: string, query = ""): Promise<{ status: number; json: RunAnswer }> {
  const response = await fetch(`${server.url}/api/reconciliations/${runId}${query}`, { headers: auth });
  return { status: response.status, json: (await response.json()) as RunAnswer };
}

function finished(runId: string): Promise<RunAnswer> {
  return waitFor(`run ${runId} to end`, async () => {
    const { json } = await get(runId);
    return json.run.status === "done" || json.run.status === "failed" ? json : undefined;
  });
}

const AT = "2026-11-29 12:00:00";
const LINES = [
  { txn: "txn_a1", at: AT, currency: "usd", gross: "25.00", fee: "1.03", category: "charge", paymentIntent: "pi_a1", orderId: "ord_a1", description: "one, two" },
  { txn: "txn_a2", at: AT, currency: "jpy", gross: "500", fee: "35", category: "charge", paymentIntent: "pi_a2" },
  { txn: "txn_a3", at: AT, currency: "kwd", gross: "1.250", fee: "0.045", category: "charge", paymentIntent: "pi_a3" },
  { txn: "txn_a1", at: AT, currency: "usd", gross: "25.00", fee: "1.03", category: "charge", paymentIntent: "pi_a1", orderId: "ord_a1", description: "one, two" },
];

describe("POST /api/reconciliations", () => {
  test("a Stripe report is answered 202 with the run's id at once; the worker runs it; GET gives the summary and paginated mismatches", async () => {
    const csv = stripeReport(LINES);
    const answer = await upload(csv, "?source=nightly&from=2026-11-29&to=2026-11-30");
    assert.equal(answer.status, 202, JSON.stringify(answer.json));
    assert.deepEqual(answer.json, { runId: answer.json.runId, status: "queued", bytes: Buffer.byteLength(csv), location: `/api/reconciliations/${answer.json.runId}` });
    assert.equal(answer.location, `/api/reconciliations/${answer.json.runId}`);
    const runId = String(answer.json.runId);
    const done = await finished(runId);
    assert.equal(done.run.status, "done");
    assert.deepEqual(done.run.scope, { provider: "stripe", account: "acct_api", livemode: true });
    assert.deepEqual(done.run.period, { from: "2026-11-29T00:00:00.000Z", to: "2026-11-30T00:00:00.000Z" });
    assert.deepEqual(done.run.progress, { rows: 4, bytes: Buffer.byteLength(csv), bytesTotal: Buffer.byteLength(csv), mismatches: 4 });
    assert.equal(done.run.actor, "operator (API_TOKEN)");
    assert.deepEqual(done.run.totals, {
      USD: { gross: 2500, fees: 103, net: 2397, credited: 0, refunded: 0, overCredited: 0, underCredited: 2500 },
      JPY: { gross: 500, fees: 35, net: 465, credited: 0, refunded: 0, overCredited: 0, underCredited: 500 },
      KWD: { gross: 1250, fees: 45, net: 1205, credited: 0, refunded: 0, overCredited: 0, underCredited: 1250 },
    });
    // The progress poll's form: the summary alone, the same as with a page of mismatches.
    const bare = await get(runId, "?mismatches=none");
    assert.equal(bare.status, 200);
    assert.deepEqual(Object.keys(bare.json), ["run"]);
    assert.deepEqual(bare.json.run, done.run);
    const page2 = await get(runId, "?page=2&pageSize=3");
    assert.equal(page2.status, 200);
    assert.deepEqual([page2.json.mismatches.count, page2.json.mismatches.page, page2.json.mismatches.pageSize, page2.json.mismatches.totalPages], [4, 2, 3, 2]);
    // Sorted by line (the default): 2 (the charge), 2 (its duplicate, lines 2 and 5), 3, 4.
    const all = await get(runId, "?pageSize=10");
    assert.deepEqual(all.json.mismatches.data.map((m) => [m.code, m.paymentId, m.settled, m.line]), [
      ["duplicate_row", "pi_a1", 2500, 2],
      ["missing_credit", "pi_a1", 2500, 2],
      ["missing_credit", "pi_a2", 500, 3],
      ["missing_credit", "pi_a3", 1250, 4],
    ]);
    assert.deepEqual(page2.json.mismatches.data.map((m) => m.paymentId), ["pi_a3"]);
    const filtered = await get(runId, "?code=duplicate_row");
    assert.deepEqual(filtered.json.mismatches.data.map((m) => [m.code, m.paymentId]), [["duplicate_row", "pi_a1"]]);
    assert.equal((await get(runId, "?code=nope")).status, 400);
    assert.equal((await get("no_such_run")).status, 404);

    const exported = await fetch(`${server.url}/api/reconciliations/${runId}/mismatches?code=missing_credit`, { headers: auth });
    assert.equal(exported.status, 200);
    assert.equal(exported.headers.get("content-type"), "text/csv; charset=utf-8");
    const rows = (await exported.text()).trim().split("\n");
    assert.equal(rows[0], "code,payment_id,order_id,currency,settled_minor,booked_minor,line,lines,next_action");
    assert.deepEqual(rows.slice(1).map((row) => row.split(",").slice(0, 7).join(",")).sort(), ["missing_credit,pi_a1,ord_a1,USD,2500,0,2", "missing_credit,pi_a2,,JPY,500,0,3", "missing_credit,pi_a3,,KWD,1250,0,4"]);
    // The spooled upload is deleted once its run is done.
    assert.deepEqual(readdirSync(spool), []);
  });

  test("over the limit: 413 naming it, whether declared by Content-Length or found while streaming a chunked body; nothing kept", async () => {
    const big = Buffer.alloc(LIMIT + 1, "a");
    const declared = await upload(big);
    assert.deepEqual([declared.status, declared.json], [413, { error: "the report is larger than the upload limit of 8 KB (8192 bytes, RECONCILIATION_UPLOAD_MAX_BYTES)", code: "too_large", limitBytes: LIMIT }]);
    const streamed = await postStreaming(`${server.url}/api/reconciliations`, { ...auth, "content-type": "text/csv" }, Buffer.alloc(1_024, "b"), 9);
    assert.equal(streamed.status, 413);
    assert.deepEqual(streamed.json, { error: "the report is larger than the upload limit of 8 KB (8192 bytes, RECONCILIATION_UPLOAD_MAX_BYTES)", code: "too_large", limitBytes: LIMIT } as never);
    assert.deepEqual(readdirSync(spool), []);
  });

  test("a bad file is 400 with line 1 and the problem, before any run; a bad line fails the run, answered by GET", async () => {
    assert.deepEqual(await upload(""), { status: 400, json: { error: "line 1: empty file: expected a header row", code: "invalid_settlement", reason: { code: "report_line", params: { line: 1, problem: { code: "report_empty", params: {} } } } }, location: null });
    assert.deepEqual((await upload(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]))).json, { error: "line 1: binary file: expected a CSV report with a header row", code: "invalid_settlement", reason: { code: "report_line", params: { line: 1, problem: { code: "report_binary", params: {} } } } });
    assert.deepEqual((await upload("balance_transaction_id,created_utc,currency,gross,net,reporting_category\n")).json, { error: "line 1: missing column(s) for stripe-balance-change: fee", code: "invalid_settlement", reason: { code: "report_line", params: { line: 1, problem: { code: "report_missing_columns_for", params: { format: "stripe-balance-change", columns: "fee" } } } } });
    assert.deepEqual(await upload("balance_transaction_id,created_utc,currency,gross,fee,net,reporting_category\ntxn_1,2026-11-29 12:00:00,usd,25.00,0,25.00,charge\n"), {
      status: 400,
      json: {
        error: "line 1: no payment column for stripe-balance-change: one of payment_intent_id, charge_id, source_id is needed to match its lines to payments",
        code: "invalid_settlement",
        reason: { code: "report_line", params: { line: 1, problem: { code: "report_missing_any_column", params: { format: "stripe-balance-change", columns: "payment_intent_id, charge_id, source_id" } } } },
      },
      location: null,
    });
    assert.deepEqual((await upload(stripeReport(LINES), "?mode=sandbox")).json, { error: 'mode: "sandbox" must be live or test', code: "invalid_settlement", reason: { code: "scope_bad_mode", params: { flag: "mode", value: "sandbox" } } });
    const bad = await upload(stripeReport([LINES[0], { ...LINES[1], txn: "txn_bad", gross: "5,00" }]));
    assert.equal(bad.status, 202);
    const failed = await finished(String(bad.json.runId));
    assert.deepEqual([failed.run.status, failed.run.error, failed.run.errorReason, failed.mismatches.count], ["failed", 'line 3: gross: "5,00" is not a decimal amount like 25.00', { code: "report_line", params: { line: 3, problem: { code: "report_bad_decimal", params: { column: "gross", value: "5,00" } } } }, 0]);
    assert.deepEqual(readdirSync(spool), []);
  });

  test("without a token or session: 401, and nothing is spooled", async () => {
    const response = await fetch(`${server.url}/api/reconciliations`, { method: "POST", body: "order_id,provider_status,amount,currency\n" });
    assert.equal(response.status, 401);
    assert.equal((await fetch(`${server.url}/api/reconciliations/x`)).status, 401);
    assert.deepEqual(readdirSync(spool), []);
  });
});
