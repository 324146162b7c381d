import type { Db } from "@/lib/db/client";
import { latestBooksCheck } from "@/lib/monitoring/books-checks";
import { recentGapChecks } from "@/lib/monitoring/gap-checks";
import { DEFAULT_ORGANIZATION } from "@/lib/organizations/organizations";

/** Inbox statuses that still wait to be applied: stored, held by a worker, or parked for a retry. */
export const PENDING_INBOX_STATUSES = ["received", "processing", "failed"] as const;
/** Decision outcomes that count as a failed attempt to apply an event (both modes). */
export const FAILED_ATTEMPT_OUTCOMES = ["retry_scheduled", "dead_lettered"] as const;
/** Outbox statuses that are not a final answer from the target. */
const UNFINISHED_OUTBOX_STATUSES = ["pending", "sending", "uncertain", "failed"];

/** The counts an operator alerts on (docs/processing-and-inbox.md, "Monitoring"). Ages in seconds, times ISO 8601 UTC. */
export interface OperationalMetrics {
  generatedAt: string;
  inbox: {
    /** received + processing + parked: events stored and not yet applied or dead-lettered. */
    pending: number;
    received: number;
    processing: number;
    /** Failed at least once, waiting for their next attempt. */
    parked: number;
    /** Age of the oldest pending event (seconds since it was received); 0 when none is pending. */
    oldestPendingAgeSeconds: number;
  };
  /** Attempts to apply an event that failed in the last hour (decisions `retry_scheduled` or `dead_lettered`, both modes). */
  failedAttemptsLastHour: number;
  /** 503 answers in the last hour (the database could not store a delivery). */
  unavailableAnswersLastHour: number;
  /**
   * Events of a Stripe account that no endpoint is bound to, answered 200 and recorded `ignored`
   * (`account_not_bound`) in the last hour: mostly a Connect endpoint's connected accounts that have no
   * binding yet (docs/endpoints.md#stripe-connect). Alert when it is above 0 and no account should be unbound.
   */
  unboundAccountEventsLastHour: number;
  deadLetters: { open: number };
  outbox: { pending: number; sending: number; uncertain: number; failed: number; sent: number };
  /** Requests refused before a valid signature in the last hour (RejectionCount minutes within it), by reason code. */
  rejectionsLastHour: { total: number; byReason: Record<string, number> };
  /** The same refusals over every retained minute (REJECTION_COUNT_RETENTION_DAYS), per endpoint ("(unknown)" for unknown names) and reason. */
  rejectionTotals: { endpoint: string; reason: string; count: number }[];
  /** Credited payments whose delivery has no final result: no Delivery row, or a fulfilment message not yet answered. */
  confirmedPaymentsWithoutDeliveryResult: number;
  /**
   * The last finished check of the books (every order rebuilt from its stored events and compared; the
   * background worker runs it daily): when it started, and how many orders agree, differ, could not be
   * rebuilt or have events still waiting. Null before the first. Alert on `differing > 0`.
   */
  books: { checkedAt: string; orders: number; agreeing: number; differing: number; unverifiable: number; waiting: number } | null;
  /**
   * The last gap check of each endpoint checked in the last 7 days (missed events listed over the
   * provider's API and stored): when it started, its status, how many events it listed and how many the
   * inbox lacked (`missing`, stored by it), and why it failed. Alert on `missing > 0` or `failed`.
   */
  gapChecks: { endpoint: string; checkedAt: string; status: "done" | "failed"; listed: number; missing: number; error: string | null }[];
}

