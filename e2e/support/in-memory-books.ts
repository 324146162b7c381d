// The core's decisions carried out on books held in memory, the way lib/apply/apply-effect.ts carries
// them out in a database transaction: for property tests that deliver every permutation of a lifecycle's
// events without a database. Deliveries are deduplicated by event id (the inbox's UNIQUE event key);
// an event whose failure is retryable is parked and retried after every event that changed the books
// (the worker's wake-up of parked events), one that is not retryable is a dead letter.
import { decideDispute, decidePayment, decideRefund, type EffectDecision, type OrderFacts } from "@/lib/core/decide-effect";
import type { BookedEntry } from "@/lib/core/decide-refund";
import { advanceDisputeStatus } from "@/lib/core/decide-dispute";
import { currentEffect, type DisputeStatus, type NormalizedEvent, type OrderRef, type ProviderName } from "@/lib/core/effect";
import { creditKey, type LedgerKind, type PaymentScope } from "@/lib/core/business-keys";

interface Entry extends BookedEntry {
  orderId: string;
  paymentKey: string;
}

/** What the books hold after a delivery sequence, in a form two sequences can be compared by. */
export interface BooksSnapshot {
  entries: [string, LedgerKind, number][];
  orders: Record<string, { status: string; refundedAmount: number; disputedAmount: number; net: number }>;
  parked: string[];
  deadLetters: string[];
}

export class InMemoryBooks {
  private readonly orders = new Map<string, OrderFacts & { checkoutSessionId?: string }>();
  private readonly entries = new Map<string, Entry>();
  private readonly credits = new Map<string, { orderId: string; amount: number; currency: string; eventId: string }>();
  private readonly disputes = new Map<string, { orderId: string; status: DisputeStatus }>();
  private readonly extraCharges = new Set<string>();
  private readonly snapshots = new Map<string, { total: number; at: number | null }[]>();
  private readonly refundObjects = new Map<string, { refundId: string; amount: number; createdAt: number | null }[]>();
  private readonly seen = new Set<string>();
  private parked: NormalizedEvent[] = [];
  private readonly deadLetters: string[] = [];

  constructor(private readonly scope: PaymentScope & { provider: ProviderName }) {}

  /** Adds an order (amount in minor units of `currency`). */
  addOrder(order: { id: string; amount: number; currency: string; checkoutSessionId?: string; livemode?: boolean }): this {
    this.orders.set(order.id, { id: order.id, status: "created", amount: order.amount, currency: order.currency, refundedAmount: 0, disputedAmount: 0, livemode: order.livemode ?? true, checkoutSessionId: order.checkoutSessionId });
    return this;
  }

  /** Delivers events in the given order (a repeated id is a duplicate delivery). */
  deliver(events: readonly NormalizedEvent[]): this {
    for (const event of events) {
      if (this.seen.has(event.eventId)) continue;
      this.seen.add(event.eventId);
      if (this.attempt(event) === "changed") this.wake();
    }
    return this;
  }

