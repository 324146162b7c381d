// Rebuild and compare: each order's status and ledger re-derived from its applied stored events by
// today's code, in a transaction that is rolled back, and compared with the books as they stand.
import { applyStoredEvent } from "@/lib/apply/apply-stored-event";
import { ApplyFailure } from "@/lib/core/failures";
import type { PaymentScope } from "@/lib/core/business-keys";
import type { Db } from "@/lib/db/client";
import { driverOf, rolledBack, type SqlSession } from "@/lib/db/driver";
import { clearOrderBookingsForRebuild } from "@/lib/ledger/bookings";
import { clearDisputesForRebuild } from "@/lib/ledger/disputes";
import { readOrderBooks, type OrderBooks } from "@/lib/ledger/order-books";
import { clearRefundFactsForRebuild } from "@/lib/ledger/refund-snapshots";
import { errorMessage } from "@/lib/log/error-message";
import { resetOrderForRebuild } from "@/lib/orders/transition-order";
import { clearOutboxForRebuild } from "@/lib/outbox/outbox-store";
import type { ReasonRef } from "@/lib/reasons/reason-codes";
import { inCreationOrder, parsedPayload } from "@/lib/replay/replay-candidates";
import { endpointScopeOf } from "@/lib/replay/replay-run";

/** How long one rolled-back transaction of a check goes on taking orders (ms): SQLite's one connection is held that long at most, plus one order. */
export const TRANSACTION_BUDGET_MS = 100;

/** Stored-event statuses whose effect is in the books: what an order is rebuilt from. */
export const APPLIED_EVENT_STATUSES = ["processed", "ignored"] as const;
/** Stored-event statuses still waiting (the worker's, or given up): listed apart, never counted as a difference. */
export const WAITING_EVENT_STATUSES = ["received", "processing", "failed", "dead"] as const;

/** One ledger entry that is not as the rebuild says: missing from the books, extra in them, or of another amount (minor units). */
export interface EntryDifference {
  kind: "missing" | "extra" | "amount";
  businessKey: string;
  /** The entry's kind (credit, refund, ...). */
  entryKind: string;
  currency: string;
  /** Signed amount in the books (null: not there). */
  books: number | null;
  /** Signed amount the rebuild booked (null: not booked). */
  rebuilt: number | null;
  /** The events that booked it, in the books and in the rebuild. */
  eventIds: string[];
}

/** An event of an order, as a check lists it. */
export interface CheckedEvent {
  /** The stored event's row, or null for an event only a dead letter holds. */
  storedEventId: string | null;
  eventId: string;
  provider: string;
  type: string;
  status: string;
  deadLetterId?: string | null;
}

/** An applied event a rule of today's code now refuses. */
export interface RefusedEvent {
  eventId: string;
  category: string;
  reason: string;
  reasonRef?: ReasonRef;
}

/** What the check of one order found. Amounts in minor units. */
export interface OrderCheck {
  orderId: string;
  /** The order's currency (ISO 4217): what the refunded and disputed totals are counted in. */
  currency: string;
  /** agree: the rebuild gives the books; differ: it does not; unverifiable: it could not be rebuilt (see `why`). */
  verdict: "agree" | "differ" | "unverifiable";
  /** When unverifiable: an applied event's payload was purged by retention, or the rebuild failed. */
  why?: { code: "payload_purged" | "rebuild_failed"; eventIds: string[]; error?: string };
  books: { status: string; refunded: number; disputed: number } | null;
  rebuilt: { status: string; refunded: number; disputed: number } | null;
  entries: EntryDifference[];
  refused: RefusedEvent[];
  /** The applied events it was rebuilt from, in the order applied. */
  events: CheckedEvent[];
  /** Events still pending or dead-lettered: listed apart, not counted as differences. */
  waiting: CheckedEvent[];
}

/** An applied stored event as a rebuild reads it. */
interface AppliedRow {
  id: string;
  organizationId: string;
  provider: string;
  account: string;
  livemode: boolean;
  eventId: string;
  endpoint: string;
  type: string;
  bodyHash: string;
  secretLabel: string | null;
  orderId: string | null;
  paymentKey: string | null;
  status: string;
  receivedAt: Date;
  payload: string;
}

const listed = (row: { id: string; eventId: string; provider: string; type: string; status: string }): CheckedEvent => ({ storedEventId: row.id, eventId: row.eventId, provider: row.provider, type: row.type, status: row.status });

