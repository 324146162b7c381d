import "@/e2e/support/test-env";
// The run queue: one run per scope at a time (the UNIQUE activeScope), others queue; a run whose worker
// stopped renewing its lease is queued again, and failed after three claims; a stopping worker puts its
// run back at once. What a server polls before it starts its reconciliation worker process (hasRunToClaim).
import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { after, test } from "node:test";
import { closeDb, db } from "@/lib/db/client";
import { RUN_LEASE_MS } from "@/lib/reconciliation/payment-run";
import { claimNextRun, claimRun, executeRun, hasRunToClaim, holdQueuedRun, MAX_RUN_ATTEMPTS, queueRun } from "@/lib/reconciliation/runs";
import { stripeReport } from "@/e2e/support/stripe-reports";

after(closeDb);

const stripe = (account: string) => ({ provider: "stripe", account, livemode: true });
/** An upload's run: its report spooled to a file (the claims below never open it). */
const spooled = (name: string) => ({ filePath: `/spool/${name}.csv` });

// First in the file: it needs the queue empty at its start.
test("hasRunToClaim: true for a queued upload and for a run whose holder stopped renewing its lease; false for a run held, a command's run in hand, and a run ended", async () => {
  const database = await db();
  const now = new Date();
  const later = (ms: number) => new Date(now.getTime() + ms);
  assert.equal(await hasRunToClaim(database, now), false, "nothing queued");
  const upload = await queueRun(database, { organizationId: "org_default", ...spooled("h1"), source: "h1", format: "stripe-balance-change", scope: stripe("acct_h1"), actor: "test" });
  assert.equal(await hasRunToClaim(database, now), true, "a queued upload");
  assert.equal((await claimRun(database, upload, "w1", now))?.id, upload);
  assert.equal(await hasRunToClaim(database, now), false, "the upload held by its worker");
  assert.equal(await hasRunToClaim(database, later(RUN_LEASE_MS + 1)), true, "its worker stopped renewing the lease");
  await database.reconciliationRun.update({ where: { id: upload }, data: { status: "done", activeScope: null } });
  assert.equal(await hasRunToClaim(database, later(RUN_LEASE_MS + 1)), false, "the run ended");
  // A command's run (no spooled file) is its command's while the command renews its lease.
  await queueRun(database, { organizationId: "org_default", source: "h2", format: "stripe-balance-change", scope: stripe("acct_h2"), actor: "test" }, now);
  assert.equal(await hasRunToClaim(database, now), false, "a command's run in hand");
  assert.equal(await hasRunToClaim(database, later(RUN_LEASE_MS + 1)), true, "its command stopped");
  await database.reconciliationRun.updateMany({ where: { source: "h2" }, data: { status: "done", activeScope: null } });
});

test("one run per scope at a time: the second of a scope waits, another scope's run goes ahead, in queue order", async () => {
  const database = await db();
  const first = await queueRun(database, { organizationId: "org_default", ...spooled("a1"), source: "a1", format: "stripe-balance-change", scope: stripe("acct_q1"), actor: "test" });
  const second = await queueRun(database, { organizationId: "org_default", ...spooled("a2"), source: "a2", format: "stripe-balance-change", scope: stripe("acct_q1"), actor: "test" });
  const other = await queueRun(database, { organizationId: "org_default", ...spooled("b1"), source: "b1", format: "stripe-balance-change", scope: stripe("acct_q2"), actor: "test" });
  assert.equal((await claimNextRun(database, "w1"))?.id, first);
  assert.equal(await claimRun(database, second, "w2"), null, "the same scope is busy");
  assert.equal((await claimNextRun(database, "w2"))?.id, other);
  assert.equal(await claimNextRun(database, "w3"), null);
  // Two workers racing for the same queued run: one wins.
  await database.reconciliationRun.update({ where: { id: first }, data: { status: "done", activeScope: null } });
  const race = await Promise.all([claimRun(database, second, "w4"), claimRun(database, second, "w5")]);
  assert.deepEqual(race.map((run) => run?.id ?? null).sort(), [null, second].sort());
  const row = await database.reconciliationRun.findUniqueOrThrow({ where: { id: second } });
  assert.deepEqual([row.status, row.activeScope, row.attempts], ["running", "stripe:acct_q1:live", 1]);
  await database.reconciliationRun.updateMany({ where: { id: { in: [second, other] } }, data: { status: "done", activeScope: null } });
});

