import { because, reasonColumns, type Because } from "@/lib/reasons/reason-codes";
import { notifyWork } from "@/lib/background/signals";
import type { Db } from "@/lib/db/client";
import { resolveEndpoint, type Endpoint } from "@/lib/endpoints/endpoints";
import type { VerifiedDelivery } from "@/lib/ingest/delivery";
import { processInline } from "@/lib/ingest/process-inline";
import { storeInInbox } from "@/lib/ingest/store-inbox-event";
import type { NormalizedEvent } from "@/lib/core/effect";

/** A system resolution's columns: the English sentence and its code. */
function resolutionOf(why: Because) {
  const { reasonCode, reasonParams } = reasonColumns(why.reasonRef);
  return { resolution: why.reason, resolutionCode: reasonCode, resolutionParams: reasonParams };
}

/**
 * What a retry did:
 * - requeued: the stored inbox event is due again; a worker applies it (and resolves the dead letter);
 * - applied / duplicate / ignored: the stored normalised event went through the inline core now;
 * - dead_lettered: it failed again (the dead letter's attempts and last failure were updated);
 * - already_applied: the event had been applied meanwhile; the dead letter is now resolved;
 * - already_resolved, not_retryable, not_found, rejected (database unavailable): nothing changed.
 */
export type RetryOutcome =
  | "requeued"
  | "applied"
  | "duplicate"
  | "ignored"
  | "dead_lettered"
  | "already_applied"
  | "already_resolved"
  | "not_retryable"
  | "not_found"
  | "rejected";

export interface RetryResult {
  id: string;
  outcome: RetryOutcome;
  reason: string;
}

/**
 * Retries one dead letter (CLI `npm run dead-letters -- retry <id>`, and the dashboard). Never applies
 * an event twice: an inbox event is re-queued under its lease rules; an inline-mode dead letter, whose
 * event row was rolled back, re-runs its stored normalised payload through the same core, where the
 * UNIQUE event key and the ledger's business keys hold. A conflict (another body under a stored id) is
 * not retryable: a person compares the bodies. `actor` names who asked (stored on the dead letter).
 */
export async function retryDeadLetter(db: Db, id: string, actor: string, now = new Date()): Promise<RetryResult> {
  const letter = await db.deadLetter.findUnique({ where: { id } });
  if (!letter) return { id, outcome: "not_found", reason: `no dead letter ${id}` };
  if (letter.status !== "open") return { id, outcome: "already_resolved", reason: `dead letter already ${letter.status}${letter.resolution ? `: ${letter.resolution}` : ""}` };
  if (letter.category === "conflict") {
    return { id, outcome: "not_retryable", reason: "a conflict is not retried: compare both bodies with the provider; the stored event was kept" };
  }
  const key = { provider: letter.provider, account: letter.account, livemode: letter.livemode, eventId: letter.eventId };
  const stored = await db.webhookEvent.findUnique({ where: { provider_account_livemode_eventId: key }, select: { id: true, status: true, bodyHash: true } });

  if (stored && stored.bodyHash !== letter.bodyHash) {
    return { id, outcome: "not_retryable", reason: `another body is stored under event ${letter.eventId}; compare both bodies with the provider` };
  }
  if (stored && (stored.status === "processed" || stored.status === "ignored")) {
    await db.deadLetter.updateMany({
      where: { id, status: "open" },
      data: { status: "resolved", ...resolutionOf(because("event_already_done", { status: stored.status })), resolvedBy: actor, resolvedAt: now },
    });
    return { id, outcome: "already_applied", reason: `event ${letter.eventId} was already ${stored.status}; dead letter resolved` };
  }
  if (stored && (stored.status === "received" || stored.status === "processing")) {
    return { id, outcome: "requeued", reason: `event ${letter.eventId} is already queued (status ${stored.status})` };
  }
  if (stored) {
    // dead or failed: due again now, with a fresh attempt budget; the dead letter stays open until it applies.
    const requeued = await db.$transaction(async (tx) => {
      const { count } = await tx.webhookEvent.updateMany({
        where: { id: stored.id, status: stored.status },
        data: { status: "received", nextAttemptAt: now, dueAt: now, attempts: 0, firstFailedAt: null, leaseOwner: null, leaseExpiresAt: null },
      });
      if (count === 1) await tx.deadLetter.update({ where: { id }, data: { nextAction: `re-queued by ${actor} at ${now.toISOString()}; the worker applies it`, owner: letter.owner ?? actor } });
      return count === 1;
    });
    if (requeued) notifyWork("inbox");
    return { id, outcome: "requeued", reason: requeued ? `event ${letter.eventId} re-queued for the worker` : `event ${letter.eventId} was re-queued concurrently` };
  }

  // Not stored: an inline-mode failure rolled the event back (or it was refused before storing).
  let endpoint: Endpoint | undefined;
  try {
    endpoint = resolveEndpoint(letter.endpoint);
  } catch {
    return { id, outcome: "not_retryable", reason: `endpoint ${letter.endpoint} is misconfigured; fix its configuration, then retry` };
  }
  if (!endpoint || endpoint.provider !== letter.provider || endpoint.account !== letter.account) {
    return { id, outcome: "not_retryable", reason: `endpoint ${letter.endpoint} is no longer configured for ${letter.provider}/${letter.account}` };
  }
  let event: NormalizedEvent;
  try {
    event = JSON.parse(letter.payload) as NormalizedEvent;
  } catch {
    return { id, outcome: "not_retryable", reason: "stored payload is not valid JSON" };
  }
  const delivery: VerifiedDelivery = { endpoint, event, bodyHash: letter.bodyHash, source: "retry" };
  const result = endpoint.mode === "inbox" ? await storeInInbox(db, delivery, now) : await processInline(db, delivery);
  const outcome: RetryOutcome =
    result.outcome === "accepted"
      ? "requeued"
      : result.outcome === "applied" || result.outcome === "duplicate" || result.outcome === "ignored" || result.outcome === "dead_lettered"
        ? result.outcome
        : "rejected";
  if (outcome === "requeued") {
    await db.deadLetter.updateMany({ where: { id, status: "open" }, data: { nextAction: `re-queued by ${actor} at ${now.toISOString()}; the worker applies it`, owner: letter.owner ?? actor } });
  }
  return { id, outcome, reason: result.reason };
}

