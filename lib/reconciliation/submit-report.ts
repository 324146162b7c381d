import { rm } from "node:fs/promises";
import path from "node:path";
import { recordAudit } from "@/lib/audit/record-audit";
import { notifyWork } from "@/lib/background/signals";
import { settings } from "@/lib/config/settings";
import type { Db } from "@/lib/db/client";
import { formatOfFile } from "@/lib/reconciliation/report-head";
import { queueRun } from "@/lib/reconciliation/runs";
import { parseFormat, resolveScope, ScopeError } from "@/lib/reconciliation/run-scope";
import { SettlementCsvError } from "@/lib/reconciliation/settlement-csv";
import { declaredTooLarge, spoolUpload, UploadTooLargeError } from "@/lib/reconciliation/upload";
import { because } from "@/lib/reasons/reason-codes";

/** How an upload ended: queued (202 with the run's id), too large (413 naming the limit), or refused (400 with the line and problem). */
export type SubmitResult = { kind: "queued"; runId: string; bytes: number } | { kind: "too_large"; limitBytes: number; message: string } | { kind: "invalid"; message: string };

/** What an upload says besides its bytes: `format`, `provider`, `account`, `mode` (live or test), `from`, `to`, `source`. */
export type SubmitParams = Record<string, string | undefined>;

/** How a report arrived: the dashboard's upload, an API key (named by its public start) or the API_TOKEN. */
export type UploadVia = { kind: "dashboard" } | { kind: "key"; keyStart: string } | { kind: "token" };

/** The audit note of a queued run, as a reason code (rendered in the reader's locale). */
function queuedNote(source: string, bytes: number, via: UploadVia) {
  if (via.kind === "key") return because("audit_reconciliation_queued_key", { source, bytes, keyStart: via.keyStart });
  return because(via.kind === "token" ? "audit_reconciliation_queued_token" : "audit_reconciliation_queued", { source, bytes });
}

/**
 * Takes an uploaded settlement report and queues its run, never reading it whole: refuses a declared
 * Content-Length over RECONCILIATION_UPLOAD_MAX_BYTES before reading, streams the body to a file in
 * RECONCILIATION_SPOOL_DIR under the same cap, tells its format from its head (an empty or binary
 * file, or a missing column, is refused with line 1 and the problem), resolves the scope and period
 * from `params` (lib/reconciliation/run-scope.ts), queues the run, audits it with `actor` and wakes
 * this process's reconciliation worker. The refused file is deleted. Database errors are thrown.
 */
export async function submitReport(
  db: Db,
  upload: { body: ReadableStream<Uint8Array> | null; contentLength: string | null; params: SubmitParams; actor: { id: string; email: string }; via: UploadVia },
): Promise<SubmitResult> {
  const config = settings();
  const limit = config.RECONCILIATION_UPLOAD_MAX_BYTES;
  if (declaredTooLarge(upload.contentLength, limit)) return { kind: "too_large", limitBytes: limit, message: new UploadTooLargeError(limit).message };
  const { params } = upload;
  let spooled: { filePath: string; bytes: number } | undefined;
  try {
    spooled = await spoolUpload(upload.body, path.resolve(config.RECONCILIATION_SPOOL_DIR), limit);
    const format = await formatOfFile(spooled.filePath, params.format ? parseFormat(params.format) : undefined);
    const mode = params.mode?.trim().toLowerCase();
    if (mode && mode !== "live" && mode !== "test") throw new ScopeError(`mode: "${mode.slice(0, 20)}" must be live or test`);
    const scope = resolveScope(format, { provider: params.provider, account: params.account, livemode: mode ? mode === "live" : undefined, from: params.from, to: params.to });
    const source = (params.source?.trim() || "upload").slice(0, 200);
    const runId = await queueRun(db, { source, format, scope, actor: upload.actor.email, filePath: spooled.filePath, bytesTotal: spooled.bytes });
    await recordAudit(db, upload.actor, { action: "reconciliation.run", targetType: "reconciliation_run", targetId: runId, note: queuedNote(source.slice(0, 100), spooled.bytes, upload.via) });
    notifyWork("reconciliation");
    return { kind: "queued", runId, bytes: spooled.bytes };
  } catch (error) {
    if (spooled) await rm(spooled.filePath, { force: true });
    if (error instanceof UploadTooLargeError) return { kind: "too_large", limitBytes: error.limitBytes, message: error.message };
    if (error instanceof SettlementCsvError || error instanceof ScopeError) return { kind: "invalid", message: error.message };
    throw error;
  }
}
