import "@/e2e/support/test-env";
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { auditFilterOptions, listAuditPage } from "@/lib/audit/list-audit";
import { recordAudit } from "@/lib/audit/record-audit";
import { closeDb, db } from "@/lib/db/client";
import { listRunsPage } from "@/lib/reconciliation/list-runs";
import { because } from "@/lib/reasons/reason-codes";
const DEFAULT_ORG = "org_default";

// The audit log's and the reconciliation runs' queries, on the database under test: the browser specs
// that show these pages run on PostgreSQL only, so their filters, order and paging are proven here on both.

const at = (minute: number) => new Date(Date.UTC(2026, 11, 2, 9, minute));

before(async () => {
  const client = await db();
  const alice = { id: "u_alice", email: "alice@shop.test", organizationId: "org_default" };
  const bob = { id: "u_bob", email: "bob@shop.test", organizationId: "org_default" };
  await recordAudit(client, alice, { action: "dead_letter.retry", targetType: "dead_letter", targetId: "dl_1", note: "customer called" }, at(1));
  await recordAudit(client, bob, { action: "dead_letter.resolve", targetType: "dead_letter", targetId: "dl_2", note: because("dead_letter_resolved", {}) }, at(2));
  await recordAudit(client, alice, { action: "user.create", targetType: "user", targetId: "u_carol" }, at(3));
  await recordAudit(client, alice, { action: "dead_letter.retry", targetType: "dead_letter", targetId: "dl_3" }, at(4));
  for (const [n, status] of [[1, "done"], [2, "failed"], [3, "running"]] as const) {
    await client.reconciliationRun.create({
      data: { id: `run_${n}`, source: `report-${n}.csv`, format: "stripe-balance-change", provider: "stripe", account: "acct_1", scopeKey: "stripe:acct_1:live", status, actor: "alice@shop.test", startedAt: at(10 + n), rowCount: n * 100, mismatchCount: n },
    });
  }
});
after(closeDb);

test("the audit log: newest first, filtered by actor, action and time range, paged with its count", async () => {
  const client = await db();
  const all = await listAuditPage(client, DEFAULT_ORG, { page: 1, pageSize: 2 });
  assert.deepEqual([all.data.map((row) => row.targetId), all.count, all.totalPages], [["dl_3", "u_carol"], 4, 2]);
  const second = await listAuditPage(client, DEFAULT_ORG, { page: 2, pageSize: 2 });
  assert.deepEqual(second.data.map((row) => [row.targetId, row.note, row.noteCode]), [["dl_2", "dead letter resolved", "dead_letter_resolved"], ["dl_1", "customer called", null]]);
  const retries = await listAuditPage(client, DEFAULT_ORG, { page: 1, pageSize: 25, actor: "alice@shop.test", action: "dead_letter.retry" });
  assert.deepEqual([retries.data.map((row) => row.targetId), retries.count], [["dl_3", "dl_1"], 2]);
  const window = await listAuditPage(client, DEFAULT_ORG, { page: 1, pageSize: 25, from: at(2), to: at(4) });
  assert.deepEqual(window.data.map((row) => row.targetId), ["u_carol", "dl_2"]);
  assert.deepEqual(await auditFilterOptions(client, DEFAULT_ORG), { actors: ["alice@shop.test", "bob@shop.test"], actions: ["dead_letter.resolve", "dead_letter.retry", "user.create"] });
});

test("the reconciliation runs: newest first with their scope, status and counts, paged", async () => {
  const page = await listRunsPage(await db(), DEFAULT_ORG, { page: 1, pageSize: 2 });
  assert.deepEqual(
    [page.data.map((row) => [row.id, row.scope, row.status, row.rowCount, row.mismatchCount]), page.count, page.totalPages],
    [[["run_3", "stripe:acct_1:live", "running", 300, 3], ["run_2", "stripe:acct_1:live", "failed", 200, 2]], 3, 2],
  );
  assert.deepEqual((await listRunsPage(await db(), DEFAULT_ORG, { page: 2, pageSize: 2 })).data.map((row) => row.id), ["run_1"]);
});
