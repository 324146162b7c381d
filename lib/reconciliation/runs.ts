import { createReadStream } from "node:fs";
import { rm } from "node:fs/promises";
import type { Readable } from "node:stream";
import { settings } from "@/lib/config/settings";
import type { Db } from "@/lib/db/client";
import { uniqueViolationFields } from "@/lib/db/errors";
import { driverOf } from "@/lib/db/driver";
import { clearRunRows, processPaymentRun, RUN_LEASE_MS, type RunPacing, type RunProgress } from "@/lib/reconciliation/payment-run";
import { LAB_SCOPE, processLabRun } from "@/lib/reconciliation/reconcile";
import { scopeKey, type RunScope } from "@/lib/reconciliation/run-scope";
import { MAX_UPLOADED_LAB_ROWS, readSettlementCsv } from "@/lib/reconciliation/settlement-csv";
import { SettlementCsvError } from "@/lib/reconciliation/report-fields";
import { reasonColumns, reasonRef, reasonText, type ReasonRef } from "@/lib/reasons/reason-codes";
import type { SettlementFormat } from "@/lib/reconciliation/settlement-entries";

/** A run's life: queued (waiting for a worker, or for another run of its scope), running, done, failed. */
export type RunStatus = "queued" | "running" | "done" | "failed";

/** How a run's report came: an upload (the dashboard or the API), `npm run reconcile`, or a scheduled pull from the provider's API. */
export type RunOrigin = "upload" | "cli" | "scheduled";

/** What a new run needs: where the report is (a spooled file, for queued runs), its format and scope, who asked, how it came (default upload). */
export interface NewRun {
  /** The organization whose books the run compares (the uploader's). */
  organizationId: string;
  source: string;
  origin?: RunOrigin;
  format: SettlementFormat;
  scope: RunScope;
  actor: string;
  filePath?: string;
  bytesTotal?: number;
}

/** The run row fields the worker needs to process it. */
export interface ClaimedRun {
  id: string;
  format: SettlementFormat;
  scope: RunScope;
  filePath: string | null;
  bytesTotal: number;
}

/**
 * Creates a queued run. Returns its id. A run with a spooled file (`filePath`: an upload) is for any
 * worker to claim; one without is a command's (`npm run reconcile` reads its own file): no worker
 * claims it, and the command holds it while it waits its turn ({@link holdQueuedRun}, a lease of
 * RUN_LEASE_MS from now), so a command that died waiting leaves no run queued for ever.
 */
export async function queueRun(db: Db, run: NewRun, now = new Date()): Promise<string> {
  const created = await db.reconciliationRun.create({
    data: {
      organizationId: run.organizationId,
      source: run.source.slice(0, 255),
      origin: run.origin ?? "upload",
      format: run.format,
      provider: run.scope.provider,
      account: run.scope.account,
      livemode: run.scope.livemode,
      scopeKey: scopeKey(run.scope),
      periodFrom: run.scope.from ?? null,
      periodTo: run.scope.to ?? null,
      periodGiven: Boolean(run.scope.from && run.scope.to),
      status: "queued",
      actor: run.actor.slice(0, 255),
      filePath: run.filePath ?? null,
      bytesTotal: run.bytesTotal ?? 0,
      leaseUntil: run.filePath ? null : new Date(now.getTime() + RUN_LEASE_MS),
    },
    select: { id: true },
  });
  return created.id;
}

function claimedRun(row: { id: string; format: string; provider: string; account: string; livemode: boolean; periodFrom: Date | null; periodTo: Date | null; periodGiven: boolean; filePath: string | null; bytesTotal: number }): ClaimedRun {
  return {
    id: row.id,
    format: row.format as SettlementFormat,
    // A queued run keeps the ends it was given; the file's period is written when the run is done.
    scope: { provider: row.provider, account: row.account, livemode: row.livemode, from: row.periodFrom ?? undefined, to: row.periodTo ?? undefined },
    filePath: row.filePath,
    bytesTotal: row.bytesTotal,
  };
}

