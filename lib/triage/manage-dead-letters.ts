import { recordAudit } from "@/lib/audit/record-audit";
import { assertCan, can, type Actor } from "@/lib/auth/roles";
import type { Db } from "@/lib/db/client";
import { retryDeadLetter, type RetryOutcome } from "@/lib/triage/retry-dead-letter";
import { assignDeadLetter, nameDeadLetterResolver, resolveDeadLetter } from "@/lib/dead-letters/dead-letters";
import { isReviewFirst } from "@/lib/dead-letters/review-first";
import { because, type ReasonRef } from "@/lib/reasons/reason-codes";
import { membershipRole } from "@/lib/organizations/memberships";

/** Most dead letters one bulk retry handles (each is its own transaction through the core). */
export const MAX_BULK_RETRY = 100;

/**
 * What a dashboard retry did: a {@link RetryOutcome}, or `review_first` when the dead letter's category
 * fails again on a plain retry ({@link isReviewFirst}) and the person did not confirm: nothing ran, the
 * attempt count is unchanged.
 */
export type DashboardRetryOutcome = RetryOutcome | "review_first";

/** Result of retrying one dead letter from the dashboard, named by its event and order as the table shows them. */
export interface DeadLetterRetryResult {
  id: string;
  /** The provider's event id (null when no dead letter has this id). */
  eventId: string | null;
  /** The merchant's order id the event names (null when it names none or is not found). */
  orderId: string | null;
  category: string | null;
  outcome: DashboardRetryOutcome;
  /** The English sentence (audit, logs). */
  reason: string;
  /** The reason's code and parameters, rendered in the reader's locale. */
  reasonRef?: ReasonRef;
  /** The dead letter's attempts after a retry that failed again. */
  attempts?: number;
}

/** Options of a dashboard retry. */
export interface RetryOptions {
  /** The person confirmed a retry of a review-first dead letter knowing it will likely fail again. */
  confirmReviewFirst?: boolean;
}

/**
 * Retries one dead letter for `actor` (permission `dead_letters.manage`) through the same core as a
 * delivery, so it cannot apply twice, and writes an audit row with what happened. An event that applies
 * resolves its dead letter in the same transaction; one that fails again stays open with its new
 * attempt count. A review-first dead letter (amount or currency mismatch, ...) is retried only with
 * `confirmReviewFirst`; without it the answer is `review_first` and nothing changes (no attempt, no
 * audit row). Returns the result named by event and order. Throws ForbiddenError for a role without
 * the permission.
 */
export async function retryDeadLetterAs(db: Db, actor: Actor, id: string, options: RetryOptions = {}): Promise<DeadLetterRetryResult> {
  assertCan(actor, "dead_letters.manage");
  const letter = await db.deadLetter.findFirst({ where: { id, organizationId: actor.organizationId }, select: { eventId: true, orderId: true, category: true, status: true } });
  const named = { id, eventId: letter?.eventId ?? null, orderId: letter?.orderId ?? null, category: letter?.category ?? null };
  if (letter && letter.status === "open" && isReviewFirst(letter.category) && !options.confirmReviewFirst) {
    return { ...named, outcome: "review_first", ...because("review_first", { category: letter.category }) };
  }
  const result = await retryDeadLetter(db, actor.organizationId, id, actor.email);
  const attempts = result.outcome === "dead_lettered" ? (await db.deadLetter.findFirst({ where: { id, organizationId: actor.organizationId }, select: { attempts: true } }))?.attempts : undefined;
  if (result.outcome === "applied" || result.outcome === "ignored") {
    // The core resolves it as "system" inside the apply transaction; name the person who asked for it.
    await nameDeadLetterResolver(db, actor.organizationId, id, actor.email);
  }
  if (result.outcome !== "not_found") {
    await recordAudit(db, actor, { action: "dead_letter.retry", targetType: "dead_letter", targetId: id, note: because("audit_retry", { outcome: result.outcome, cause: result.reasonRef ?? result.reason }) });
  }
  return { ...named, outcome: result.outcome, reason: result.reason, ...(result.reasonRef ? { reasonRef: result.reasonRef } : {}), attempts };
}

/**
 * Retries several dead letters one after the other (at most {@link MAX_BULK_RETRY}), in the order
 * given; one result each, named by event and order. Review-first ones follow `options` as in
 * {@link retryDeadLetterAs} (a bulk retry never confirms them: the form has no such field).
 */
