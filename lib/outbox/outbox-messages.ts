import { notifyWork } from "@/lib/jobs/signals";
import type { Db } from "@/lib/db/client";
import { settleOutboxRow } from "@/lib/outbox/outbox-store";

/** An outbox message as the CLI and the dashboard list it. Times ISO 8601 UTC. */
export interface OutboxMessageView {
  id: string;
  idempotencyKey: string;
  orderId: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  note: string | null;
  nextAttemptAt: string;
  createdAt: string;
  updatedAt: string;
}

/** Lists outbox messages, newest first, optionally of one status; at most `limit` (1..500). */
export async function listOutboxMessages(db: Db, { status, limit = 100 }: { status?: string; limit?: number } = {}): Promise<OutboxMessageView[]> {
  const rows = await db.outboxMessage.findMany({ where: status ? { status } : {}, orderBy: [{ createdAt: "desc" }, { id: "asc" }], take: Math.min(Math.max(limit, 1), 500) });
  return rows.map((row) => ({
    id: row.id,
    idempotencyKey: row.idempotencyKey,
    orderId: row.orderId,
    status: row.status,
    attempts: row.attempts,
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    note: row.note,
    nextAttemptAt: row.nextAttemptAt.toISOString(),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }));
}

/**
 * After a person checked with the merchant: `resend` puts an uncertain or failed message back in the
 * queue (same Idempotency-Key, so a target that honours it drops a repeat); `resolve` closes it as
 * handled with a note (e.g. "merchant confirms it shipped"). Returns false when the message is not in
 * a state that allows it (only uncertain and failed messages can be resent or resolved).
 */
export async function settleOutboxMessage(db: Db, id: string, action: "resend" | "resolve", actor: string, note: string, now = new Date()): Promise<boolean> {
  const text = `${action === "resend" ? "resent" : "resolved"} by ${actor} at ${now.toISOString()}${note ? `: ${note}` : ""}`;
  const settled = await settleOutboxRow(db, id, action, text, now);
  if (settled && action === "resend") notifyWork("outbox");
  return settled;
}