/**
 * Claims run `runId` for `owner` when it is queued and no other run of its scope is running: one
 * UPDATE that sets status running and `activeScope` (UNIQUE: a second run of the same scope fails with
 * a unique violation and stays queued). Returns the run, or null when it is not claimable now.
 */
export async function claimRun(db: Db, runId: string, owner: string, now = new Date()): Promise<ClaimedRun | null> {
  const row = await db.reconciliationRun.findUnique({ where: { id: runId } });
  if (!row || row.status !== "queued") return null;
  try {
    const claimed = await db.reconciliationRun.updateMany({ where: { id: runId, status: "queued" }, data: { status: "running", activeScope: row.scopeKey, claimedBy: owner, leaseUntil: new Date(now.getTime() + RUN_LEASE_MS), attempts: { increment: 1 } } });
    return claimed.count === 1 ? claimedRun(row) : null;
  } catch (error) {
    if (uniqueViolationFields(error)) return null;
    throw error;
  }
}

/**
 * Renews the lease of a command's run while it waits its turn (queued). Returns the run's status: a
 * status other than `queued` means the run left the queue without the command (failed by
 * {@link claimNextRun} after the lease ran out), and the command must stop waiting.
 */
export async function holdQueuedRun(db: Db, runId: string, now = new Date()): Promise<string | null> {
  await db.reconciliationRun.updateMany({ where: { id: runId, status: "queued" }, data: { leaseUntil: new Date(now.getTime() + RUN_LEASE_MS) } });
  return (await db.reconciliationRun.findUnique({ where: { id: runId }, select: { status: true } }))?.status ?? null;
}

/** Claims after which a run that never ends (its worker crashing or failing each time) is failed. */
export const MAX_RUN_ATTEMPTS = 3;

/**
 * Claims the oldest queued run whose scope is free. Runs whose worker stopped renewing its lease
 * (a crash, or an error the worker logged) are queued again first, and start over from their first
 * line; after {@link MAX_RUN_ATTEMPTS} claims they are failed instead. Only runs with a spooled file
 * are claimed: a command's run (no file) is its command's to run, and is failed once its command
 * stopped holding it (waiting or running). Returns null when nothing can run now.
 */
export async function claimNextRun(db: Db, owner: string, now = new Date()): Promise<ClaimedRun | null> {
  const commandGone = { filePath: null, status: { in: ["queued", "running"] }, leaseUntil: { lt: now } };
  for (const run of await db.reconciliationRun.findMany({ where: commandGone, select: { id: true } })) {
    // Conditional: a command that renewed its lease meanwhile keeps its run.
    const failed = await db.reconciliationRun.updateMany({ where: { id: run.id, ...commandGone }, data: { status: "failed", ...runError(reasonRef("run_command_stopped", {})), finishedAt: now, activeScope: null } });
    if (failed.count === 1) await db.reconciliationEntry.deleteMany({ where: { runId: run.id } });
  }
  const abandoned = { status: "running", leaseUntil: { lt: now } };
  const given = await db.reconciliationRun.findMany({ where: { ...abandoned, attempts: { gte: MAX_RUN_ATTEMPTS } }, select: { id: true, filePath: true } });
  for (const run of given) {
    await db.reconciliationEntry.deleteMany({ where: { runId: run.id } });
    await db.reconciliationRun.update({ where: { id: run.id }, data: { status: "failed", ...runError(reasonRef("run_claimed_too_often", { attempts: MAX_RUN_ATTEMPTS })), finishedAt: now, activeScope: null, filePath: null } });
    await removeSpool(run.filePath);
  }
  await db.reconciliationRun.updateMany({ where: abandoned, data: { status: "queued", activeScope: null, claimedBy: null } });
  const busy = new Set((await db.reconciliationRun.findMany({ where: { status: "running" }, select: { scopeKey: true } })).map((row) => row.scopeKey));
  const queued = await db.reconciliationRun.findMany({ where: { status: "queued", filePath: { not: null }, ...(busy.size > 0 ? { scopeKey: { notIn: [...busy] } } : {}) }, orderBy: [{ startedAt: "asc" }, { id: "asc" }], take: 20, select: { id: true } });
  for (const { id } of queued) {
    const claimed = await claimRun(db, id, owner, now);
    if (claimed) return claimed;
  }
  return null;
}

