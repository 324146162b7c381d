import "@/e2e/support/test-env";
// A run whose worker process dies of memory exhaustion fails at that first death, with the reason,
// instead of being claimed again (three times, ~50 s each, while every other organization's runs
// waited). Through the server's own code: startReconciliationProcess() starts the worker process with
// a 48 MB heap (RECONCILIATION_WORKER_MAX_HEAP_MB) and the byte bound lifted, and a queued upload of
// 200,000 long order ids exhausts it.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { startReconciliationProcess, type ReconciliationProcess } from "@/lib/background/reconciliation-process";
import { closeDb, db } from "@/lib/db/client";
import { queueRun } from "@/lib/reconciliation/runs";

process.env.RECONCILIATION_WORKER_MAX_HEAP_MB = "48";
process.env.RECONCILIATION_RUN_MAX_HELD_BYTES = "17179869184";
process.env.LOG_LEVEL = "silent";

let child: ReconciliationProcess | undefined;
after(async () => {
  await child?.stop();
  await closeDb();
});

test("a worker process that runs out of memory fails its run at the first death (attempts 1), naming the cause; its scope and file are freed", { timeout: 60_000 }, async () => {
  const database = await db();
  const filePath = path.join(mkdtempSync(path.join(tmpdir(), "acredita-oom-")), "huge.csv");
  const ids = Array.from({ length: 200_000 }, (_, i) => `${i}`.padStart(200, "o"));
  writeFileSync(filePath, `order_id,provider_status,amount,currency\n${ids.map((id) => `${id},none,0,ARS`).join("\n")}\n`);
  const runId = await queueRun(database, { organizationId: "org_default", source: "huge", format: "lab", scope: { provider: "lab", account: "lab", livemode: true }, actor: "test", filePath, bytesTotal: 0 });

  const started = Date.now();
  child = startReconciliationProcess({ env: { ...process.env, LOG_LEVEL: "silent" } });
  assert.ok(child);
  let row = await database.reconciliationRun.findUniqueOrThrow({ where: { id: runId } });
  while (row.status !== "failed" && Date.now() - started < 45_000) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    row = await database.reconciliationRun.findUniqueOrThrow({ where: { id: runId } });
  }
  assert.deepEqual(
    { status: row.status, attempts: row.attempts, error: row.error, errorCode: row.errorCode, activeScope: row.activeScope, filePath: row.filePath },
    {
      status: "failed",
      attempts: 1,
      error: "the worker process ran out of memory (its heap is capped at 48 MB) while running it; not retried: split the report or reconcile a payment-level one",
      errorCode: "run_worker_out_of_memory",
      activeScope: null,
      filePath: null,
    },
  );
  // The file goes right after the status (the run is failed first, so no other worker can take it meanwhile).
  const removing = Date.now();
  while (existsSync(filePath) && Date.now() - removing < 5_000) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(existsSync(filePath), false);
});