/** Retries every open dead letter, oldest first. Returns one result per dead letter and counts per outcome. */
export async function retryAllDeadLetters(db: Db, actor: string, now = new Date()): Promise<{ results: RetryResult[]; counts: Partial<Record<RetryOutcome, number>> }> {
  const open = await db.deadLetter.findMany({ where: { status: "open" }, orderBy: [{ firstFailedAt: "asc" }, { id: "asc" }], select: { id: true } });
  const results: RetryResult[] = [];
  for (const { id } of open) results.push(await retryDeadLetter(db, id, actor, now));
  const counts: Partial<Record<RetryOutcome, number>> = {};
  for (const result of results) counts[result.outcome] = (counts[result.outcome] ?? 0) + 1;
  return { results, counts };
}

/** A dead letter as the CLI and the dashboard list it (no payload). Times are ISO 8601 UTC. */
export interface DeadLetterView {
  id: string;
  provider: string;
  endpoint: string;
  eventId: string;
  eventType: string;
  orderId: string | null;
  category: string;
  reason: string;
  retryable: boolean;
  attempts: number;
  firstFailedAt: string;
  lastFailedAt: string;
  nextAction: string;
  owner: string | null;
  status: string;
  resolution: string | null;
}

/** Lists dead letters, newest failure first: `status` open (default), resolved or all; at most `limit` (1..500). */
export async function listDeadLetters(db: Db, { status = "open", limit = 100 }: { status?: "open" | "resolved" | "all"; limit?: number } = {}): Promise<DeadLetterView[]> {
  const rows = await db.deadLetter.findMany({
    where: status === "all" ? {} : { status },
    orderBy: [{ lastFailedAt: "desc" }, { id: "asc" }],
    take: Math.min(Math.max(limit, 1), 500),
  });
  return rows.map((row) => ({
    id: row.id,
    provider: row.provider,
    endpoint: row.endpoint,
    eventId: row.eventId,
    eventType: row.eventType,
    orderId: row.orderId,
    category: row.category,
    reason: row.reason,
    retryable: row.retryable,
    attempts: row.attempts,
    firstFailedAt: row.firstFailedAt.toISOString(),
    lastFailedAt: row.lastFailedAt.toISOString(),
    nextAction: row.nextAction,
    owner: row.owner,
    status: row.status,
    resolution: row.resolution,
  }));
}
