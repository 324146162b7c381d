import { rm } from "node:fs/promises";
import path from "node:path";
import { recordAudit, type AuditActor } from "@/lib/audit/record-audit";
import { accountBelongsElsewhere } from "@/lib/endpoints/endpoint-store";
import { notifyWork } from "@/lib/jobs/signals";
import { settings } from "@/lib/config/settings";
import type { Db } from "@/lib/db/client";
import { formatOfFile } from "@/lib/reconciliation/report-head";
import { queueRun } from "@/lib/reconciliation/runs";
import { parseFormat, resolveScope, ScopeError } from "@/lib/reconciliation/run-scope";
import { SettlementCsvError } from "@/lib/reconciliation/report-fields";
import { declaredTooLarge, spoolUpload, UploadTooLargeError } from "@/lib/reconciliation/upload";
import { because, reasonRef, type ReasonRef } from "@/lib/reasons/reason-codes";

/** How an upload ended: queued (202 with the run's id), too large (413 naming the limit), or refused (400 with the line and problem). */
export type SubmitResult =
  | { kind: "queued"; runId: string; bytes: number }
  | { kind: "too_large"; limitBytes: number; message: string }
  | { kind: "too_many_runs"; limit: number; scope: "actor" | "all"; message: string }
  | { kind: "invalid"; message: string; reason: ReasonRef };

/**
 * Uploads this process is streaming to the spool now, per uploader and in all. A run's row exists only
 * once its file is whole, so without these, uploads sent in parallel would all pass the limit below
 * while each streams its file.
 */
const uploadsInFlight = { perActor: new Map<string, number>(), all: 0 };

/** Counts an upload in flight until the returned function is called (once). */
function startUpload(actor: string): () => void {
  uploadsInFlight.perActor.set(actor, (uploadsInFlight.perActor.get(actor) ?? 0) + 1);
  uploadsInFlight.all++;
  let done = false;
  return () => {
    if (done) return;
    done = true;
    const left = (uploadsInFlight.perActor.get(actor) ?? 1) - 1;
    if (left > 0) uploadsInFlight.perActor.set(actor, left);
    else uploadsInFlight.perActor.delete(actor);
    uploadsInFlight.all--;
  };
}

/**
 * Refuses an upload before it is read when its uploader already has RECONCILIATION_MAX_PENDING_RUNS_PER_ACTOR
 * runs queued or running or uploads in flight, or all uploaders RECONCILIATION_MAX_PENDING_RUNS: the
 * spool holds at most that many files, so one uploader (or a leaked API key) cannot fill the disk or
 * keep the worker busy for hours. The uploads in flight are this process's: with several server
 * processes each may stream that many at once.
 */
async function pendingRunsRefusal(db: Db, actor: string): Promise<Extract<SubmitResult, { kind: "too_many_runs" }> | undefined> {
  const config = settings();
  const pending = { status: { in: ["queued", "running"] } };
  const [queuedMine, queuedAll] = await Promise.all([db.reconciliationRun.count({ where: { ...pending, actor } }), db.reconciliationRun.count({ where: pending })]);
  // Read after the await, with no await before the caller counts its own upload: parallel requests see each other.
  const mine = queuedMine + (uploadsInFlight.perActor.get(actor) ?? 0);
  const all = queuedAll + uploadsInFlight.all;
  if (mine >= config.RECONCILIATION_MAX_PENDING_RUNS_PER_ACTOR) {
    const limit = config.RECONCILIATION_MAX_PENDING_RUNS_PER_ACTOR;
    return { kind: "too_many_runs", limit, scope: "actor", message: `too many runs: ${mine} of yours are uploading, queued or running (at most ${limit}, RECONCILIATION_MAX_PENDING_RUNS_PER_ACTOR); upload again when one has finished` };
  }
  if (all >= config.RECONCILIATION_MAX_PENDING_RUNS) {
    const limit = config.RECONCILIATION_MAX_PENDING_RUNS;
    return { kind: "too_many_runs", limit, scope: "all", message: `too many runs: ${all} are uploading, queued or running (at most ${limit}, RECONCILIATION_MAX_PENDING_RUNS); upload again when one has finished` };
  }
  return undefined;
}

/** What an upload says besides its bytes: `format`, `provider`, `account`, `mode` (live or test), `from`, `to`, `source`. */
export type SubmitParams = Record<string, string | undefined>;

