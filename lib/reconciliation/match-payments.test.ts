import assert from "node:assert/strict";
import { test } from "node:test";
import { matchPayments, type BookedPayment } from "@/lib/reconciliation/match-payments";
import type { SettlementEntry } from "@/lib/reconciliation/settlement-entries";

let line = 1;
function entry(fields: Partial<SettlementEntry> & Pick<SettlementEntry, "kind" | "gross">): SettlementEntry {
  line++;
  return { line, transactionId: `txn_${line}`, createdAt: new Date("2026-11-29T12:00:00Z"), category: fields.kind, currency: "USD", fee: 0, net: fields.gross - (fields.fee ?? 0), ...fields };
}

function book(paymentKey: string, credited: number, extra: Partial<BookedPayment> = {}): BookedPayment {
  return { paymentKey, orderId: `ord_${paymentKey}`, currency: "USD", credited, refunded: 0, disputed: 0, ...extra };
}

test("a report that agrees with the books has no mismatch, and its totals add up per currency", () => {
  line = 1;
  const result = matchPayments(
    [
      entry({ kind: "charge", paymentId: "pi_1", gross: 2500, fee: 103, payoutId: "po_1" }),
      entry({ kind: "refund", paymentId: "pi_1", gross: -1000, payoutId: "po_1" }),
      entry({ kind: "charge", paymentId: "pi_2", gross: 500, fee: 35, currency: "JPY" }),
      entry({ kind: "fee", gross: -200, payoutId: "po_1" }),
      entry({ kind: "payout", gross: -1197, payoutId: "po_1" }),
    ],
    [book("pi_1", 2500, { refunded: 1000 }), book("pi_2", 500, { currency: "JPY" })],
  );
  assert.deepEqual(result.mismatches, []);
  assert.deepEqual(result.totals, {
    USD: { gross: 103, fees: 103, net: 0, credited: 2500, refunded: 1000, overCredited: 0, underCredited: 0 },
    JPY: { gross: 500, fees: 35, net: 465, credited: 500, refunded: 0, overCredited: 0, underCredited: 0 },
  });
  assert.deepEqual(result.payouts, { po_1: { currency: "USD", net: 2500 - 103 - 1000 - 200 } });
});

test("each kind of difference gets its fixed code, amounts and lines", () => {
  line = 1;
  const result = matchPayments(
    [
      entry({ kind: "charge", paymentId: "pi_missed", gross: 4000 }),
      entry({ kind: "charge", paymentId: "pi_amount", gross: 4000 }),
      entry({ kind: "charge", paymentId: "pi_currency", gross: 700, currency: "EUR" }),
      entry({ kind: "charge", paymentId: "pi_refund", gross: 900 }),
      entry({ kind: "refund", paymentId: "pi_refund", gross: -900 }),
      entry({ kind: "refund_failure", paymentId: "pi_refund", gross: 900 }),
      entry({ kind: "charge", paymentId: "pi_dispute", gross: 300 }),
      entry({ kind: "dispute", paymentId: "pi_dispute", gross: -300 }),
      entry({ kind: "charge", paymentId: "pi_dup", gross: 100, transactionId: "txn_same" }),
      entry({ kind: "charge", paymentId: "pi_dup", gross: 100, transactionId: "txn_same" }),
    ],
    [
      book("pi_amount", 4200),
      book("pi_currency", 700),
      // The refund failed at the provider (refund_failure): the books still count it refunded.
      book("pi_refund", 900, { refunded: 900 }),
      book("pi_dispute", 300),
      book("pi_dup", 100),
      book("pi_forged", 2500),
      // Credited before the period, nothing moved in it: not flagged.
      book("pi_old", 0, { refunded: 0 }),
    ],
  );
  assert.deepEqual(
    result.mismatches.map((m) => [m.code, m.paymentId, m.currency, m.settled, m.booked, m.lines]),
    [
      ["duplicate_row", "pi_dup", "USD", 100, 0, [10, 11]],
      ["missing_credit", "pi_missed", "USD", 4000, 0, [2]],
      ["amount_mismatch", "pi_amount", "USD", 4000, 4200, [3]],
      ["currency_mismatch", "pi_currency", "EUR", 700, 700, [4]],
      ["refund_mismatch", "pi_refund", "USD", 0, 900, [5, 6, 7]],
      ["dispute_mismatch", "pi_dispute", "USD", 300, 0, [8, 9]],
      ["unsettled_credit", "pi_forged", "USD", 0, 2500, []],
    ],
  );
  assert.equal(result.mismatches.find((m) => m.code === "unsettled_credit")!.orderId, "ord_pi_forged");
  assert.equal(result.totals.USD.overCredited, 200 + 2500);
  assert.equal(result.totals.USD.underCredited, 4000);
  assert.equal(result.totals.USD.gross, 4000 + 4000 + 900 - 900 + 900 + 300 - 300 + 100);
});

test("a refund or a dispute of a payment credited before the period is compared without its charge", () => {
  line = 1;
  const refundOnly = matchPayments([entry({ kind: "refund", paymentId: "pi_earlier", gross: -500 })], [book("pi_earlier", 0, { refunded: 500 })]);
  assert.deepEqual(refundOnly.mismatches, []);
  const missedRefund = matchPayments([entry({ kind: "refund", paymentId: "pi_earlier", gross: -500 })], []);
  assert.deepEqual(missedRefund.mismatches.map((m) => [m.code, m.settled, m.booked]), [["refund_mismatch", 500, 0]]);
});
