// An order's books as one value: its status and running totals, and every ledger entry it holds. What a
// replay's preview shows before and after, what its apply compares to refuse a stale preview, and what
// the books' rebuild compares with the books as they stand.
import type { SqlSession } from "@/lib/db/driver";
import { ledgerOfOrder, type OrderLedgerEntry } from "@/lib/ledger/bookings";
import { orderById } from "@/lib/orders/transition-order";

/** An order's books at one moment (minor units). `credited` is the sum of its ledger entries, as the orders API says it. */
export interface OrderBooks {
  orderId: string;
  status: string;
  currency: string;
  credited: number;
  refunded: number;
  disputed: number;
  /** Every ledger entry, by business key. */
  ledger: OrderLedgerEntry[];
}

/** The books of an organization's order read in `session` (seeing that transaction's own writes), or null when there is no such order. */
export async function readOrderBooks(session: SqlSession, organizationId: string, orderId: string): Promise<OrderBooks | null> {
  const order = await orderById(session, organizationId, orderId);
  if (!order) return null;
  const ledger = await ledgerOfOrder(session, organizationId, orderId);
  return {
    orderId,
    status: order.status,
    currency: order.currency,
    credited: ledger.reduce((sum, entry) => sum + entry.amount, 0),
    refunded: Number(order.refundedAmount),
    disputed: Number(order.disputedAmount),
    ledger,
  };
}

/**
 * A short text that changes whenever the order's status, totals or any ledger entry (key, amount,
 * currency) changes, and only then; `absent` for an order that does not exist. Two reads of unchanged
 * books give the same text on either database.
 */
export function booksFingerprint(books: OrderBooks | null): string {
  if (!books) return "absent";
  const entries = books.ledger.map((entry) => `${entry.businessKey}=${entry.amount}${entry.currency}`).sort();
  return JSON.stringify([books.status, books.refunded, books.disputed, entries]);
}
