import type { DisputeStatus, Effect } from "@/lib/core/effect";
import type { BookedEntry, PlannedEntry } from "@/lib/core/decide-refund";
import { disputeKey, disputeKeyPrefix, type PaymentScope } from "@/lib/core/business-keys";
import { because, reasonRef, type Because, type Money, type ReasonRef } from "@/lib/reasons/reason-codes";

const money = (amount: number, currency: string): Money => ({ amount, currency });

/** How far a status has gone: a closed dispute (won, lost) never goes back to open. */
const RANK: Record<DisputeStatus, number> = { open: 1, won: 2, lost: 2 };

/**
 * The status a dispute has after an event: the most advanced one reported; the first closing status
 * stays (Stripe: won and lost are final; docs.stripe.com/api/disputes/object#dispute_object-status).
 * `known` is the stored status (null: first event of the dispute), `reported` the event's (null: none).
 */
export function advanceDisputeStatus(known: DisputeStatus | null, reported: DisputeStatus | null): DisputeStatus | null {
  if (known === null) return reported;
  if (reported === null || RANK[reported] <= RANK[known]) return known;
  return reported;
}

/** The result of weighing a dispute event's money against the books: entries to book, or why not. */
export type DisputePlan =
  | { kind: "book"; entries: PlannedEntry[]; withdrawn: number; reinstated: number; steps: ReasonRef[] }
  | { kind: "refuse"; category: "amount_mismatch" | "transition"; reason: Because };

/**
 * Plans the money a dispute event moves, from the dispute's balance transactions (Stripe: `balance_transactions`,
 * each booked once by its id at its `amount`, fees left to reconciliation): negative ones are withdrawals,
 * positive ones reinstatements. A payload without a movement of a sign falls back to the dispute's
 * `amount` for the movement its event type stands for (`fallback`), once per dispute, and only when no
 * movement of that sign is booked. Bounds, so a signing secret cannot move a payment's books past its
 * credit: the withdrawals outstanding on the order (`disputedAmount`, minor units) never exceed the
 * credit, and a dispute never reinstates more than it withdrew (Stripe: the funds reinstated are at most
 * the funds withdrawn). A reinstatement before any withdrawal of its dispute waits (retryable).
 * Takes this payment's dispute entries as booked. Pure.
 */
export function planDisputeMoney(
  scope: PaymentScope,
  effect: Extract<Effect, { kind: "dispute" }>,
  credit: { amount: number; currency: string },
  entries: readonly BookedEntry[],
  order: { id: string; disputedAmount: number },
): DisputePlan {
  const { paymentKey, disputeId } = effect;
  const prefix = `${disputeKeyPrefix(scope, paymentKey, disputeId)}:`;
  const booked = new Set<string>();
  let withdrawnBefore = 0;
  let reinstatedBefore = 0;
  for (const entry of entries) {
    // Only this dispute's own keys: `withdrawn`, `reinstated` or `txn:<id>` right after its prefix (a
    // dispute id that merely starts like this one, `du_1:x` beside `du_1`, is another dispute).
    if (!entry.businessKey.startsWith(prefix) || !/^(?:withdrawn|reinstated|txn:[^:]+)$/.test(entry.businessKey.slice(prefix.length))) continue;
    booked.add(entry.businessKey);
    if (entry.amount < 0) withdrawnBefore += -entry.amount;
    else reinstatedBefore += entry.amount;
  }
  const fallbackWithdrawal = booked.has(disputeKey(scope, paymentKey, disputeId, "withdrawn"));
  const fallbackReinstatement = booked.has(disputeKey(scope, paymentKey, disputeId, "reinstated"));
  // One movement per balance transaction id (the first listed wins): a payload naming one twice books it once.
  const seenMovements = new Set<string>();
  const movements = (effect.movements ?? []).filter((movement) => !seenMovements.has(movement.id) && Boolean(seenMovements.add(movement.id)));
  const planned: PlannedEntry[] = [];
  const steps: ReasonRef[] = [];
  let withdrawn = 0;
  let reinstated = 0;
  const available = () => credit.amount - order.disputedAmount - withdrawn + reinstated;

  const withdraw = (businessKey: string, amount: number): DisputePlan | undefined => {
    if (amount > available()) {
      return { kind: "refuse", category: "amount_mismatch", reason: because("dispute_withdrawal_too_large", { disputeId, amount: money(amount, credit.currency), available: money(Math.max(0, available()), credit.currency), orderId: order.id }) };
    }
    planned.push({ businessKey, kind: "dispute_withdrawal", amount: -amount, currency: credit.currency, occurredAt: null });
    steps.push(reasonRef("dispute_moved", { disputeId, amount: money(amount, credit.currency), phase: "funds_withdrawn" }));
    withdrawn += amount;
    return undefined;
  };
  const reinstate = (businessKey: string, amount: number): DisputePlan | undefined => {
    const outstanding = withdrawnBefore + withdrawn - reinstatedBefore - reinstated;
    if (withdrawnBefore + withdrawn === 0) return { kind: "refuse", category: "transition", reason: because("dispute_reinstate_waiting", { disputeId, orderId: order.id }) };
    if (amount > outstanding) {
      return { kind: "refuse", category: "amount_mismatch", reason: because("dispute_reinstatement_too_large", { disputeId, amount: money(amount, credit.currency), withdrawn: money(outstanding, credit.currency), orderId: order.id }) };
    }
    planned.push({ businessKey, kind: "dispute_reinstatement", amount, currency: credit.currency, occurredAt: null });
    steps.push(reasonRef("dispute_moved", { disputeId, amount: money(amount, credit.currency), phase: "funds_reinstated" }));
    reinstated += amount;
    return undefined;
  };

  // Withdrawals first: a payload that carries both books the withdrawal its reinstatement returns.
  const negatives = movements.filter((movement) => movement.amount < 0);
  const positives = movements.filter((movement) => movement.amount > 0);
  if (!fallbackWithdrawal) {
    for (const movement of negatives) {
      const key = disputeKey(scope, paymentKey, disputeId, { transactionId: movement.id });
      if (booked.has(key)) continue;
      const refused = withdraw(key, -movement.amount);
      if (refused) return refused;
    }
  }
  if (effect.fallback === "withdrawn" && negatives.length === 0 && withdrawnBefore === 0 && withdrawn === 0) {
    const refused = withdraw(disputeKey(scope, paymentKey, disputeId, "withdrawn"), effect.amount);
    if (refused) return refused;
  }
  if (!fallbackReinstatement) {
    for (const movement of positives) {
      const key = disputeKey(scope, paymentKey, disputeId, { transactionId: movement.id });
      if (booked.has(key)) continue;
      const refused = reinstate(key, movement.amount);
      if (refused) return refused;
    }
  }
  if (effect.fallback === "reinstated" && positives.length === 0 && reinstatedBefore === 0 && reinstated === 0) {
    const refused = reinstate(disputeKey(scope, paymentKey, disputeId, "reinstated"), effect.amount);
    if (refused) return refused;
  }
  return { kind: "book", entries: planned, withdrawn, reinstated, steps };
}