/** Compares the books with the rebuild, entry by business key. */
export function compareEntries(books: OrderBooks["ledger"], rebuilt: OrderBooks["ledger"]): EntryDifference[] {
  const differences: EntryDifference[] = [];
  const rebuiltByKey = new Map(rebuilt.map((entry) => [entry.businessKey, entry]));
  const booksByKey = new Map(books.map((entry) => [entry.businessKey, entry]));
  for (const entry of books) {
    const again = rebuiltByKey.get(entry.businessKey);
    if (!again) differences.push({ kind: "extra", businessKey: entry.businessKey, entryKind: entry.kind, currency: entry.currency, books: entry.amount, rebuilt: null, eventIds: [entry.eventId] });
    else if (again.amount !== entry.amount || again.currency !== entry.currency) {
      differences.push({ kind: "amount", businessKey: entry.businessKey, entryKind: entry.kind, currency: entry.currency, books: entry.amount, rebuilt: again.amount, eventIds: [...new Set([entry.eventId, again.eventId])] });
    }
  }
  for (const entry of rebuilt) {
    if (!booksByKey.has(entry.businessKey)) differences.push({ kind: "missing", businessKey: entry.businessKey, entryKind: entry.kind, currency: entry.currency, books: null, rebuilt: entry.amount, eventIds: [entry.eventId] });
  }
  return differences.sort((a, b) => (a.businessKey < b.businessKey ? -1 : a.businessKey > b.businessKey ? 1 : 0));
}

/** Carries an order's rebuild out of its savepoint, which is then rolled back. */
class Rebuilt extends Error {
  constructor(readonly books: OrderBooks | null) {
    super("rebuilt");
    this.name = "Rebuilt";
  }
}

/**
 * Rebuilds one order inside `session`: empties its bookings, disputes, refund facts of its payments and
 * outbox messages, puts it back to `created`, applies its events in order (each in a savepoint: a rule's
 * refusal is recorded and rolls back only that event; one waiting for a transition is tried again after
 * each later event that applies, as the inbox wakes a parked event), reads the books it came to, and
 * rolls all of it back to the savepoint. Returns the rebuilt books and the refusals.
 */
async function rebuildOne(session: SqlSession, organizationId: string, orderId: string, books: OrderBooks, events: readonly AppliedRow[], now: Date): Promise<{ rebuilt: OrderBooks | null; refused: RefusedEvent[] }> {
  const refused: RefusedEvent[] = [];
  const payments = new Map<string, PaymentScope & { paymentKey: string }>();
  const addPayment = (scope: PaymentScope & { paymentKey: string | null }) => {
    if (scope.paymentKey) payments.set(`${scope.provider}\u0000${scope.account}\u0000${scope.livemode}\u0000${scope.paymentKey}`, { provider: scope.provider, account: scope.account, livemode: scope.livemode, paymentKey: scope.paymentKey });
  };
  for (const entry of books.ledger) addPayment(entry);
  for (const event of events) addPayment(event);
  try {
    await session.savepoint(async () => {
      await clearOrderBookingsForRebuild(session, organizationId, orderId);
      await clearDisputesForRebuild(session, organizationId, orderId);
      await clearRefundFactsForRebuild(session, [...payments.values()]);
      await clearOutboxForRebuild(session, organizationId, orderId);
      await resetOrderForRebuild(session, organizationId, orderId);
      /** Applies one event in a savepoint; returns the rule's refusal, if any. */
      const apply = async (event: AppliedRow): Promise<ApplyFailure | undefined> => {
        const key = { provider: event.provider, account: event.account, livemode: event.livemode, eventId: event.eventId };
        try {
          await session.savepoint(() =>
            applyStoredEvent(
              session,
              { rowId: event.id, key, endpoint: endpointScopeOf(event), event: parsedPayload(event.payload)!, bodyHash: event.bodyHash, secretLabel: event.secretLabel, source: "replay", httpStatus: null },
              now,
              // Decision rows collected and dropped: a rebuild records nothing.
              [],
            ),
          );
          return undefined;
        } catch (error) {
          if (!(error instanceof ApplyFailure)) throw error;
          return error;
        }
      };
      // An event that waits for a transition (a refund before its payment's credit) is held and tried
      // again after each event that applies, as the inbox parks it and wakes it when the order moves:
      // the books must not depend on the order the provider's clock gives the events.
      let waiting: { event: AppliedRow; failure: ApplyFailure }[] = [];
      const refuse = ({ event, failure }: { event: AppliedRow; failure: ApplyFailure }) =>
        refused.push({ eventId: event.eventId, category: failure.category, reason: failure.reason, ...(failure.reasonRef ? { reasonRef: failure.reasonRef } : {}) });
      for (const event of events) {
        const failure = await apply(event);
        if (failure?.category === "transition") waiting.push({ event, failure });
        else if (failure) refuse({ event, failure });
        else {
          for (let progress = true; progress && waiting.length > 0; ) {
            progress = false;
            const still: typeof waiting = [];
            for (const held of waiting) {
              const again = await apply(held.event);
              if (again === undefined) progress = true;
              else if (again.category === "transition") still.push({ event: held.event, failure: again });
              else refuse({ event: held.event, failure: again });
            }
            waiting = still;
          }
        }
      }
      for (const held of waiting) refuse(held);
      throw new Rebuilt(await readOrderBooks(session, organizationId, orderId));
    });
  } catch (error) {
    if (error instanceof Rebuilt) return { rebuilt: error.books, refused };
    throw error;
  }
  throw new Error("unreachable: a rebuild's savepoint was kept");
}

const totals = (books: OrderBooks | null) => (books ? { status: books.status, refunded: books.refunded, disputed: books.disputed } : null);