/** How a report arrived: the dashboard's upload, an API key (named by its public start), the API_TOKEN, or a settlement pull of an endpoint (lib/settlement-pull). */
export type UploadVia = { kind: "dashboard" } | { kind: "key"; keyStart: string } | { kind: "token" } | { kind: "scheduled"; endpoint: string };

/** The audit note of a queued run, as a reason code (rendered in the reader's locale). */
function queuedNote(source: string, bytes: number, via: UploadVia) {
  if (via.kind === "key") return because("audit_reconciliation_queued_key", { source, bytes, keyStart: via.keyStart });
  if (via.kind === "scheduled") return because("audit_reconciliation_queued_scheduled", { source, bytes, endpoint: via.endpoint });
  return because(via.kind === "token" ? "audit_reconciliation_queued_token" : "audit_reconciliation_queued", { source, bytes });
}

/**
 * Takes an uploaded settlement report and queues its run, never reading it whole: refuses a declared
 * Content-Length over RECONCILIATION_UPLOAD_MAX_BYTES before reading, and an uploader with too many runs
 * pending ({@link pendingRunsRefusal}), streams the body to a file in
 * RECONCILIATION_SPOOL_DIR under the same cap, tells its format from its head (an empty or binary
 * file, or a missing column, is refused with line 1 and the problem), resolves the scope and period
 * from `params` (lib/reconciliation/run-scope.ts), queues the run, audits it with `actor` and wakes
 * this process's reconciliation worker. The refused file is deleted. Database errors are thrown. A
 * settlement pull (`via` scheduled) takes this same path with the downloaded report as its body; its
 * run's origin is `scheduled` (else `upload`).
 */
export async function submitReport(
  db: Db,
  upload: { body: ReadableStream<Uint8Array> | null; contentLength: string | null; params: SubmitParams; actor: AuditActor; via: UploadVia },
): Promise<SubmitResult> {
  const config = settings();
  const limit = config.RECONCILIATION_UPLOAD_MAX_BYTES;
  if (declaredTooLarge(upload.contentLength, limit)) return { kind: "too_large", limitBytes: limit, message: new UploadTooLargeError(limit).message };
  const busy = await pendingRunsRefusal(db, upload.actor.email);
  if (busy) return busy;
  const uploaded = startUpload(upload.actor.email);
  const { params } = upload;
  let spooled: { filePath: string; bytes: number } | undefined;
  try {
    spooled = await spoolUpload(upload.body, path.resolve(config.RECONCILIATION_SPOOL_DIR), limit);
    const format = await formatOfFile(spooled.filePath, params.format ? parseFormat(params.format) : undefined);
    const mode = params.mode?.trim().toLowerCase();
    if (mode && mode !== "live" && mode !== "test") throw new ScopeError(reasonRef("scope_bad_mode", { flag: "mode", value: mode.slice(0, 20) }));
    const scope = resolveScope(format, { provider: params.provider, account: params.account, livemode: mode ? mode === "live" : undefined, from: params.from, to: params.to });
    if (await accountBelongsElsewhere(db, upload.actor.organizationId, scope)) throw new ScopeError(reasonRef("scope_account_elsewhere", { provider: scope.provider, account: scope.account }));
    const source = (params.source?.trim() || "upload").slice(0, 200);
    const runId = await queueRun(db, { organizationId: upload.actor.organizationId, source, origin: upload.via.kind === "scheduled" ? "scheduled" : "upload", format, scope, actor: upload.actor.email, filePath: spooled.filePath, bytesTotal: spooled.bytes });
    await recordAudit(db, upload.actor, { action: "reconciliation.run", targetType: "reconciliation_run", targetId: runId, note: queuedNote(source.slice(0, 100), spooled.bytes, upload.via) });
    notifyWork("reconciliation");
    return { kind: "queued", runId, bytes: spooled.bytes };
  } catch (error) {
    if (spooled) await rm(spooled.filePath, { force: true });
    if (error instanceof UploadTooLargeError) return { kind: "too_large", limitBytes: error.limitBytes, message: error.message };
    if (error instanceof SettlementCsvError || error instanceof ScopeError) return { kind: "invalid", message: error.message, reason: error.reason };
    throw error;
  } finally {
    // Once queued the run's row counts instead (a moment of both only refuses more, never less).
    uploaded();
  }
}
