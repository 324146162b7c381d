import type { Effect, RefundFact } from "@/lib/core/effect";
import { parseRefundKey, refundFailedKey, refundObjectKey, refundTotalKey, type LedgerKind, type PaymentScope } from "@/lib/core/business-keys";
import type { PaymentEntry, RefundObjectFact, RefundSnapshotFact } from "@/lib/core/books";
import { because, followedBy, reasonRef, reasonText, type Because, type Money, type ReasonRef } from "@/lib/reasons/reason-codes";

/** A refund, failed-refund or dispute entry of a payment as booked (lib/ledger/bookings.ts reads them). */
export type BookedEntry = PaymentEntry;

/** An entry a decision books: under its business key, signed amount in minor units of `currency`. */
export interface PlannedEntry {
  businessKey: string;
  kind: LedgerKind;
  amount: number;
  currency: string;
  occurredAt: number | null;
}

/** The statuses of a refund object whose money came back (Stripe: docs.stripe.com/api/refunds/object#refund_object-status). */
const REVERSED_STATUSES: ReadonlySet<string> = new Set(["failed", "canceled"]);

/** What a payment's refund entries say, read back from their keys. */
interface RefundBooks {
  /** Gross refunded: every refund entry, failed ones included (minor units, positive). */
  gross: number;
  /** Booked back for failed refunds (minor units, positive). */
  reversedTotal: number;
  /** Refunds booked by their id, with their creation time. */
  byId: Map<string, { amount: number; createdAt: number | null }>;
  /** Failed refunds booked back, with the time their failure was reported. */
  reversed: Map<string, { amount: number; failedAt: number | null }>;
  /** Snapshots whose total was booked: their figure and time (null: unknown, or a key written before times were kept). */
  totals: { total: number; at: number | null }[];
}

function readRefundBooks(scope: PaymentScope, paymentKey: string, entries: readonly BookedEntry[]): RefundBooks {
  const books: RefundBooks = { gross: 0, reversedTotal: 0, byId: new Map(), reversed: new Map(), totals: [] };
  const failedPrefix = refundFailedKey(scope, paymentKey, "");
  for (const entry of entries) {
    if (entry.kind === "refund") {
      books.gross += -entry.amount;
      const parts = parseRefundKey(scope, paymentKey, entry.businessKey);
      if (parts?.kind === "id") books.byId.set(parts.refundId, { amount: -entry.amount, createdAt: entry.occurredAt });
      else if (parts?.kind === "total") books.totals.push({ total: parts.total, at: parts.at });
      else books.totals.push({ total: parts?.total ?? books.gross, at: null });
    } else if (entry.kind === "refund_failed") {
      books.reversedTotal += entry.amount;
      if (entry.businessKey.startsWith(failedPrefix)) books.reversed.set(entry.businessKey.slice(failedPrefix.length), { amount: entry.amount, failedAt: entry.occurredAt });
    }
  }
  return books;
}

/** The outcome of weighing a refund event against the payment's books: what to book and the refunded total after it. */
export type RefundPlan =
  | { kind: "book"; entries: PlannedEntry[]; refunded: number; refundedBefore: number; reason: Because; single?: "total" | "reversal"; snapshot?: RefundSnapshotFact; newObjects: RefundObjectFact[] }
  | { kind: "nothing_new"; refunded: number; reason: Because; snapshot?: RefundSnapshotFact; newObjects: RefundObjectFact[] }
  | { kind: "over_refund"; refunded: number; reason: Because }
  | { kind: "too_many"; reason: Because };

/**
 * The most refund objects and refunded totals one payment may gather: each decision weighs every one
 * against the others, so the count is bounded (a real charge has a handful of refunds).
 */
export const MAX_REFUND_FACTS_PER_PAYMENT = 500;

const money = (amount: number, currency: string): Money => ({ amount, currency });