/**
 * Checks the books of `orderIds` (one page of the caller's, ~25) in transactions that are rolled back,
 * each holding orders until `budgetMs` (default {@link TRANSACTION_BUDGET_MS}) is spent: for each order, its applied stored events (processed or ignored, stored with the order)
 * are applied again from nothing in the provider's creation order (ties by arrival) through the real
 * apply entry point, each order in a savepoint of its own, and the result compared with the books as
 * they stand: status, refunded and disputed totals, and every ledger entry (missing, extra, another
 * amount). An applied event a rule now refuses is a difference too. Events still pending or
 * dead-lettered are listed apart. An order whose applied event lost its payload to retention is
 * `unverifiable`. Nothing is corrected, nothing is kept. Returns one check per order that exists, in
 * the order given. Throws the database's errors.
 */
export async function checkOrders(db: Db, organizationId: string, orderIds: readonly string[], now = new Date(), budgetMs = TRANSACTION_BUDGET_MS): Promise<OrderCheck[]> {
  if (orderIds.length === 0) return [];
  const ids = [...new Set(orderIds)];
  // Read before the transaction, to keep it short.
  const stored = await db.webhookEvent.findMany({
    where: { organizationId, orderId: { in: ids } },
    select: { id: true, organizationId: true, provider: true, account: true, livemode: true, eventId: true, endpoint: true, type: true, bodyHash: true, secretLabel: true, orderId: true, paymentKey: true, status: true, receivedAt: true, payload: true },
  });
  const letters = await db.deadLetter.findMany({ where: { organizationId, orderId: { in: ids }, status: "open" }, select: { id: true, provider: true, account: true, livemode: true, eventId: true, eventType: true, bodyHash: true, orderId: true } });
  const appliedOf = (orderId: string) =>
    inCreationOrder(
      stored
        .filter((row) => row.orderId === orderId && (APPLIED_EVENT_STATUSES as readonly string[]).includes(row.status))
        .map((row) => ({ ...row, event: parsedPayload(row.payload), arrivedAt: row.receivedAt })),
    );
  const waitingOf = (orderId: string): CheckedEvent[] => {
    const rows = stored.filter((row) => row.orderId === orderId && (WAITING_EVENT_STATUSES as readonly string[]).includes(row.status));
    const waiting: CheckedEvent[] = rows.map((row) => ({ ...listed(row), deadLetterId: letters.find((letter) => letter.eventId === row.eventId && letter.provider === row.provider && letter.bodyHash === row.bodyHash)?.id ?? null }));
    for (const letter of letters.filter((candidate) => candidate.orderId === orderId)) {
      const own = stored.some((row) => row.eventId === letter.eventId && row.provider === letter.provider && row.account === letter.account && row.livemode === letter.livemode && row.bodyHash === letter.bodyHash);
      if (!own) waiting.push({ storedEventId: null, eventId: letter.eventId, provider: letter.provider, type: letter.eventType, status: "dead", deadLetterId: letter.id });
    }
    return waiting;
  };

  const checks: OrderCheck[] = [];
  let next = 0;
  while (next < ids.length) {
    // Orders until the budget is spent (at least one), in a transaction that is rolled back; then the
    // next transaction: on SQLite the one connection is never held long, whatever the batch's size.
    checks.push(
      ...(await rolledBack(driverOf(db), async (session) => {
        const started = Date.now();
        const done: OrderCheck[] = [];
        for (let first = true; next < ids.length && (first || Date.now() - started < budgetMs); first = false) {
          const orderId = ids[next++];
          const check = await checkOne(session, orderId);
          if (check) done.push(check);
        }
        return done;
      })),
    );
    if (next < ids.length) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return checks;

  /** One order's check inside the batch's transaction, or null when there is no such order. */
  async function checkOne(session: SqlSession, orderId: string): Promise<OrderCheck | null> {
    const books = await readOrderBooks(session, organizationId, orderId);
    if (!books) return null;
    const events = appliedOf(orderId);
    const base = { orderId, currency: books.currency, books: totals(books), events: events.map(listed), waiting: waitingOf(orderId), entries: [], refused: [] };
    const purged = events.filter((event) => event.event === null);
    if (purged.length > 0) return { ...base, verdict: "unverifiable", why: { code: "payload_purged", eventIds: purged.map((event) => event.eventId) }, rebuilt: null };
    let rebuilt: OrderBooks | null;
    let refused: RefusedEvent[];
    try {
      ({ rebuilt, refused } = await rebuildOne(session, organizationId, orderId, books, events, now));
    } catch (error) {
      return { ...base, verdict: "unverifiable", why: { code: "rebuild_failed", eventIds: events.map((event) => event.eventId), error: errorMessage(error).slice(0, 300) }, rebuilt: null };
    }
    const entries = compareEntries(books.ledger, rebuilt?.ledger ?? []);
    const same = rebuilt !== null && rebuilt.status === books.status && rebuilt.refunded === books.refunded && rebuilt.disputed === books.disputed;
    return { ...base, verdict: same && entries.length === 0 && refused.length === 0 ? "agree" : "differ", rebuilt: totals(rebuilt), entries, refused };
  }
}
