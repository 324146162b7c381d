import { recordAudit } from "@/lib/audit/record-audit";
import { assertCan, type Actor } from "@/lib/auth/roles";
import type { Db } from "@/lib/db/client";
import { resolveExtraCharge } from "@/lib/ledger/bookings";
import { pageOf, type Page } from "@/lib/lists/paging";
import { resolveUncertainOutboxMessage } from "@/lib/outbox/outbox-store";

/** Items shown per section of the review queue. */
export const REVIEW_PAGE_SIZE = 50;

/**
 * The review queue: open extra charges (a second payment for a paid order: refund it or keep it) and
 * outbox rows marked uncertain (the target may have acted without answering: check with it before
 * anything is re-sent), of one organization. Oldest first, each section one page with its total count.
 */
export async function listReviewQueue(db: Db, organizationId: string, { extraPage = 1, outboxPage = 1 } = {}) {
  const [extraCharges, extraCount, outbox, outboxCount] = await Promise.all([
    db.extraCharge.findMany({ where: { organizationId, status: "open" }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], skip: (extraPage - 1) * REVIEW_PAGE_SIZE, take: REVIEW_PAGE_SIZE }),
    db.extraCharge.count({ where: { organizationId, status: "open" } }),
    db.outboxMessage.findMany({
      where: { organizationId, status: "uncertain" },
      orderBy: [{ updatedAt: "asc" }, { id: "asc" }],
      skip: (outboxPage - 1) * REVIEW_PAGE_SIZE,
      take: REVIEW_PAGE_SIZE,
      // The body is the merchant's fulfilment payload: not needed to decide, not shown.
      omit: { body: true },
    }),
    db.outboxMessage.count({ where: { organizationId, status: "uncertain" } }),
  ]);
  return {
    extraCharges: pageOf(extraCharges, extraCount, extraPage, REVIEW_PAGE_SIZE),
    outbox: pageOf(outbox, outboxCount, outboxPage, REVIEW_PAGE_SIZE),
  } satisfies { extraCharges: Page<unknown>; outbox: Page<unknown> };
}

/** Resolves an open extra charge with `note` (e.g. "refunded in the provider's console"). False when not open. */
export async function resolveExtraChargeAs(db: Db, actor: Actor, id: string, note: string, now = new Date()): Promise<boolean> {
  assertCan(actor, "review.manage");
  return db.$transaction(async (tx) => {
    if (!(await resolveExtraCharge(tx, actor.organizationId, id, note, actor.email, now))) return false;
    await recordAudit(tx, actor, { action: "extra_charge.resolve", targetType: "extra_charge", targetId: id, note }, now);
    return true;
  });
}

/** Resolves an uncertain outbox row with `note` (what the target said); it is never re-sent. False when not uncertain. */
export async function resolveOutboxAs(db: Db, actor: Actor, id: string, note: string, now = new Date()): Promise<boolean> {
  assertCan(actor, "review.manage");
  return db.$transaction(async (tx) => {
    if (!(await resolveUncertainOutboxMessage(tx, actor.organizationId, id, note))) return false;
    await recordAudit(tx, actor, { action: "outbox.resolve", targetType: "outbox_message", targetId: id, note }, now);
    return true;
  });
}