  snapshot(): BooksSnapshot {
    const orders: BooksSnapshot["orders"] = {};
    for (const order of this.orders.values()) {
      const net = [...this.entries.values()].filter((entry) => entry.orderId === order.id).reduce((sum, entry) => sum + entry.amount, 0);
      orders[order.id] = { status: order.status, refundedAmount: order.refundedAmount, disputedAmount: order.disputedAmount, net };
    }
    return {
      entries: [...this.entries.values()].map((entry): [string, LedgerKind, number] => [entry.businessKey, entry.kind, entry.amount]).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)),
      orders,
      parked: this.parked.map((event) => event.eventId).sort(),
      deadLetters: [...this.deadLetters].sort(),
    };
  }

  private wake(): void {
    for (let progress = true; progress; ) {
      progress = false;
      const waiting = this.parked;
      this.parked = [];
      for (const event of waiting) if (this.attempt(event) === "changed") progress = true;
    }
  }

  private attempt(event: NormalizedEvent): "changed" | "unchanged" {
    const decision = this.decide(event);
    if (decision === null) return "unchanged";
    if (decision.kind === "fail") {
      if (decision.failure.retryable) this.parked.push(event);
      else this.deadLetters.push(event.eventId);
      return "unchanged";
    }
    return this.carryOut(event, decision) ? "changed" : "unchanged";
  }

  private findOrder(ref: OrderRef): OrderFacts | null {
    if (ref.orderId && this.orders.has(ref.orderId)) return this.orders.get(ref.orderId)!;
    if (ref.checkoutSessionId) return [...this.orders.values()].find((order) => order.checkoutSessionId === ref.checkoutSessionId) ?? null;
    return null;
  }

  private paymentFacts(paymentKey: string, ref: OrderRef) {
    const credit = this.credits.get(paymentKey) ?? null;
    const order = credit ? this.orders.get(credit.orderId)! : this.findOrder(ref);
    if (!credit || !order) return { order, credit, entries: [], disputes: [], snapshots: [], refundObjects: [] };
    const entries = [...this.entries.values()].filter((entry) => entry.paymentKey === paymentKey && entry.kind !== "credit");
    const disputes = [...this.disputes].filter(([, dispute]) => dispute.orderId === order.id).map(([disputeId, dispute]) => ({ disputeId, status: dispute.status }));
    return { order: { ...order }, credit, entries, disputes, snapshots: this.snapshots.get(paymentKey) ?? [], refundObjects: this.refundObjects.get(paymentKey) ?? [] };
  }

  private decide(event: NormalizedEvent): EffectDecision | null {
    const effect = currentEffect(event.effect);
    const source = { ...this.scope, livemode: this.scope.livemode };
    switch (effect.kind) {
      case "payment": {
        const order = this.findOrder(effect.orderRef);
        const credit = this.credits.get(effect.paymentKey) ?? null;
        return decidePayment(source, effect, { order: order && { ...order }, creditedBy: credit?.eventId ?? null, extraChargeRecorded: this.extraCharges.has(effect.paymentKey) });
      }
      case "refund": {
        const facts = this.paymentFacts(effect.paymentKey, effect.orderRef);
        return decideRefund(source, effect, { ...facts, extraChargeRecorded: this.extraCharges.has(effect.paymentKey) });
      }
      case "dispute":
        return decideDispute(source, effect, this.paymentFacts(effect.paymentKey, effect.orderRef));
      default:
        return null;
    }
  }

  private carryOut(event: NormalizedEvent, decision: Exclude<EffectDecision, { kind: "fail" }>): boolean {
    const effect = currentEffect(event.effect);
    const paymentKey = "paymentKey" in effect ? effect.paymentKey : "";
    if ((decision.kind === "duplicate" || decision.kind === "book") && decision.snapshot) this.snapshots.set(paymentKey, [...(this.snapshots.get(paymentKey) ?? []), decision.snapshot]);
    if ((decision.kind === "duplicate" || decision.kind === "book") && decision.refundObjects) this.refundObjects.set(paymentKey, [...(this.refundObjects.get(paymentKey) ?? []), ...decision.refundObjects]);
    switch (decision.kind) {
      case "ignore":
      case "duplicate":
      case "note_extra_refund":
        return false;
      case "extra_charge":
        this.extraCharges.add(paymentKey);
        return true;
      case "credit": {
        const businessKey = creditKey(this.scope, paymentKey);
        if (this.entries.has(businessKey)) throw new Error(`${businessKey} booked twice`);
        this.entries.set(businessKey, { businessKey, kind: "credit", amount: decision.amount, occurredAt: null, orderId: decision.orderId, paymentKey });
        this.credits.set(paymentKey, { orderId: decision.orderId, amount: decision.amount, currency: decision.currency, eventId: event.eventId });
        this.orders.get(decision.orderId)!.status = decision.to;
        return true;
      }
      case "book": {
        for (const entry of decision.entries) {
          if (this.entries.has(entry.businessKey)) throw new Error(`${entry.businessKey} booked twice`);
          this.entries.set(entry.businessKey, { ...entry, orderId: decision.orderId, paymentKey });
        }
        if (decision.dispute) {
          const known = this.disputes.get(decision.dispute.disputeId)?.status ?? null;
          this.disputes.set(decision.dispute.disputeId, { orderId: decision.orderId, status: advanceDisputeStatus(known, decision.dispute.status)! });
        }
        const order = this.orders.get(decision.orderId)!;
        Object.assign(order, { status: decision.to, refundedAmount: decision.changes.refundedAmount, disputedAmount: decision.changes.disputedAmount });
        return true;
      }
    }
  }
}

/** Every ordering of `items` (n! of them: keep n small). */
export function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [items.slice()];
  return items.flatMap((item, index) => permutations([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [item, ...rest]));
}
