// Unauthenticated traffic cannot fill the disk, against the production build over real sockets: 400
// unsigned posts to /api/webhooks/lab and 400 to random unknown names leave at most 5 decision rows per
// endpoint, reason and minute (exactly min(5, count) per counted row), counts that sum to exactly 800
// under two keys, one of them "(unknown)"; a signed delivery among them is applied; GET /api/metrics
// shows them a second later; and the counts still in memory are written when the server is stopped.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";
import { startServer, type RunningServer } from "../support/server";
import { sqlReader } from "../support/sql-reader";
import { newTestDatabase } from "../support/test-database";

const SECRET = "flood_server_secret_0001";
const TOKEN = "flood-server-api-token-0001-0123456789";
const testDatabase = newTestDatabase("flood");
let server: RunningServer;

before(async () => {
  server = await startServer({ DATABASE_URL: testDatabase.url, LAB_WEBHOOK_SECRET: SECRET, API_TOKEN: TOKEN, AUTH_SECRET: "flood-server-auth-secret-0001-0123456789", LOG_LEVEL: "silent" });
});
after(() => server.stop());

function read<T>(run: (database: ReturnType<typeof sqlReader>) => T): T {
  const database = sqlReader(testDatabase);
  try {
    return run(database);
  } finally {
    database.close();
  }
}

async function post(path: string, body: string, headers: Record<string, string> = {}): Promise<number> {
  const response = await fetch(`${server.url}${path}`, { method: "POST", body, headers: { "content-type": "application/json", ...headers } });
  await response.arrayBuffer();
  return response.status;
}

test("800 unsigned posts: bounded decision rows, counts summing to 800 under two keys, a signed delivery applied, metrics, flushed on stop", async () => {
  const order = await fetch(`${server.url}/api/orders`, { method: "POST", body: JSON.stringify({ id: "ord_flood_real", amount: 2_500, currency: "ARS" }), headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" } });
  assert.equal(order.status, 201);
  const body = (index: number) => JSON.stringify({ id: `evt_flood_${index}`, type: "payment.approved", data: { payment_id: `pay_${index}`, order_id: "ord_flood_real", amount: 1, currency: "ARS" } });
  const statuses: number[] = [];
  let next = 0;
  const sender = async () => {
    while (next < 800) {
      const index = next++;
      statuses.push(await post(index % 2 === 0 ? "/api/webhooks/lab" : `/api/webhooks/nonexistent-${randomBytes(6).toString("hex")}`, body(index)));
    }
  };
  const real = JSON.stringify({ id: "evt_flood_real", type: "payment.approved", created: 1760181330, data: { payment_id: "pay_flood_real", order_id: "ord_flood_real", amount: 2_500, currency: "ARS" } });
  const [signed] = await Promise.all([
    new Promise((resolve) => setTimeout(resolve, 200)).then(() => post("/api/webhooks/lab", real, { "Lab-Signature": signTimestamped(SECRET, Math.floor(Date.now() / 1000), real) })),
    ...Array.from({ length: 16 }, sender),
  ]);
  assert.equal(signed, 200);
  assert.deepEqual([statuses.filter((status) => status === 401).length, statuses.filter((status) => status === 404).length], [400, 400]);

  // Written within REJECTION_FLUSH_INTERVAL_MS (1 s): GET /api/metrics shows them.
  let metrics: { rejectionsLastHour: { total: number; byReason: Record<string, number> } } | undefined;
  for (let waited = 0; waited < 10_000; waited += 100) {
    metrics = await (await fetch(`${server.url}/api/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).json();
    if (metrics?.rejectionsLastHour.total === 800) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.deepEqual(metrics?.rejectionsLastHour, { total: 800, byReason: { signature_missing: 400, unknown_endpoint: 400 } });

  // More refusals, then a stop at once: the counts still in memory are written on SIGTERM.
  for (let index = 0; index < 10; index += 1) assert.equal(await post("/api/webhooks/lab", body(index)), 401);
  await server.stop();

  const counted = read((database) => database.all<{ endpoint: string; reason: string; httpStatus: number; count: number }>("SELECT endpoint, reason, httpStatus, count FROM RejectionCount ORDER BY minute, endpoint"));
  assert.deepEqual(new Set(counted.map((row) => `${row.endpoint} ${row.reason} ${row.httpStatus}`)), new Set(["(unknown) unknown_endpoint 404", "lab signature_missing 401"]));
  assert.equal(counted.reduce((sum, row) => sum + Number(row.count), 0), 810);
  const sampled = counted.reduce((sum, row) => sum + Math.min(5, Number(row.count)), 0);
  assert.ok(sampled <= 20, `${sampled} sampled rows: the flood spans at most two minutes`);
  const rows = read((database) => ({
    unverified: database.count("SELECT COUNT(*) AS n FROM Decision WHERE verified = ?", testDatabase.file ? 0 : false),
    applied: database.count("SELECT COUNT(*) AS n FROM Decision WHERE outcome = 'applied'"),
    ledger: database.count("SELECT COUNT(*) AS n FROM LedgerEntry WHERE orderId = 'ord_flood_real'"),
    attackerKeys: database.count("SELECT COUNT(*) AS n FROM RejectionCount WHERE endpoint LIKE 'nonexistent-%'"),
  }));
  assert.deepEqual(rows, { unverified: sampled, applied: 1, ledger: 1, attackerKeys: 0 });
});