test("an abandoned run (lease expired) is claimed again from its first line; after three claims it is failed", async () => {
  const database = await db();
  const runId = await queueRun(database, { organizationId: "org_default", ...spooled("crashy"), source: "crashy", format: "stripe-balance-change", scope: stripe("acct_q3"), actor: "test" });
  let now = Date.now();
  for (let attempt = 1; attempt <= MAX_RUN_ATTEMPTS; attempt++) {
    assert.equal((await claimNextRun(database, `w${attempt}`, new Date(now)))?.id, runId, `claim ${attempt}`);
    now += RUN_LEASE_MS + 1;
  }
  assert.equal(await claimNextRun(database, "w9", new Date(now)), null);
  const row = await database.reconciliationRun.findUniqueOrThrow({ where: { id: runId } });
  assert.deepEqual([row.status, row.error, row.activeScope], ["failed", "claimed 3 times without ending: see the worker's log", null]);
});

test("a worker that stops mid-run puts the run back in the queue at its next batch, the scope freed", async () => {
  const database = await db();
  const lines = Array.from({ length: 1_200 }, (_, i) => ({ txn: `txn_s${i}`, at: "2026-11-29 12:00:00", currency: "usd", gross: "1.00", category: "charge", paymentIntent: `pi_s${i}` }));
  const runId = await queueRun(database, { organizationId: "org_default", source: "stopped", format: "stripe-balance-change", scope: stripe("acct_q4"), actor: "test" });
  const run = (await claimRun(database, runId, "w1"))!;
  const stopping = new AbortController();
  const outcome = await executeRun(database, run, { input: Readable.from([stripeReport(lines)]), signal: stopping.signal, onProgress: () => stopping.abort() });
  assert.deepEqual(outcome, { status: "queued", reason: "the worker stopped; the run starts again from its first line" });
  const row = await database.reconciliationRun.findUniqueOrThrow({ where: { id: runId } });
  assert.deepEqual([row.status, row.activeScope, row.claimedBy], ["queued", null, null]);
});

test("a command's run (no spooled file) is never claimed by a worker; once its command stops holding it, it is failed and frees its scope", async () => {
  const database = await db();
  let now = Date.now();
  const waiting = await queueRun(database, { organizationId: "org_default", source: "cli.csv", format: "stripe-balance-change", scope: stripe("acct_q5"), actor: "cli:test" }, new Date(now));
  assert.equal(await claimNextRun(database, "w1", new Date(now)), null, "a worker never takes a command's run");
  // The command holds it while it waits: still queued after more than one lease.
  now += RUN_LEASE_MS - 1;
  assert.equal(await holdQueuedRun(database, waiting, new Date(now)), "queued");
  now += RUN_LEASE_MS - 1;
  assert.equal(await claimNextRun(database, "w1", new Date(now)), null);
  assert.equal((await database.reconciliationRun.findUniqueOrThrow({ where: { id: waiting } })).status, "queued");
  // The command died: after its lease the run is failed, and the command (were it back) stops waiting.
  now += RUN_LEASE_MS + 1;
  assert.equal(await claimNextRun(database, "w1", new Date(now)), null);
  const row = await database.reconciliationRun.findUniqueOrThrow({ where: { id: waiting } });
  assert.deepEqual([row.status, row.error, row.activeScope], ["failed", "the command running it stopped before the run ended", null]);
  assert.equal(await holdQueuedRun(database, waiting, new Date(now)), "failed");

  // A command's run that it claimed and then stopped renewing (killed mid-run) is failed too, its scope freed.
  const running = await queueRun(database, { organizationId: "org_default", source: "cli2.csv", format: "stripe-balance-change", scope: stripe("acct_q5"), actor: "cli:test" }, new Date(now));
  assert.equal((await claimRun(database, running, "reconcile-cli", new Date(now)))?.id, running);
  now += RUN_LEASE_MS + 1;
  const upload = await queueRun(database, { organizationId: "org_default", ...spooled("after"), source: "after", format: "stripe-balance-change", scope: stripe("acct_q5"), actor: "test" }, new Date(now));
  assert.equal((await claimNextRun(database, "w2", new Date(now)))?.id, upload, "the scope is free again");
  assert.deepEqual((await database.reconciliationRun.findUniqueOrThrow({ where: { id: running } })).status, "failed");
  await database.reconciliationRun.update({ where: { id: upload }, data: { status: "done", activeScope: null } });
});