/**
 * Plans the refund entries an event adds to a payment's books, from the provider's own objects, so the
 * books end the same for every delivery order of the same events:
 * - each refund object the event names is booked once under its id with its own amount (failed and
 *   canceled ones too: their money went out), unless an earlier snapshot total already counted it;
 * - each refund whose status is `failed` or `canceled` is booked back once under its id;
 * - an absolute refunded total (`refundedTotal`; null: the whole payment) books only what no refund
 *   object explains. A snapshot taken at `at` counts the refunds standing then, so the gross it implies
 *   is its total plus the refunds known to have failed strictly before it, plus the refunds known to be
 *   created after it: a stale snapshot never books again a refund that has since failed, and a fresh one
 *   books the refund that replaced it. (Stripe: charge.refunded's `amount_refunded` is the charge's
 *   running total of refunds not failed; an event's `data.object` is a snapshot taken when the event was
 *   created; docs.stripe.com/webhooks#event-ordering.)
 * Takes the payment's credit (minor units of `currency`), its booked refund and failed-refund entries, every
 * refunded total reported for it before ({@link RefundSnapshotFact}), every refund object named for it
 * before ({@link RefundObjectFact}, booked by id or counted in a total) and the order's id (for the
 * reasons). A plan carries this event's total as `snapshot` and the refund objects not known before as
 * `newObjects`, to be kept whatever was booked. Past {@link MAX_REFUND_FACTS_PER_PAYMENT}: `too_many`.
 * Returns the entries to book and the refunded total after them (net of failed refunds, minor units), or
 * `nothing_new`, or `over_refund` when the total would pass the credit (never booked). Pure.
 */