/**
 * Whether {@link claimNextRun} has anything to do now: a queued run with a spooled file, or a run whose
 * holder stopped renewing its lease (a worker that died, a command that stopped). One indexed read,
 * cheap enough to poll: a server checks it before it starts its reconciliation worker process.
 */
export async function hasRunToClaim(db: Db, now = new Date()): Promise<boolean> {
  const run = await db.reconciliationRun.findFirst({
    where: { OR: [{ status: "queued", filePath: { not: null } }, { status: { in: ["queued", "running"] }, leaseUntil: { lt: now } }] },
    select: { id: true },
  });
  return run !== null;
}

/**
 * Fails at once every run still running under a worker whose id starts with `ownerPrefix` (a worker
 * process that died: lib/background/reconciliation-process.ts names it by its pid), with `reason`:
 * frees its scope, deletes its rows and its spooled file. For a death the run itself caused (memory
 * exhaustion), where claiming it again would only repeat the death. Returns the ids failed.
 */
export async function failRunsHeldBy(db: Db, ownerPrefix: string, reason: ReasonRef, now = new Date()): Promise<string[]> {
  const held = await db.reconciliationRun.findMany({ where: { status: "running", claimedBy: { startsWith: ownerPrefix } }, select: { id: true, filePath: true } });
  const failed: string[] = [];
  for (const run of held) {
    // Conditional: a run another worker took meanwhile (its lease had ended) is that worker's.
    const updated = await db.reconciliationRun.updateMany({ where: { id: run.id, status: "running", claimedBy: { startsWith: ownerPrefix } }, data: { status: "failed", ...runError(reason), finishedAt: now, activeScope: null, filePath: null } });
    if (updated.count === 0) continue;
    await clearRunRows(db, run.id, true);
    await removeSpool(run.filePath);
    failed.push(run.id);
  }
  return failed;
}

/** Writes a running run's progress and renews its lease (the same UPDATE). */
export async function recordProgress(db: Db, runId: string, progress: RunProgress, now = new Date()): Promise<void> {
  // On the driver's prepared statement: written once a second by a run, beside the webhooks.
  await driverOf(db).transaction((session) =>
    session.run(`UPDATE "ReconciliationRun" SET "rowCount" = ?, "bytesDone" = ?, "mismatchCount" = ?, "leaseUntil" = ? WHERE "id" = ?`, [progress.rows, progress.bytes, progress.mismatches, new Date(now.getTime() + RUN_LEASE_MS), runId]),
  );
}

/** What a run ended as. */
export type RunOutcome = { status: "done"; mismatchCount: number; rowCount: number } | { status: "failed"; error: string; reason: ReasonRef } | { status: "queued"; reason: string };

/** Thrown between batches when the worker is stopping: the run goes back to the queue. */
class RunStopped extends Error {}

function overcreditedOf(totals: Record<string, { overCredited: number }>): Record<string, number> {
  return Object.fromEntries(Object.entries(totals).map(([currency, sums]) => [currency, sums.overCredited]));
}

/**
 * Processes a claimed run to its end: reads its report (`input`, else its spooled file), compares it
 * with the ledger of its scope (processPaymentRun, or processLabRun for the lab's file), stores the
 * summary and status done; on a bad report (SettlementCsvError) status failed with the line and the
 * problem as its error. Frees the scope and deletes the spooled file either way. When `signal` aborts
 * (the worker stops), the run is queued again at its next batch, its file kept. Other errors (the
 * database went away) are thrown with the run left running: its lease expires and a worker retries it.
 * `pacing` is called after each of a payment-level run's transactions (lib/reconciliation/payment-run.ts).
 */