/** Counts the operational metrics at `now`. Read-only; every figure is one indexed count. Throws the database's errors. */
export async function collectOperationalMetrics(db: Db, now = new Date()): Promise<OperationalMetrics> {
  const hourAgo = new Date(now.getTime() - 3_600_000);
  const [inboxGroups, oldest, failedAttempts, unavailable, unboundAccountEvents, openDeadLetters, outboxGroups, creditedWithoutDelivery, unfinishedOutboxOrders, rejectionsLastHour, rejectionTotals, books, gapChecks] = await Promise.all([
    db.webhookEvent.groupBy({ by: ["status"], where: { status: { in: [...PENDING_INBOX_STATUSES] } }, _count: { _all: true } }),
    db.webhookEvent.findFirst({ where: { status: { in: [...PENDING_INBOX_STATUSES] } }, orderBy: { receivedAt: "asc" }, select: { receivedAt: true } }),
    db.decision.count({ where: { outcome: { in: [...FAILED_ATTEMPT_OUTCOMES] }, at: { gte: hourAgo } } }),
    db.decision.count({ where: { outcome: "rejected", httpStatus: 503, at: { gte: hourAgo } } }),
    db.decision.count({ where: { outcome: "ignored", reasonCode: "account_not_bound", at: { gte: hourAgo } } }),
    db.deadLetter.count({ where: { status: "open" } }),
    db.outboxMessage.groupBy({ by: ["status"], _count: { _all: true } }),
    db.order.count({ where: { ledgerEntries: { some: { kind: "credit" } }, delivery: { is: null } } }),
    db.outboxMessage.groupBy({ by: ["orderId"], where: { status: { in: UNFINISHED_OUTBOX_STATUSES } } }),
    // The minute that contains hourAgo counts whole: a minute's count has no finer time.
    db.rejectionCount.groupBy({ by: ["reason"], where: { minute: { gt: new Date(hourAgo.getTime() - 60_000), lte: now } }, _sum: { count: true }, orderBy: { reason: "asc" } }),
    db.rejectionCount.groupBy({ by: ["endpoint", "reason"], _sum: { count: true }, orderBy: [{ endpoint: "asc" }, { reason: "asc" }] }),
    // The operator's figures cover the deployment; the books' check is the default organization's (each
    // organization's own is on its dashboard's health strip).
    latestBooksCheck(db, DEFAULT_ORGANIZATION.id),
    recentGapChecks(db, now),
  ]);
  const inboxCount = (status: string) => inboxGroups.find((group) => group.status === status)?._count._all ?? 0;
  const outboxCount = (status: string) => outboxGroups.find((group) => group.status === status)?._count._all ?? 0;
  const received = inboxCount("received");
  const processing = inboxCount("processing");
  const parked = inboxCount("failed");
  return {
    generatedAt: now.toISOString(),
    inbox: {
      pending: received + processing + parked,
      received,
      processing,
      parked,
      oldestPendingAgeSeconds: oldest ? Math.max(0, Math.floor((now.getTime() - oldest.receivedAt.getTime()) / 1000)) : 0,
    },
    failedAttemptsLastHour: failedAttempts,
    unavailableAnswersLastHour: unavailable,
    unboundAccountEventsLastHour: unboundAccountEvents,
    deadLetters: { open: openDeadLetters },
    outbox: { pending: outboxCount("pending"), sending: outboxCount("sending"), uncertain: outboxCount("uncertain"), failed: outboxCount("failed"), sent: outboxCount("sent") },
    confirmedPaymentsWithoutDeliveryResult: creditedWithoutDelivery + unfinishedOutboxOrders.length,
    rejectionsLastHour: {
      total: rejectionsLastHour.reduce((sum, group) => sum + (group._sum.count ?? 0), 0),
      byReason: Object.fromEntries(rejectionsLastHour.map((group) => [group.reason, group._sum.count ?? 0])),
    },
    rejectionTotals: rejectionTotals.map((group) => ({ endpoint: group.endpoint, reason: group.reason, count: group._sum.count ?? 0 })),
    books: books
      ? { checkedAt: books.startedAt, orders: books.ordersChecked, agreeing: books.ordersAgreeing, differing: books.ordersDiffering, unverifiable: books.ordersUnverifiable, waiting: books.ordersWaiting }
      : null,
    gapChecks: gapChecks.map((check) => ({ endpoint: check.endpoint, checkedAt: check.startedAt, status: check.status === "failed" ? "failed" : "done", listed: check.listed, missing: check.stored, error: check.error })),
  };
}