export function planRefunds(
  scope: PaymentScope,
  effect: Extract<Effect, { kind: "refund" }>,
  credit: { amount: number; currency: string },
  entries: readonly BookedEntry[],
  snapshots: readonly RefundSnapshotFact[],
  knownObjects: readonly RefundObjectFact[],
  orderId: string,
): RefundPlan {
  const paymentKey = effect.paymentKey;
  const books = readRefundBooks(scope, paymentKey, entries);
  const refundedBefore = books.gross - books.reversedTotal;
  const at = effect.at ?? null;
  // Every refund object known: booked ones, and the ones this event names (first word wins: amounts and creation times never change).
  const named = new Map<string, RefundFact>();
  for (const refund of effect.refunds ?? []) if (!named.has(refund.refundId)) named.set(refund.refundId, refund);
  const objects = new Map<string, { amount: number; createdAt: number | null }>(books.byId);
  for (const known of knownObjects) if (!objects.has(known.refundId)) objects.set(known.refundId, { amount: known.amount, createdAt: known.createdAt });
  for (const [id, reversal] of books.reversed) if (!objects.has(id)) objects.set(id, { amount: reversal.amount, createdAt: null });
  const remembered = new Set(knownObjects.map((known) => known.refundId));
  const unrecorded: RefundObjectFact[] = [];
  for (const [id, refund] of named) {
    if (!remembered.has(id)) unrecorded.push({ refundId: id, amount: refund.amount, createdAt: refund.createdAt });
    if (!objects.has(id)) objects.set(id, { amount: refund.amount, createdAt: refund.createdAt });
  }
  if (objects.size > MAX_REFUND_FACTS_PER_PAYMENT || snapshots.length + books.totals.length > MAX_REFUND_FACTS_PER_PAYMENT) {
    return { kind: "too_many", reason: because("refund_facts_limit", { paymentKey, limit: MAX_REFUND_FACTS_PER_PAYMENT }) };
  }
  const failures = new Map<string, { amount: number; failedAt: number | null; inThisSnapshot: boolean }>();
  for (const [id, reversal] of books.reversed) failures.set(id, { ...reversal, inThisSnapshot: false });
  for (const [id, refund] of named) {
    if (REVERSED_STATUSES.has(refund.status) && !failures.has(id)) failures.set(id, { amount: refund.amount, failedAt: at, inThisSnapshot: true });
  }

  const createdAfter = (time: number | null) => (time === null ? 0 : [...objects.values()].reduce((sum, object) => sum + (object.createdAt !== null && object.createdAt > time ? object.amount : 0), 0));
  const failedBefore = (time: number | null, current: boolean) =>
    [...failures.values()].reduce((sum, failure) => sum + ((current && failure.inThisSnapshot) || (time !== null && failure.failedAt !== null && failure.failedAt < time) ? failure.amount : 0), 0);
  /** The gross a snapshot total implies (see above). */
  const impliedBy = (total: number, time: number | null, current: boolean) => total + failedBefore(time, current) + createdAfter(time);

  const snapshotTotal = effect.refundedTotal === undefined ? undefined : (effect.refundedTotal ?? credit.amount);
  let target = Math.max(books.gross, [...objects.values()].reduce((sum, object) => sum + object.amount, 0));
  for (const known of [...books.totals, ...snapshots]) target = Math.max(target, impliedBy(known.total, known.at, false));
  if (snapshotTotal !== undefined) target = Math.max(target, impliedBy(snapshotTotal, at, true));
  // Every total is kept, booked or not: a failure learnt later raises what it implies.
  const snapshot = snapshotTotal === undefined ? undefined : { total: snapshotTotal, at };

  const planned: PlannedEntry[] = [];
  const steps: ReasonRef[] = [];
  let gross = books.gross;
  // Refunds named by id, oldest first; one already inside a booked total (created before it, standing at it) is not booked twice.
  const inBookedTotal = (refund: RefundFact) =>
    books.totals.some((booked) => {
      // Without both times it cannot be told apart: taken as counted, and the target still books what is missing.
      if (booked.at === null || refund.createdAt === null) return true;
      const failedAt = failures.get(refund.refundId)?.failedAt ?? null;
      return refund.createdAt <= booked.at && !(failedAt !== null && failedAt < booked.at);
    });
  const newObjects = [...named.values()].filter((refund) => !books.byId.has(refund.refundId) && !books.reversed.has(refund.refundId)).sort((a, b) => (a.createdAt ?? 0) - (b.createdAt ?? 0) || a.refundId.localeCompare(b.refundId));
  for (const refund of newObjects) {
    if (inBookedTotal(refund) || gross + refund.amount > target) continue;
    planned.push({ businessKey: refundObjectKey(scope, paymentKey, refund.refundId), kind: "refund", amount: -refund.amount, currency: credit.currency, occurredAt: refund.createdAt });
    steps.push(reasonRef("refund_booked", { refundId: refund.refundId, amount: money(refund.amount, credit.currency) }));
    gross += refund.amount;
  }
  if (target > gross) {
    // What no refund object explains: booked as the snapshot's total (or, without a snapshot, as the gross the known objects reach).
    const businessKey = snapshotTotal !== undefined ? refundTotalKey(scope, paymentKey, snapshotTotal, at) : refundTotalKey(scope, paymentKey, target, null);
    planned.push({ businessKey, kind: "refund", amount: -(target - gross), currency: credit.currency, occurredAt: at });
    steps.push(reasonRef("refund_total_booked", { amount: money(target - gross, credit.currency), total: money(snapshotTotal ?? target, credit.currency) }));
    gross = target;
  }
  let reversedTotal = books.reversedTotal;
  for (const refund of named.values()) {
    if (!REVERSED_STATUSES.has(refund.status) || books.reversed.has(refund.refundId)) continue;
    planned.push({ businessKey: refundFailedKey(scope, paymentKey, refund.refundId), kind: "refund_failed", amount: refund.amount, currency: credit.currency, occurredAt: at });
    steps.push(reasonRef("refund_reversed", { refundId: refund.refundId, amount: money(refund.amount, credit.currency) }));
    reversedTotal += refund.amount;
  }
  const refunded = gross - reversedTotal;
  if (refunded > credit.amount) {
    return { kind: "over_refund", refunded, reason: because("refund_out_of_range", { total: money(refunded, credit.currency), max: money(credit.amount, credit.currency), orderId }) };
  }
  if (planned.length === 0) {
    const reason =
      snapshotTotal !== undefined
        ? because("refund_duplicate", { total: money(snapshotTotal, credit.currency), paymentKey, refunded: money(refundedBefore, credit.currency) })
        : because("refunds_already_booked", { paymentKey, refunded: money(refundedBefore, credit.currency) });
    return { kind: "nothing_new", refunded, reason, ...(snapshot ? { snapshot } : {}), newObjects: unrecorded };
  }
  const [first, ...rest] = steps;
  const reason = rest.reduce<Because>((sentence, step) => followedBy(sentence, step), { reason: reasonText(first), reasonRef: first });
  const single = planned.length === 1 ? (planned[0].kind === "refund_failed" ? "reversal" : planned[0].businessKey.includes(":total:") ? "total" : undefined) : undefined;
  return { kind: "book", entries: planned, refunded, refundedBefore, reason, single, ...(snapshot ? { snapshot } : {}), newObjects: unrecorded };
}
