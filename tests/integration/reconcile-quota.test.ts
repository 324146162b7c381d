// An uploader cannot fill the spool: past its quota of pending runs (and past the server's), an upload
// is refused before a byte is read, and nothing is spooled or queued.
import { TEST_DB } from "@/e2e/support/test-env";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { closeDb, db } from "@/lib/db/client";
import { submitReport } from "@/lib/reconciliation/submit-report";

const spool = mkdtempSync(path.join(tmpdir(), "acredita-quota-"));
Object.assign(process.env, { RECONCILIATION_MAX_PENDING_RUNS_PER_ACTOR: "2", RECONCILIATION_MAX_PENDING_RUNS: "3", RECONCILIATION_SPOOL_DIR: spool, DATABASE_URL: TEST_DB.url });
after(closeDb);

const csv = "order_id,provider_status,amount,currency\nord_q,approved,100,ARS\n";
const submit = async (email: string) =>
  submitReport(await db(), { body: new Blob([csv]).stream(), contentLength: String(csv.length), params: { format: "lab", source: "quota.csv" }, actor: { id: email, email, organizationId: "org_default" }, via: { kind: "dashboard" } });

test("two pending runs per uploader and three in all; one more is refused before it is read; a finished run frees a place", async () => {
  assert.equal((await submit("ana@shop.test")).kind, "queued");
  assert.equal((await submit("ana@shop.test")).kind, "queued");
  assert.deepEqual(await submit("ana@shop.test"), {
    kind: "too_many_runs",
    limit: 2,
    scope: "actor",
    message: "too many runs: 2 of yours are uploading, queued or running (at most 2, RECONCILIATION_MAX_PENDING_RUNS_PER_ACTOR); upload again when one has finished",
  });
  assert.equal(readdirSync(spool).length, 2);
  assert.equal((await submit("bob@shop.test")).kind, "queued");
  assert.deepEqual(await submit("carol@shop.test"), {
    kind: "too_many_runs",
    limit: 3,
    scope: "all",
    message: "too many runs: 3 are uploading, queued or running (at most 3, RECONCILIATION_MAX_PENDING_RUNS); upload again when one has finished",
  });
  assert.deepEqual([readdirSync(spool).length, await (await db()).reconciliationRun.count()], [3, 3]);

  const first = await (await db()).reconciliationRun.findFirstOrThrow({ where: { actor: "ana@shop.test" }, orderBy: { startedAt: "asc" } });
  await (await db()).reconciliationRun.update({ where: { id: first.id }, data: { status: "done", finishedAt: new Date() } });
  assert.equal((await submit("carol@shop.test")).kind, "queued");
  assert.equal((await submit("ana@shop.test")).kind, "too_many_runs");
});

test("uploads sent in parallel count while they stream: of five at once from one uploader, two are queued and three refused", async () => {
  const database = await db();
  await database.reconciliationRun.updateMany({ data: { status: "done", finishedAt: new Date() } });
  const spooledBefore = readdirSync(spool).length;
  let release = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  // Each body is held until every request has been checked: the five are all in flight at once.
  const heldBody = () =>
    new ReadableStream<Uint8Array>({
      async pull(controller) {
        await gate;
        controller.enqueue(new TextEncoder().encode(csv));
        controller.close();
      },
    });
  const answers = Promise.all(
    Array.from({ length: 5 }, () =>
      submitReport(database, { body: heldBody(), contentLength: null, params: { format: "lab", source: "parallel.csv" }, actor: { id: "dan@shop.test", email: "dan@shop.test", organizationId: "org_default" }, via: { kind: "dashboard" } }),
    ),
  );
  await new Promise((resolve) => setTimeout(resolve, 300));
  release();
  const results = await answers;
  assert.deepEqual(results.map((result) => result.kind).sort(), ["queued", "queued", "too_many_runs", "too_many_runs", "too_many_runs"]);
  assert.equal(results.find((result) => result.kind === "too_many_runs")?.message, "too many runs: 2 of yours are uploading, queued or running (at most 2, RECONCILIATION_MAX_PENDING_RUNS_PER_ACTOR); upload again when one has finished");
  assert.deepEqual([readdirSync(spool).length - spooledBefore, await database.reconciliationRun.count({ where: { actor: "dan@shop.test" } })], [2, 2]);
});