export async function retryDeadLettersAs(db: Db, actor: Actor, ids: string[], options: RetryOptions = {}): Promise<DeadLetterRetryResult[]> {
  assertCan(actor, "dead_letters.manage");
  const results: DeadLetterRetryResult[] = [];
  for (const id of [...new Set(ids)].slice(0, MAX_BULK_RETRY)) results.push(await retryDeadLetterAs(db, actor, id, options));
  return results;
}

/**
 * Retries every open dead letter, oldest first failure first, as {@link retryDeadLetterAs} does one by
 * one (same review-first rule, one audit row each). For `npm run dead-letters -- retry --all`, whose
 * operator acts as an admin (it holds the database). Throws ForbiddenError for a role without
 * `dead_letters.manage`.
 */
export async function retryAllDeadLettersAs(db: Db, actor: Actor, options: RetryOptions = {}): Promise<DeadLetterRetryResult[]> {
  assertCan(actor, "dead_letters.manage");
  const open = await db.deadLetter.findMany({ where: { organizationId: actor.organizationId, status: "open" }, orderBy: [{ firstFailedAt: "asc" }, { id: "asc" }], select: { id: true } });
  const results: DeadLetterRetryResult[] = [];
  for (const { id } of open) results.push(await retryDeadLetterAs(db, actor, id, options));
  return results;
}

/** What an assignment did: done, the dead letter is not open, or the colleague cannot take it (no such user, or one without `dead_letters.manage`). */
export type AssignOutcome = "assigned" | "not_open" | "not_a_colleague";

/**
 * Sets the owner of an open dead letter: `actor` by default, a colleague (`to`, an e-mail of a user who
 * may manage dead letters and is not deactivated), or nobody (`to: null`, undoing an assignment). The
 * audit row names the new owner and the one before. Throws ForbiddenError for a role without
 * `dead_letters.manage`.
 */
export async function assignDeadLetterAs(db: Db, actor: Actor, id: string, to: string | null = actor.email): Promise<AssignOutcome> {
  assertCan(actor, "dead_letters.manage");
  if (to !== null && to !== actor.email) {
    // A colleague is a member of the same organization whose role there may manage dead letters.
    const colleague = await db.user.findUnique({ where: { email: to }, select: { id: true, banned: true } });
    const role = colleague ? await membershipRole(db, colleague.id, actor.organizationId) : null;
    if (!colleague || colleague.banned || role === null || !can(role, "dead_letters.manage")) return "not_a_colleague";
  }
  // Read before the transaction, which then writes first (a transaction that reads before it writes
  // meets SQLITE_BUSY under another process's write); the owner before is only for the audit note.
  const letter = await db.deadLetter.findFirst({ where: { id, organizationId: actor.organizationId }, select: { status: true, owner: true } });
  if (!letter || letter.status !== "open") return "not_open";
  return db.$transaction(async (tx) => {
    if (!(await assignDeadLetter(tx, actor.organizationId, id, to))) return "not_open";
    const note =
      to === null
        ? because("audit_owner_cleared", { from: letter.owner ?? "-" })
        : letter.owner && letter.owner !== to
          ? because("audit_owner_handed", { from: letter.owner, email: to })
          : because("audit_owner", { email: to });
    await recordAudit(tx, actor, { action: to === null ? "dead_letter.unassign" : "dead_letter.assign", targetType: "dead_letter", targetId: id, note });
    return "assigned";
  });
}

/** The people an organization's open dead letter can be handed to: its members who may manage dead letters there and are not deactivated, by e-mail. */
export async function deadLetterAssignees(db: Db, organizationId: string): Promise<string[]> {
  const members = await db.membership.findMany({ where: { organizationId, user: { OR: [{ banned: null }, { banned: false }] } }, select: { role: true, user: { select: { email: true } } } });
  return members
    .filter((member) => can(member.role, "dead_letters.manage"))
    .map((member) => member.user.email)
    .sort();
}

/**
 * Resolves an open dead letter by hand with `note` (why: refunded, duplicate order, provider confirmed
 * ...), recording who and when on the row and an audit row in the same transaction. Nothing is applied.
 * Returns false when it is not open.
 */
export async function resolveDeadLetterAs(db: Db, actor: Actor, id: string, note: string, now = new Date()): Promise<boolean> {
  assertCan(actor, "dead_letters.manage");
  return db.$transaction(async (tx) => {
    if (!(await resolveDeadLetter(tx, actor.organizationId, id, { note }, actor.email, now))) return false;
    await recordAudit(tx, actor, { action: "dead_letter.resolve", targetType: "dead_letter", targetId: id, note }, now);
    return true;
  });
}
