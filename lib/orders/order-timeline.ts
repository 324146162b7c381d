import type { Db } from "@/lib/db/client";
import { expectedCredited } from "@/lib/orders/list-orders";

/** Most timeline rows shown for one order (a hostile provider could send thousands of retries). */
export const TIMELINE_LIMIT = 500;

/**
 * Everything behind one order, for "what happened to order 1045?": the order; every decision taken
 * for it, oldest first (time, event, provider, outcome, HTTP status, reason, never a secret or body);
 * its stored events, ledger entries, delivery, extra charges, dead letters and outbox rows.
 * Returns null for an unknown order (or another organization's). All reads use the (organizationId, orderId) indexes.
 */
export async function getOrderTimeline(db: Db, organizationId: string, orderId: string) {
  const order = await db.order.findUnique({ where: { organizationId_id: { organizationId, id: orderId } } });
  if (!order) return null;
  const [decisions, decisionCount, events, ledger, delivery, extraCharges, deadLetters, outbox] = await Promise.all([
    db.decision.findMany({
      where: { organizationId, orderId },
      orderBy: [{ at: "asc" }, { id: "asc" }],
      take: TIMELINE_LIMIT,
      select: { id: true, at: true, provider: true, endpoint: true, eventId: true, eventType: true, verified: true, outcome: true, httpStatus: true, reason: true, reasonCode: true, reasonParams: true, source: true },
    }),
    db.decision.count({ where: { organizationId, orderId } }),
    db.webhookEvent.findMany({
      where: { organizationId, orderId },
      orderBy: { receivedAt: "asc" },
      take: TIMELINE_LIMIT,
      select: { id: true, provider: true, endpoint: true, eventId: true, type: true, status: true, attempts: true, receivedAt: true, processedAt: true, secretLabel: true },
    }),
    db.ledgerEntry.findMany({ where: { organizationId, orderId }, orderBy: { createdAt: "asc" } }),
    db.delivery.findUnique({ where: { organizationId_orderId: { organizationId, orderId } } }),
    db.extraCharge.findMany({ where: { organizationId, orderId }, orderBy: { createdAt: "asc" } }),
    db.deadLetter.findMany({
      where: { organizationId, orderId },
      orderBy: { firstFailedAt: "asc" },
      select: { id: true, provider: true, endpoint: true, eventId: true, eventType: true, category: true, reason: true, reasonCode: true, reasonParams: true, attempts: true, status: true, firstFailedAt: true, lastFailedAt: true, resolution: true, resolutionCode: true, resolutionParams: true },
    }),
    db.outboxMessage.findMany({
      where: { organizationId, orderId },
      orderBy: { createdAt: "asc" },
      select: { id: true, target: true, status: true, attempts: true, lastStatusCode: true, lastError: true, createdAt: true, updatedAt: true },
    }),
  ]);
  const credited = ledger.reduce((sum, entry) => sum + entry.amount, 0);
  return {
    order: { ...order, credited, difference: credited - expectedCredited(order) },
    decisions,
    decisionCount,
    events,
    ledger,
    delivery,
    extraCharges,
    deadLetters,
    outbox,
  };
}

export type OrderTimeline = NonNullable<Awaited<ReturnType<typeof getOrderTimeline>>>;
