// slow-test: the server and its reconciliation worker child process, SIGTERMed in the middle of a run
// The server runs its reconciliation worker in a child process beside it (RECONCILIATION_WORKER_PROCESS,
// default true), started by the first run (none before it): an upload is taken by that process, not by
// the server's event loop; SIGTERM to the server stops the child too, and the run in hand goes back to
// the queue (scope freed) to start over; a server started again finds the queued run and starts its child.
// With RECONCILIATION_WORKER_PROCESS=false there is no such process and the server runs the run itself.
// A server that dies (SIGKILL) while the child is still starting leaves no orphan behind.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { after, test } from "node:test";
import { baseEnv, E2E_API_TOKEN, newDatabase, waitFor } from "../support/real-server";
import { startServer, type RunningServer } from "../support/server";
import { sqlReader } from "../support/sql-reader";
import { stripeReport, type ReportLine } from "../support/stripe-reports";

const auth = { authorization: `Bearer ${E2E_API_TOKEN}` };
const servers: RunningServer[] = [];
after(() => Promise.all(servers.map((server) => server.stop("SIGKILL"))));

/** The pids of `pid`'s child processes whose command line runs the reconciliation worker entry. */
function workerChildren(pid: number): number[] {
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
  return children.filter((child) => {
    try {
      return readFileSync(`/proc/${child}/cmdline`, "utf8").includes("scripts/reconciliation-worker.ts");
    } catch {
      return false;
    }
  });
}

/** Whether `pid` runs (a zombie left for an init that does not reap it counts as gone). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

async function upload(url: string, lines: number): Promise<string> {
  const report: ReportLine[] = Array.from({ length: lines }, (_, i) => ({ txn: `txn_w${i}`, at: "2026-11-29 12:00:00", currency: "usd", gross: "10.00", fee: "0.59", category: "charge", paymentIntent: `pi_w${i}`, orderId: `ord_w${i}` }));
  const response = await fetch(`${url}/api/reconciliations?source=worker-process`, { method: "POST", body: stripeReport(report), headers: { ...auth, "content-type": "text/csv" } });
  assert.equal(response.status, 202);
  return ((await response.json()) as { runId: string }).runId;
}

async function progressRows(url: string, runId: string): Promise<{ status: string; rows: number }> {
  const answer = (await (await fetch(`${url}/api/reconciliations/${runId}?pageSize=1`, { headers: auth })).json()) as { run: { status: string; progress: { rows: number } } };
  return { status: answer.run.status, rows: answer.run.progress.rows };
}

test("the server's reconciliation worker is its own process; SIGTERM to the server stops it and puts the run in hand back in the queue, its scope freed", async () => {
  const database = newDatabase();
  const server = await startServer(baseEnv(database.url, { STRIPE_ACCOUNT_ID: "acct_proc" }) as Record<string, string>);
  servers.push(server);
  const serverPid = server.process.pid!;
  // No run yet, no process: its poll for queued runs (1 s here) has run at least twice.
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  assert.deepEqual(workerChildren(serverPid), []);

  const runId = await upload(server.url, 20_000);
  const [child] = await waitFor("the reconciliation worker process", () => (workerChildren(serverPid).length === 1 ? workerChildren(serverPid) : undefined), { timeoutMs: 30_000, intervalMs: 100 });
  await waitFor("the run to start", async () => ((await progressRows(server.url, runId)).rows > 0 ? true : undefined), { timeoutMs: 60_000, intervalMs: 20 });
  const reader = sqlReader(database);
  try {
    // The worker process holds the run, not the server.
    const held = reader.get<{ claimedBy: string; status: string }>(`SELECT "claimedBy", "status" FROM "ReconciliationRun" WHERE "id" = ?`, runId);
    assert.equal(held?.status, "running");
    await server.stop("SIGTERM");
    await waitFor("the worker process to exit", () => (alive(child) ? undefined : true), { timeoutMs: 30_000, intervalMs: 50 });
    const run = reader.get<{ status: string; activeScope: string | null; claimedBy: string | null }>(`SELECT "status", "activeScope", "claimedBy" FROM "ReconciliationRun" WHERE "id" = ?`, runId);
    assert.deepEqual(run, { status: "queued", activeScope: null, claimedBy: null });
  } finally {
    reader.close();
  }

  // A server started again on the same database finds the queued run (no upload wakes it), starts its
  // worker process, which takes the run from its first line and ends it.
  const again = await startServer(baseEnv(database.url, { STRIPE_ACCOUNT_ID: "acct_proc" }) as Record<string, string>);
  servers.push(again);
  await waitFor("the new server's reconciliation worker process", () => (workerChildren(again.process.pid!).length === 1 ? true : undefined), { timeoutMs: 30_000, intervalMs: 100 });
  const done = await waitFor("the run to end", async () => {
    const state = await progressRows(again.url, runId);
    return state.status === "done" || state.status === "failed" ? state : undefined;
  }, { timeoutMs: 300_000, intervalMs: 250 });
  assert.deepEqual(done, { status: "done", rows: 20_000 });
});

test("RECONCILIATION_WORKER_PROCESS=false: no worker process; the server runs the run itself", async () => {
  const server = await startServer(baseEnv(newDatabase().url, { STRIPE_ACCOUNT_ID: "acct_proc", RECONCILIATION_WORKER_PROCESS: "false" }) as Record<string, string>);
  servers.push(server);
  const runId = await upload(server.url, 200);
  const done = await waitFor("the run to end", async () => {
    const state = await progressRows(server.url, runId);
    return state.status === "done" ? state : undefined;
  }, { timeoutMs: 60_000, intervalMs: 100 });
  assert.deepEqual(done, { status: "done", rows: 200 });
  assert.deepEqual(workerChildren(server.process.pid!), []);
});

test("a server SIGKILLed while its reconciliation worker process is still starting leaves no process behind", async () => {
  // The parent starts the child through the server's own code, prints its pid and kills itself at once:
  // the IPC channel closes while the child is still loading its modules.
  const parentCode = [
    `const loaded = await import("./lib/background/reconciliation-process.ts");`,
    `const child = (loaded.startReconciliationProcess ?? loaded.default.startReconciliationProcess)();`,
    `process.stdout.write(String(child.pid()) + "\\n", () => process.kill(process.pid, "SIGKILL"));`,
  ].join("\n");
  const parent = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", parentCode], {
    env: { ...(baseEnv(newDatabase().url, { LOG_LEVEL: "silent" }) as NodeJS.ProcessEnv) },
    // The child inherits these: a pipe would stay open as long as an orphan lives.
    stdio: ["ignore", "pipe", "ignore"],
  });
  let printed = "";
  parent.stdout.on("data", (chunk: Buffer) => (printed += chunk.toString("utf8")));
  const pid = await waitFor("the child's pid", () => (/^\d+\n/.test(printed) ? Number(printed.trim().split("\n")[0]) : undefined), { timeoutMs: 30_000, intervalMs: 20 });
  parent.stdout.destroy();
  try {
    await waitFor("the orphaned reconciliation worker to exit by itself", () => (alive(pid) ? undefined : true), { timeoutMs: 30_000, intervalMs: 100 });
  } finally {
    if (alive(pid)) process.kill(pid, "SIGKILL");
  }
});
