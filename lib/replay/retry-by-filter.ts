import { recordAudit } from "@/lib/audit/record-audit";
import { assertCan, type Actor } from "@/lib/auth/roles";
import type { Db } from "@/lib/db/client";
import { because } from "@/lib/reasons/reason-codes";
import { findReplayCandidates } from "@/lib/replay/replay-candidates";
import type { ReplayFilter } from "@/lib/replay/replay-filter";
import { retryDeadLetterAs, type DeadLetterRetryResult, type RetryOptions } from "@/lib/triage/manage-dead-letters";

/** Most open dead letters one retry by filter takes (each is its own transaction through the core). */
export const MAX_FILTER_RETRY = 200;

/** One open dead letter a filter names, as the count before a bulk retry lists it. */
export interface FilteredDeadLetter {
  id: string;
  eventId: string;
  endpoint: string;
  type: string;
  orderId: string | null;
}

/** The open dead letters a filter names (at most MAX_FILTER_RETRY), or too many of them. */
export type FilteredDeadLetters = { kind: "ok"; count: number; deadLetters: FilteredDeadLetter[] } | { kind: "too_many"; count: number; limit: number };

/**
 * The open dead letters of the events `filter` names (the replay's filter, lib/replay/replay-filter.ts),
 * oldest event first: what a bulk retry by that filter would retry, counted before it runs. Throws the
 * database's errors.
 */
export async function deadLettersByFilter(db: Db, organizationId: string, filter: ReplayFilter): Promise<FilteredDeadLetters> {
  const found = await findReplayCandidates(db, organizationId, filter, Number.MAX_SAFE_INTEGER);
  if (found.kind === "too_many") return { kind: "too_many", count: found.count, limit: MAX_FILTER_RETRY };
  const letters = found.candidates.filter((candidate) => candidate.deadLetterId !== null);
  if (letters.length > MAX_FILTER_RETRY) return { kind: "too_many", count: letters.length, limit: MAX_FILTER_RETRY };
  return {
    kind: "ok",
    count: letters.length,
    deadLetters: letters.map((candidate) => ({ id: candidate.deadLetterId!, eventId: candidate.eventId, endpoint: candidate.endpoint, type: candidate.type, orderId: candidate.orderId })),
  };
}

/** What a bulk retry by filter came to: the results (one per dead letter), or the count changed since it was shown, or too many. */
export type FilterRetryResult =
  | { kind: "retried"; results: DeadLetterRetryResult[] }
  | { kind: "count_changed"; count: number; expected: number }
  | { kind: "too_many"; count: number; limit: number };

/**
 * Retries the open dead letters `filter` names for `actor` (permission `dead_letters.manage`), each as a
 * dashboard retry does ({@link retryDeadLetterAs}: through the same core, review-first ones only with
 * `options.confirmReviewFirst`, one audit row each), after one audit row naming the filter and the
 * count. Runs only when the count is still `expected` (the count the person saw): otherwise nothing
 * runs and the new count is returned. Throws ForbiddenError without the permission, and the database's errors.
 */
export async function retryDeadLettersByFilter(db: Db, actor: Actor, filter: ReplayFilter, expected: number, options: RetryOptions = {}): Promise<FilterRetryResult> {
  assertCan(actor, "dead_letters.manage");
  const found = await deadLettersByFilter(db, actor.organizationId, filter);
  if (found.kind === "too_many") return found;
  if (found.count !== expected) return { kind: "count_changed", count: found.count, expected };
  await recordAudit(db, actor, { action: "dead_letter.retry_filter", targetType: "dead_letter", targetId: "filter", note: because("audit_dead_letters_retried", { count: found.count, filter: JSON.stringify(filter) }) });
  const results: DeadLetterRetryResult[] = [];
  for (const letter of found.deadLetters) results.push(await retryDeadLetterAs(db, actor, letter.id, options));
  return { kind: "retried", results };
}
