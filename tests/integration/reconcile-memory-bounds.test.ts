import "@/e2e/support/test-env";
// What an uploaded lab-format run holds is bounded by bytes, not only by rows: its order ids stay in
// the worker's heap until the run ends, so 500,000 ids of 255 characters (under the row cap) took the
// worker past its heap. RECONCILIATION_RUN_MAX_HELD_BYTES (1 MiB here) fails the run at the line that
// passes it; an order listed twice is still refused, now by the map that holds the ids (indexed once).
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { closeDb, db } from "@/lib/db/client";
import { claimRun, executeRun, queueRun } from "@/lib/reconciliation/runs";

process.env.RECONCILIATION_RUN_MAX_HELD_BYTES = "1048576";
after(closeDb);

const spool = mkdtempSync(path.join(tmpdir(), "acredita-held-"));

/** Queues and claims an upload's lab-format run of `csv`, spooled as an upload is, then runs it as the worker does. */
async function runUpload(name: string, csv: string) {
  const database = await db();
  const filePath = path.join(spool, `${name}.csv`);
  writeFileSync(filePath, csv);
  const runId = await queueRun(database, { organizationId: "org_default", source: name, format: "lab", scope: { provider: "lab", account: "lab", livemode: true }, actor: "test", filePath, bytesTotal: Buffer.byteLength(csv) });
  const run = await claimRun(database, runId, "held-bytes-test");
  assert.ok(run);
  const outcome = await executeRun(database, run);
  const row = await database.reconciliationRun.findUniqueOrThrow({ where: { id: runId }, select: { status: true, error: true, activeScope: true, filePath: true } });
  return { outcome, row, spoolLeft: existsSync(filePath) };
}

test("an upload whose order ids pass RECONCILIATION_RUN_MAX_HELD_BYTES fails at that line (1,643 ids of 255 characters fit in 1 MiB), its scope freed and its file removed", async () => {
  const ids = Array.from({ length: 2_000 }, (_, i) => `${i}`.padStart(255, "o"));
  const { outcome, row, spoolLeft } = await runUpload("held", `order_id,provider_status,amount,currency\n${ids.map((id) => `${id},none,0,ARS`).join("\n")}\n`);
  const error = "line 1645: the order ids to compare take more than 1 MB of the worker's memory: the lab's order-level file is for the lab and small exports; reconcile a larger one with npm run reconcile or a payment-level report";
  assert.equal(outcome.status, "failed");
  assert.deepEqual(row, { status: "failed", error, activeScope: null, filePath: null });
  assert.equal(spoolLeft, false);
  assert.equal(await (await db()).reconciliationMismatch.count(), 0);
});

test("the same number of short ids fits; an order listed twice is refused at its line", async () => {
  const fits = await runUpload("short", `order_id,provider_status,amount,currency\n${Array.from({ length: 2_000 }, (_, i) => `ord_h${i},none,0,ARS`).join("\n")}\n`);
  assert.deepEqual([fits.outcome.status, fits.row.status, fits.row.error], ["done", "done", null]);
  const twice = await runUpload("twice", "order_id,provider_status,amount,currency\nord_t1,none,0,ARS\nord_t2,none,0,ARS\nord_t1,none,0,ARS\n");
  assert.deepEqual([twice.row.status, twice.row.error], ["failed", "line 4: order ord_t1 appears twice"]);
});