export async function executeRun(db: Db, run: ClaimedRun, options: { input?: Readable; onProgress?: (progress: RunProgress) => void; signal?: AbortSignal; pacing?: RunPacing } = {}): Promise<RunOutcome> {
  const input = options.input ?? (run.filePath ? createReadStream(run.filePath) : undefined);
  if (!input) return failRun(db, run, reasonRef("run_no_file", {}));
  let lastWrite = 0;
  const onProgress = async (progress: RunProgress) => {
    if (options.signal?.aborted) throw new RunStopped();
    options.onProgress?.(progress);
    // One progress write per second at most (and the last): each renews the lease.
    if (Date.now() - lastWrite >= 1_000 || progress.phase === "done") {
      lastWrite = Date.now();
      await recordProgress(db, run.id, progress);
    }
  };
  try {
    if (run.format === "lab") {
      // An upload (no `input`: the spooled file) is bounded by rows and by the bytes its order ids take
      // in this worker's heap; the duplicate check is the held map's own, so the ids are indexed once.
      const bounds = options.input ? {} : { maxRows: MAX_UPLOADED_LAB_ROWS, maxHeldBytes: settings().RECONCILIATION_RUN_MAX_HELD_BYTES };
      const summary = await processLabRun(db, run.id, readSettlementCsv(input, { ...bounds, checkDuplicates: false }), run.scope.provider === "lab" ? { ...LAB_SCOPE, ...run.scope } : run.scope);
      await db.reconciliationRun.update({
        where: { id: run.id },
        data: { status: "done", finishedAt: new Date(), activeScope: null, filePath: null, rowCount: summary.rowCount, orderCount: summary.orderCount, mismatchCount: summary.mismatchCount, overcredited: JSON.stringify(summary.overcredited), bytesDone: run.bytesTotal },
      });
      options.onProgress?.({ phase: "done", rows: summary.rowCount, bytes: run.bytesTotal, bytesTotal: run.bytesTotal, mismatches: summary.mismatchCount });
      await removeSpool(run.filePath);
      return { status: "done", mismatchCount: summary.mismatchCount, rowCount: summary.rowCount };
    }
    const summary = await processPaymentRun(db, { id: run.id, format: run.format, scope: run.scope, bytesTotal: run.bytesTotal }, input, onProgress, options.pacing);
    await db.reconciliationRun.update({
      where: { id: run.id },
      data: {
        status: "done",
        finishedAt: new Date(),
        activeScope: null,
        filePath: null,
        rowCount: summary.rowCount,
        mismatchCount: summary.mismatchCount,
        periodFrom: summary.period?.from ?? null,
        periodTo: summary.period?.to ?? null,
        totals: JSON.stringify(summary.totals),
        payouts: JSON.stringify(summary.payouts),
        overcredited: JSON.stringify(overcreditedOf(summary.totals)),
      },
    });
    await removeSpool(run.filePath);
    return { status: "done", mismatchCount: summary.mismatchCount, rowCount: summary.rowCount };
  } catch (error) {
    if (error instanceof SettlementCsvError) return failRun(db, run, error.reason);
    if (error instanceof RunStopped) {
      // Stopping (SIGTERM): free the scope now rather than at the lease's end; a worker starts it again from line 1.
      await db.reconciliationRun.update({ where: { id: run.id }, data: { status: "queued", activeScope: null, claimedBy: null, leaseUntil: null } });
      return { status: "queued", reason: "the worker stopped; the run starts again from its first line" };
    }
    throw error;
  } finally {
    input.destroy();
  }
}

/** A failed run's error columns: the English sentence (logs, API) and the reason it renders from in the reader's locale. */
function runError(reason: ReasonRef): { error: string; errorCode: string | null; errorParams: string | null } {
  const { reasonCode, reasonParams } = reasonColumns(reason);
  return { error: reasonText(reason).slice(0, 500), errorCode: reasonCode, errorParams: reasonParams };
}

async function failRun(db: Db, run: ClaimedRun, reason: ReasonRef): Promise<RunOutcome> {
  await clearRunRows(db, run.id, true);
  const columns = runError(reason);
  await db.reconciliationRun.update({ where: { id: run.id }, data: { status: "failed", ...columns, finishedAt: new Date(), activeScope: null, filePath: null } });
  await removeSpool(run.filePath);
  return { status: "failed", error: columns.error, reason };
}

async function removeSpool(filePath: string | null): Promise<void> {
  if (filePath) await rm(filePath, { force: true });
}
