// From a run of a replay's events (lib/replay/replay-run.ts) to what a person reads: each event's
// result and each order's before, after, booked entries and money per currency.
import { booksFingerprint, type OrderBooks } from "@/lib/ledger/order-books";
import type { ReplayCandidate } from "@/lib/replay/replay-candidates";
import type { ReplayEventResult } from "@/lib/replay/replay-run";
import type { ReplayEventView, ReplayLedgerLine, ReplayOrderState, ReplayOrderView } from "@/lib/replay/replay-store";

function stateOf(books: OrderBooks | null | undefined): ReplayOrderState | null {
  return books ? { status: books.status, credited: books.credited, refunded: books.refunded } : null;
}

/** One event's view: the candidate as it was found, with what replaying it did. */
export function eventView(position: number, candidate: ReplayCandidate, result: ReplayEventResult): ReplayEventView {
  return {
    position,
    provider: candidate.provider,
    endpoint: candidate.endpoint,
    eventId: candidate.eventId,
    type: candidate.type,
    status: candidate.status,
    arrivedAt: candidate.arrivedAt.toISOString(),
    createdAt: typeof candidate.event?.createdAt === "number" ? new Date(candidate.event.createdAt * 1000).toISOString() : null,
    storedEventId: candidate.storedEventId,
    deadLetterId: candidate.deadLetterId,
    outcome: result.outcome,
    reason: result.reason,
    ...(result.reasonRef ? { reasonRef: result.reasonRef } : {}),
    orderId: result.orderId,
    ...(result.category ? { category: result.category } : {}),
  };
}

/**
 * What the run did to each order that exists (before or after): its status and totals before and after,
 * the ledger entries booked (keys it did not hold before) and their sum per currency, zero sums left
 * out. Orders in the order the events first reached them.
 */
export function orderViews(before: ReadonlyMap<string, OrderBooks | null>, after: ReadonlyMap<string, OrderBooks | null>): ReplayOrderView[] {
  const views: ReplayOrderView[] = [];
  for (const [orderId, was] of before) {
    const now = after.get(orderId) ?? null;
    if (!was && !now) continue;
    const held = new Set((was?.ledger ?? []).map((entry) => entry.businessKey));
    const ledger: ReplayLedgerLine[] = (now?.ledger ?? [])
      .filter((entry) => !held.has(entry.businessKey))
      .map((entry) => ({ kind: entry.kind, amount: entry.amount, currency: entry.currency, businessKey: entry.businessKey, eventId: entry.eventId }));
    const sums = new Map<string, number>();
    for (const line of ledger) sums.set(line.currency, (sums.get(line.currency) ?? 0) + line.amount);
    views.push({ orderId, before: stateOf(was), after: stateOf(now), ledger, delta: Object.fromEntries([...sums].filter(([, sum]) => sum !== 0)) });
  }
  return views;
}

/** Each order's fingerprint before and after the run (`absent` for an order that does not exist). */
export function fingerprints(before: ReadonlyMap<string, OrderBooks | null>, after: ReadonlyMap<string, OrderBooks | null>): Record<string, { before: string; after: string }> {
  return Object.fromEntries([...before].map(([orderId, was]) => [orderId, { before: booksFingerprint(was), after: booksFingerprint(after.get(orderId) ?? null) }]));
}
