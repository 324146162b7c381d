import { notifyWork } from "@/lib/jobs/signals";
import { DEMO_SECRET_LABEL_SUFFIX, runMode, settings } from "@/lib/config/settings";
import type { SqlSession } from "@/lib/db/driver";
import { resolveDeadLettersOfEvent } from "@/lib/dead-letters/dead-letters";
import { decisionRow, insertDecisions, linkDecisionsToOrder, logDecision, type DecisionInput, type DecisionRow } from "@/lib/decisions/record-decision";
import { ApplyFailure } from "@/lib/core/failures";
import { applyEffect, type EffectOutcome } from "@/lib/apply/apply-effect";
import type { EventKey } from "@/lib/core/event-key";
import { markEventApplied, wakeParkedEvents } from "@/lib/events/webhook-events";
import { queueFulfilment } from "@/lib/outbox/fulfilment-message";
import { DEFAULT_ORGANIZATION } from "@/lib/organizations/organizations";
import { crashAt } from "@/lib/test-hooks/crash-point";
import { because, followedBy, reasonRef } from "@/lib/reasons/reason-codes";
import type { EndpointScope, NormalizedEvent, ProcessResult } from "@/lib/core/effect";

/** A stored event (its WebhookEvent row already written or claimed in this transaction) ready to apply. */
export interface StoredEvent {
  /** WebhookEvent.id */
  rowId: string;
  key: EventKey;
  endpoint: EndpointScope;
  event: NormalizedEvent;
  bodyHash: string;
  secretLabel?: string | null;
  source: NonNullable<DecisionInput["source"]>;
  /** HTTP status to record in the decision (200 when a provider waits for the answer; null in the worker). */
  httpStatus: number | null;
}

/** What {@link applyStoredEvent} did besides its answer: for post-commit signals. */
export interface AppliedEvent extends ProcessResult {
  /** Parked events of the same order made due by this transition. */
  wokenEvents: number;
  /** Outbox message queued by this transition, if any. */
  outboxMessageId?: string;
}

/**
 * The apply step shared by inline mode and the inbox worker, run inside the caller's transaction after
 * the caller wrote the event row first (inline: the UNIQUE insert; worker: its lease guard): applies
 * the effect (ledger entry under its business key, order transition), marks the event processed or
 * ignored, links the event's earlier decision rows that named no order to the order it found (worker
 * only), resolves the event's open dead letters, wakes parked events of the order, queues the
 * fulfilment message when the order became paid and FULFILMENT_WEBHOOK_URL is set, and writes the
 * decision row, all as driver statements in the caller's driver transaction (lib/db/driver.ts).
 * Everything commits together or not at all (seed article, controls 2-5).
 * `decisions`, when given, collects the decision row instead of writing it (a batch writes its rows in
 * one insert). Throws ApplyFailure / ConcurrentChange from {@link applyEffect} and the database's errors.
 */
export async function applyStoredEvent(tx: SqlSession, stored: StoredEvent, now = new Date(), decisions?: DecisionRow[]): Promise<AppliedEvent> {
  const { event, endpoint, key } = stored;
  // Anyone can sign with a public demo secret: what one stored while a demo ran never moves money in production.
  if (stored.secretLabel?.endsWith(DEMO_SECRET_LABEL_SUFFIX) && runMode() !== "demo") {
    throw new ApplyFailure("demo_secret", because("demo_secret", { eventId: event.eventId, secretLabel: stored.secretLabel }), "orderRef" in event.effect ? event.effect.orderRef.orderId : undefined);
  }
  const effect: EffectOutcome =
    event.livemode !== endpoint.livemode
      ? { outcome: "ignored", ...because("live_test_endpoint", { eventMode: event.livemode ? "live" : "test", endpointMode: endpoint.livemode ? "live" : "test" }) }
      : await applyEffect(tx, { organizationId: endpoint.organizationId, provider: endpoint.provider, account: key.account, livemode: endpoint.livemode, eventId: event.eventId, eventType: event.type }, event.effect, now);
  const orderId = effect.orderId ?? ("orderRef" in event.effect ? event.effect.orderRef.orderId : undefined);
  await markEventApplied(tx, stored.rowId, effect.outcome === "ignored" ? "ignored" : "processed", orderId ?? null, now);
  // The worker found an order the payload did not name (the receiver's rows carry the payload's): its
  // receipt joins the order's timeline. Skipped when the payload named it, so the common path pays nothing.
  const namedOrderId = "orderRef" in event.effect ? event.effect.orderRef.orderId : undefined;
  if (orderId && orderId !== namedOrderId && stored.httpStatus === null) await linkDecisionsToOrder(tx, { organizationId: endpoint.organizationId, endpoint: endpoint.name, eventId: event.eventId }, orderId);
  const resolved = await resolveDeadLettersOfEvent(tx, key, stored.bodyHash, because("applied_later", { outcome: effect.outcome }), now);

  let wokenEvents = 0;
  let outboxMessageId: string | undefined;
  // Parked events of the order wait on what this one booked: a transition, or money booked without one
  // (a dispute's withdrawal that its reinstatement waits for).
  if ((effect.transition || (effect.outcome === "applied" && !effect.credit)) && effect.orderId) {
    wokenEvents = await wakeParkedEvents(tx, { orderId: effect.orderId, paymentKey: "paymentKey" in event.effect ? event.effect.paymentKey : undefined, scope: { provider: endpoint.provider, account: key.account, livemode: endpoint.livemode } }, now);
  }
  if (effect.transition && effect.orderId) {
    // FULFILMENT_WEBHOOK_URL is the deployment's merchant's (the default organization's) URL: another
    // organization's paid orders are never posted to it.
    const target = endpoint.organizationId === DEFAULT_ORGANIZATION.id ? settings().FULFILMENT_WEBHOOK_URL : undefined;
    if (effect.transition.to === "paid" && effect.credit && target) {
      outboxMessageId = await queueFulfilment(tx, target, { organizationId: endpoint.organizationId, orderId: effect.orderId, ...effect.credit, provider: endpoint.provider, livemode: endpoint.livemode, eventId: event.eventId }, now);
    }
  }

  const said = effect.reasonRef ? { reason: effect.reason, reasonRef: effect.reasonRef } : undefined;
  const { reason, reasonRef: ref } =
    resolved === 0 ? { reason: effect.reason, reasonRef: effect.reasonRef } : said ? followedBy(said, reasonRef("dead_letter_resolved", {})) : { reason: `${effect.reason}; dead letter resolved`, reasonRef: undefined };
  const decision = decisionRow({
    organizationId: endpoint.organizationId,
    provider: endpoint.provider,
    endpoint: endpoint.name,
    eventId: event.eventId,
    verified: true,
    eventType: event.type,
    orderId,
    outcome: effect.outcome,
    httpStatus: stored.httpStatus,
    reason,
    reasonRef: ref,
    secretLabel: stored.secretLabel ?? null,
    source: stored.source,
  });
  if (decisions) {
    // A batch writes its decision rows together, and logs them once committed.
    decisions.push(decision);
  } else {
    await insertDecisions(tx, [decision], now);
    logDecision(decision);
  }
  crashAt("before-commit");
  return { httpStatus: 200, outcome: effect.outcome, reason, reasonRef: ref, orderId: effect.orderId, wokenEvents, outboxMessageId };
}

/** Wakes this process's workers for what an applied event left behind (parked events now due, a message to send). */
export function signalAfterApply(applied: Pick<AppliedEvent, "wokenEvents" | "outboxMessageId">): void {
  if (applied.wokenEvents > 0) notifyWork("inbox");
  if (applied.outboxMessageId) notifyWork("outbox");
}
