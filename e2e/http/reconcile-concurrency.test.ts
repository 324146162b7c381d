// slow-test: reconciles a 20,000-line report in the worker process while signed deliveries are timed beside it
// Webhooks are answered while a large reconciliation runs: the server's reconciliation worker is a process
// beside it (RECONCILIATION_WORKER_PROCESS), its batches short driver transactions that leave SQLite's
// write lock free between them. 20,000 Stripe report lines (every one a mismatch) against signed lab
// deliveries: every one answered 200 and applied. The bound is generous (this machine is shared and
// noisy); the latency figures belong to the benchmark (`npm run bench -- --only reconcile-load`).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { labEvent } from "../support/http";
import { baseEnv, E2E_API_TOKEN, postLab, postOrder, waitFor } from "../support/real-server";
import { freshDatabaseUrl, startServer, type RunningServer } from "../support/server";
import { stripeReport, type ReportLine } from "../support/stripe-reports";

// Enough rows for the run to outlast the 15 timed deliveries several times over (the test fails if it
// does not: the last status read must still be "running"); the volume itself is the benchmark's.
const ROWS = 20_000;
const DELIVERIES = 15;
let server: RunningServer;
const auth = { authorization: `Bearer ${E2E_API_TOKEN}` };

before(async () => {
  const env = baseEnv(freshDatabaseUrl(), { LAB_PROCESSING_MODE: "inline" }) as Record<string, string>;
  server = await startServer({ ...env, STRIPE_ACCOUNT_ID: "acct_load" });
  for (let i = 0; i < DELIVERIES * 2; i++) assert.equal(await postOrder(server.url, `ord_load_${i}`, 1000), 201);
});
after(() => server.stop());

async function runStatus(runId: string): Promise<{ status: string; rows: number }> {
  const answer = (await (await fetch(`${server.url}/api/reconciliations/${runId}?pageSize=1`, { headers: auth })).json()) as { run: { status: string; progress: { rows: number } } };
  return { status: answer.run.status, rows: answer.run.progress.rows };
}

async function timedDelivery(i: number): Promise<number> {
  const started = performance.now();
  const answer = await postLab(server.url, labEvent(`evt_load_${i}`, "payment.approved", `ord_load_${i}`, `pay_load_${i}`, 1000));
  assert.deepEqual([answer.status, answer.json.outcome], [200, "applied"], answer.json.reason);
  return performance.now() - started;
}

test(`signed lab deliveries are answered while a ${ROWS}-line report is reconciled: the slowest within 2 s, or within 2x the slowest idle one`, async () => {
  const idle: number[] = [];
  for (let i = DELIVERIES; i < DELIVERIES * 2; i++) idle.push(await timedDelivery(i));
  const lines: ReportLine[] = Array.from({ length: ROWS }, (_, i) => ({ txn: `txn_l${i}`, at: "2026-11-29 12:00:00", currency: "usd", gross: "10.00", fee: "0.59", category: "charge", paymentIntent: `pi_l${i}`, orderId: `ord_l${i}` }));
  const csv = stripeReport(lines);
  const response = await fetch(`${server.url}/api/reconciliations?source=load`, { method: "POST", body: csv, headers: { ...auth, "content-type": "text/csv" } });
  assert.equal(response.status, 202);
  const { runId } = (await response.json()) as { runId: string };
  await waitFor("the run to start", async () => ((await runStatus(runId)).rows > 0 ? true : undefined), { timeoutMs: 60_000, intervalMs: 20 });

  const latencies: number[] = [];
  const during: string[] = [];
  for (let i = 0; i < DELIVERIES; i++) {
    latencies.push(await timedDelivery(i));
    during.push((await runStatus(runId)).status);
  }
  // The deliveries overlapped the run (it was still reading or matching after the last one).
  assert.equal(during.at(-1), "running", `the run ended before the deliveries did: ${during.join(",")}`);
  const slowest = Math.max(...latencies);
  const slowestIdle = Math.max(...idle);
  const report = `slowest delivery ${Math.round(slowest)} ms during the run (${latencies.map(Math.round).join(", ")}), ${Math.round(slowestIdle)} ms idle (${idle.map(Math.round).join(", ")})`;
  console.log(report);
  assert.ok(slowest < Math.max(2_000, 2 * slowestIdle), report);

  const done = await waitFor("the run to end", async () => {
    const state = await runStatus(runId);
    return state.status === "done" || state.status === "failed" ? state : undefined;
  }, { timeoutMs: 300_000, intervalMs: 250 });
  assert.deepEqual(done, { status: "done", rows: ROWS });
  const summary = (await (await fetch(`${server.url}/api/reconciliations/${runId}?pageSize=1&code=missing_credit`, { headers: auth })).json()) as { run: { mismatchCount: number }; mismatches: { count: number } };
  assert.deepEqual([summary.run.mismatchCount, summary.mismatches.count], [ROWS, ROWS]);
});
