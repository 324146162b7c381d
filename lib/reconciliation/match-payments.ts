import type { SettlementEntry } from "@/lib/reconciliation/settlement-entries";

/**
 * The fixed mismatch codes of a payment-level reconciliation, each with the action that resolves it:
 * - `missing_credit`: the provider settled a charge Acredita never credited (a missed or dead-lettered webhook);
 * - `unsettled_credit`: Acredita credited what the provider never settled (forged, test leak, phantom);
 * - `amount_mismatch` / `currency_mismatch`: both sides have the payment, with other figures;
 * - `refund_mismatch`: the refunded totals differ (a missed refund webhook, or a refund that failed later);
 * - `dispute_mismatch`: the disputed totals differ;
 * - `duplicate_row`: the report lists one balance transaction twice (the copy is left out of every sum).
 */
export type MismatchCode = "missing_credit" | "unsettled_credit" | "amount_mismatch" | "currency_mismatch" | "refund_mismatch" | "dispute_mismatch" | "duplicate_row";

export const NEXT_ACTION: Readonly<Record<MismatchCode, string>> = {
  missing_credit: "find the payment's webhook in the dead letters or the provider's event log, then retry or resend it",
  unsettled_credit: "check the payment in the provider's dashboard; if it does not exist there, reverse the credit and investigate which secret signed it",
  amount_mismatch: "compare the payment with the order in the provider's dashboard; refund or correct the order",
  currency_mismatch: "compare the payment with the order in the provider's dashboard; refund or correct the order",
  refund_mismatch: "compare the payment's refunds with the provider's; a failed refund or a missed refund webhook is the usual cause",
  dispute_mismatch: "compare the payment's disputes with the provider's dispute log",
  duplicate_row: "ask the provider for a corrected report; the copy was left out of the totals",
};

/**
 * What Acredita booked for one payment of the run's scope and period, from its ledger entries
 * (minor units of `currency`, all non-negative): `credited` the credit, `refunded` the refunds' total,
 * `disputed` what disputes withdrew net of reinstatements.
 */
export interface BookedPayment {
  paymentKey: string;
  orderId: string;
  currency: string;
  credited: number;
  refunded: number;
  disputed: number;
}

/** One difference between the report and the books, with the report lines it comes from. */
export interface PaymentMismatch {
  code: MismatchCode;
  paymentId: string;
  orderId?: string;
  currency: string;
  /** What the provider settled for the compared figure (minor units, non-negative). */
  settled: number;
  /** What Acredita booked for it (minor units, non-negative). */
  booked: number;
  lines: number[];
  nextAction: string;
}

/** Totals of one currency: gross, fees and net from the report; credited and refunded from the books; over- and under-credited. */
export interface CurrencyTotals {
  gross: number;
  fees: number;
  net: number;
  credited: number;
  refunded: number;
  overCredited: number;
  underCredited: number;
}

export interface PaymentMatch {
  mismatches: PaymentMismatch[];
  totals: Record<string, CurrencyTotals>;
  /** Net per payout (`automatic_payout_id`), in the payout's currency, when the report has payouts. */
  payouts: Record<string, { currency: string; net: number }>;
}

/** What the report settled for one payment (minor units, non-negative sums), with its report lines. */
export interface SettledPayment {
  currency: string;
  orderId?: string;
  charged: number;
  refunded: number;
  disputed: number;
  hasCharge: boolean;
  lines: number[];
}

/** The totals of `currency` in `totals`, created at zero when absent. */
export function totalsOf(totals: Record<string, CurrencyTotals>, currency: string): CurrencyTotals {
  return (totals[currency] ??= { gross: 0, fees: 0, net: 0, credited: 0, refunded: 0, overCredited: 0, underCredited: 0 });
}

/**
 * Matches a payment-level settlement report with the books of one scope and period, without I/O:
 * settled charges with credits, refunds with refunds (totals per payment, a `refund_failure` giving a
 * refund back), disputes with disputes (withdrawn net of `dispute_reversal`). Fees, payouts and
 * adjustments count in the totals only. `booked` must hold only the scope's payments (provider,
 * account, live/test) with a ledger entry in the period, `credited` counting a credit booked in the
 * period only (0 for a payment credited earlier and refunded now): nothing of another provider, and
 * no credit of another period, is ever flagged.
 * Returns the mismatches (report order, then unsettled credits in `booked` order), the totals per
 * currency and the net per payout. Pure: the same input gives the same output.
 */
export function matchPayments(entries: Iterable<SettlementEntry>, booked: Iterable<BookedPayment>): PaymentMatch {
  const mismatches: PaymentMismatch[] = [];
  const totals: Record<string, CurrencyTotals> = {};
  const payouts: Record<string, { currency: string; net: number }> = {};
  const settled = new Map<string, SettledPayment>();
  const seen = new Map<string, number>();

  for (const entry of entries) {
    const first = seen.get(entry.transactionId);
    if (first !== undefined) {
      mismatches.push({ code: "duplicate_row", paymentId: entry.paymentId ?? entry.transactionId, orderId: entry.orderId, currency: entry.currency, settled: Math.abs(entry.gross), booked: 0, lines: [first, entry.line], nextAction: NEXT_ACTION.duplicate_row });
      continue;
    }
    seen.set(entry.transactionId, entry.line);
    const sums = totalsOf(totals, entry.currency);
    sums.gross += entry.gross;
    sums.fees += entry.fee;
    sums.net += entry.net;
    if (entry.payoutId && entry.kind !== "payout") {
      const payout = (payouts[entry.payoutId] ??= { currency: entry.currency, net: 0 });
      payout.net += entry.net;
    }
    if (!entry.paymentId || !["charge", "refund", "refund_failure", "dispute", "dispute_reversal"].includes(entry.kind)) continue;
    const payment = settled.get(entry.paymentId) ?? { currency: entry.currency, orderId: entry.orderId, charged: 0, refunded: 0, disputed: 0, hasCharge: false, lines: [] };
    payment.lines.push(entry.line);
    payment.orderId ??= entry.orderId;
    // Signs as Stripe writes them: charges and reinstatements positive, refunds and withdrawals negative.
    if (entry.kind === "charge") {
      payment.charged += entry.gross;
      payment.hasCharge = true;
    } else if (entry.kind === "refund" || entry.kind === "refund_failure") payment.refunded -= entry.gross;
    else payment.disputed -= entry.gross;
    settled.set(entry.paymentId, payment);
  }

  const books = new Map<string, BookedPayment>();
  for (const payment of booked) {
    books.set(payment.paymentKey, payment);
    const sums = totalsOf(totals, payment.currency);
    sums.credited += payment.credited;
    sums.refunded += payment.refunded;
  }

  for (const [paymentId, payment] of settled) {
    const book = books.get(paymentId);
    books.delete(paymentId);
    mismatches.push(...compareSettled(paymentId, payment, book, totals));
  }

  for (const book of books.values()) {
    const mismatch = compareUnsettled(book, totals);
    if (mismatch) mismatches.push(mismatch);
  }
  return { mismatches, totals, payouts };
}

/**
 * Compares one payment of the report with its books (`book` undefined when the ledger of the scope and
 * period has none), adding its over- and under-credited sums to `totals`. Returns its mismatches
 * (none, one, or a refund and a dispute difference together). The rule of {@link matchPayments}, one
 * payment at a time, so a caller can walk payments in pages (lib/reconciliation/payment-run.ts).
 */
export function compareSettled(paymentId: string, payment: SettledPayment, book: BookedPayment | undefined, totals: Record<string, CurrencyTotals>): PaymentMismatch[] {
  const found: PaymentMismatch[] = [];
  const add = (code: MismatchCode, on: { currency: string; orderId?: string; lines: number[] }, settledAmount: number, bookedAmount: number) => {
    found.push({ code, paymentId, orderId: on.orderId, currency: on.currency, settled: settledAmount, booked: bookedAmount, lines: on.lines, nextAction: NEXT_ACTION[code] });
  };
  const sums = totalsOf(totals, payment.currency);
  if (!book) {
    if (payment.hasCharge) {
      add("missing_credit", payment, payment.charged, 0);
      sums.underCredited += payment.charged;
    } else if (payment.refunded !== 0) add("refund_mismatch", payment, payment.refunded, 0);
    else if (payment.disputed !== 0) add("dispute_mismatch", payment, payment.disputed, 0);
    return found;
  }
  const withOrder = { ...payment, orderId: book.orderId };
  if (book.currency !== payment.currency) {
    add("currency_mismatch", withOrder, payment.charged, book.credited);
    return found;
  }
  // A payment charged before the period shows only its refund or dispute here: its credit is compared in its own period.
  if (payment.hasCharge && book.credited !== payment.charged) {
    add("amount_mismatch", withOrder, payment.charged, book.credited);
    if (book.credited > payment.charged) sums.overCredited += book.credited - payment.charged;
    else sums.underCredited += payment.charged - book.credited;
  }
  if (book.refunded !== payment.refunded) add("refund_mismatch", withOrder, payment.refunded, book.refunded);
  if (book.disputed !== payment.disputed) add("dispute_mismatch", withOrder, payment.disputed, book.disputed);
  return found;
}

/**
 * A booked payment the report does not list: an `unsettled_credit` when it was credited in the period
 * (its credit added to the over-credited sum of `totals`), else null (a refund alone of a payment
 * credited earlier is compared with the report of that period).
 */
export function compareUnsettled(book: BookedPayment, totals: Record<string, CurrencyTotals>): PaymentMismatch | null {
  if (book.credited === 0) return null;
  totalsOf(totals, book.currency).overCredited += book.credited;
  return { code: "unsettled_credit", paymentId: book.paymentKey, orderId: book.orderId, currency: book.currency, settled: 0, booked: book.credited, lines: [], nextAction: NEXT_ACTION.unsettled_credit };
}
