import "@/e2e/support/test-env";
// Payment-level reconciliation of Stripe's itemized reports against the ledger of one scope and period:
// every mismatch code, zero- and three-decimal currencies, the report's BOM/CRLF/quoted commas/metadata
// columns, and scoping (another provider, account, live/test or period is never flagged).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { closeDb, db } from "@/lib/db/client";
import { runReport, stripeReport, type ReportLine } from "@/e2e/support/stripe-reports";
import { MAX_PAYOUTS_PER_RUN } from "@/lib/reconciliation/payment-run";

process.env.STRIPE_ACCOUNT_ID = "acct_recon";

interface Booking {
  payment: string;
  order: string;
  credit: number;
  refund?: number;
  /** More entries of the payment, as the apply step books them (refund_failed, dispute_withdrawal, dispute_reinstatement). */
  extra?: { kind: string; amount: number; key: string }[];
  currency?: string;
  provider?: string;
  account?: string;
  livemode?: boolean;
  at?: string;
}

/** Ledger rows as the apply step books them (business keys credit|refund:<provider>:<account>:<live|test>:<payment>). */
async function book(bookings: Booking[]): Promise<void> {
  const database = await db();
  await database.order.createMany({ data: bookings.map((b) => ({ id: b.order, amount: b.credit, currency: b.currency ?? "USD", status: b.refund === b.credit ? "refunded" : "paid" })) });
  const rows = bookings.flatMap((b) => {
    const provider = b.provider ?? "stripe";
    const account = b.account ?? "acct_recon";
    const livemode = b.livemode ?? true;
    const scope = `${provider}:${account}:${livemode ? "live" : "test"}`;
    const common = { orderId: b.order, paymentKey: b.payment, currency: b.currency ?? "USD", provider, account, livemode, createdAt: new Date(b.at ?? "2026-11-29T12:00:05Z") };
    return [
      { ...common, businessKey: `credit:${scope}:${b.payment}`, kind: "credit", amount: b.credit, eventId: `evt_c_${b.payment}` },
      ...(b.refund ? [{ ...common, businessKey: `refund:${scope}:${b.payment}`, kind: "refund", amount: -b.refund, eventId: `evt_r_${b.payment}` }] : []),
      ...(b.extra ?? []).map((entry) => ({ ...common, businessKey: `${entry.key}:${scope}:${b.payment}`, kind: entry.kind, amount: entry.amount, eventId: `evt_${entry.key}_${b.payment}` })),
    ];
  });
  await database.ledgerEntry.createMany({ data: rows });
}

const AT = "2026-11-29 12:00:00";
const LATER = "2026-11-30 09:15:00";

// Lines 2.. of the report, in this order.
const LINES: ReportLine[] = [
  { txn: "txn_ok", at: AT, currency: "usd", gross: "25.00", fee: "1.03", category: "charge", paymentIntent: "pi_ok", orderId: "ord_ok", description: "Order 1, blue" },
  { txn: "txn_jpy", at: AT, currency: "jpy", gross: "500", fee: "35", category: "charge", paymentIntent: "pi_jpy", orderId: "ord_jpy" },
  { txn: "txn_kwd", at: AT, currency: "kwd", gross: "1.250", fee: "0.045", category: "charge", paymentIntent: "pi_kwd", orderId: "ord_kwd" },
  { txn: "txn_missed", at: AT, currency: "usd", gross: "40.00", category: "charge", paymentIntent: "pi_missed", orderId: "ord_missed" },
  { txn: "txn_amount", at: AT, currency: "usd", gross: "25.00", category: "charge", paymentIntent: "pi_amount", orderId: "ord_amount" },
  { txn: "txn_currency", at: AT, currency: "usd", gross: "10.00", category: "charge", paymentIntent: "pi_currency", orderId: "ord_currency" },
  { txn: "txn_rf_c", at: AT, currency: "usd", gross: "60.00", category: "charge", paymentIntent: "pi_refund_missed" },
  { txn: "txn_rf_r", at: LATER, currency: "usd", gross: "-60.00", category: "refund", paymentIntent: "pi_refund_missed" },
  { txn: "txn_ff_c", at: AT, currency: "usd", gross: "70.00", category: "charge", paymentIntent: "pi_refund_failed" },
  { txn: "txn_ff_r", at: AT, currency: "usd", gross: "-70.00", category: "refund", paymentIntent: "pi_refund_failed" },
  { txn: "txn_ff_f", at: LATER, currency: "usd", gross: "70.00", category: "refund_failure", paymentIntent: "pi_refund_failed" },
  { txn: "txn_dl_c", at: AT, currency: "usd", gross: "80.00", category: "charge", paymentIntent: "pi_dispute_lost" },
  { txn: "txn_dl_d", at: LATER, currency: "usd", gross: "-80.00", fee: "15.00", category: "dispute", paymentIntent: "pi_dispute_lost" },
  { txn: "txn_dw_c", at: AT, currency: "usd", gross: "15.00", category: "charge", paymentIntent: "pi_dispute_won" },
  { txn: "txn_dw_d", at: AT, currency: "usd", gross: "-15.00", category: "dispute", paymentIntent: "pi_dispute_won" },
  { txn: "txn_dw_r", at: LATER, currency: "usd", gross: "15.00", category: "dispute_reversal", paymentIntent: "pi_dispute_won" },
  { txn: "txn_ok", at: AT, currency: "usd", gross: "25.00", fee: "1.03", category: "charge", paymentIntent: "pi_ok", orderId: "ord_ok", description: "Order 1, blue" },
  { txn: "txn_fee", at: LATER, currency: "usd", gross: "-2.00", category: "fee", description: "Radar, per screen" },
  // The same stories with the ledger up to date: a failed refund and a lost dispute booked as entries.
  { txn: "txn_fb_c", at: AT, currency: "usd", gross: "71.00", category: "charge", paymentIntent: "pi_refund_failed_booked" },
  { txn: "txn_fb_r", at: AT, currency: "usd", gross: "-71.00", category: "refund", paymentIntent: "pi_refund_failed_booked" },
  { txn: "txn_fb_f", at: LATER, currency: "usd", gross: "71.00", category: "refund_failure", paymentIntent: "pi_refund_failed_booked" },
  { txn: "txn_db_c", at: AT, currency: "usd", gross: "81.00", category: "charge", paymentIntent: "pi_dispute_booked" },
  { txn: "txn_db_d", at: LATER, currency: "usd", gross: "-81.00", category: "dispute", paymentIntent: "pi_dispute_booked" },
];

before(async () => {
  await book([
    { payment: "pi_ok", order: "ord_ok", credit: 2500 },
    { payment: "pi_jpy", order: "ord_jpy", credit: 500, currency: "JPY" },
    { payment: "pi_kwd", order: "ord_kwd", credit: 1250, currency: "KWD" },
    { payment: "pi_amount", order: "ord_amount", credit: 3000 },
    { payment: "pi_currency", order: "ord_currency", credit: 1000, currency: "EUR" },
    { payment: "pi_refund_missed", order: "ord_refund_missed", credit: 6000 },
    // The refund failed at the bank: Stripe gave the money back (refund_failure), the ledger still holds the refund.
    { payment: "pi_refund_failed", order: "ord_refund_failed", credit: 7000, refund: 7000 },
    { payment: "pi_dispute_lost", order: "ord_dispute_lost", credit: 8000 },
    { payment: "pi_dispute_won", order: "ord_dispute_won", credit: 1500 },
    { payment: "pi_refund_failed_booked", order: "ord_refund_failed_booked", credit: 7100, refund: 7100, extra: [{ kind: "refund_failed", amount: 7100, key: "refund-failed" }] },
    { payment: "pi_dispute_booked", order: "ord_dispute_booked", credit: 8100, extra: [{ kind: "dispute_withdrawal", amount: -8100, key: "dispute" }] },
    // Credited, never settled: a forged or phantom payment.
    { payment: "pi_phantom", order: "ord_phantom", credit: 9900, at: "2026-11-30T20:00:00Z" },
    // Out of scope: none of these may be flagged by a Stripe live report of acct_recon for [11-29, 12-01).
    { payment: "ypay_1", order: "ord_yolfi", credit: 5000, provider: "yolfi", account: "org_acredita_demo" },
    { payment: "pay_lab_1", order: "ord_lab", credit: 2500000, currency: "ARS", provider: "lab", account: "lab" },
    { payment: "pi_testleak", order: "ord_testleak", credit: 4200, livemode: false },
    { payment: "pi_other_account", order: "ord_other_account", credit: 4300, account: "acct_other" },
    { payment: "pi_old", order: "ord_old", credit: 4400, at: "2026-11-20T10:00:00Z" },
    { payment: "pi_next_period", order: "ord_next_period", credit: 4500, at: "2026-12-01T00:00:00Z" },
  ]);
});
after(closeDb);

const EXPECTED = [
  { code: "missing_credit", paymentId: "pi_missed", orderId: "ord_missed", currency: "USD", settled: 4000, booked: 0, line: 5, lines: [5] },
  { code: "amount_mismatch", paymentId: "pi_amount", orderId: "ord_amount", currency: "USD", settled: 2500, booked: 3000, line: 6, lines: [6] },
  { code: "currency_mismatch", paymentId: "pi_currency", orderId: "ord_currency", currency: "USD", settled: 1000, booked: 1000, line: 7, lines: [7] },
  { code: "refund_mismatch", paymentId: "pi_refund_missed", orderId: "ord_refund_missed", currency: "USD", settled: 6000, booked: 0, line: 8, lines: [8, 9] },
  { code: "refund_mismatch", paymentId: "pi_refund_failed", orderId: "ord_refund_failed", currency: "USD", settled: 0, booked: 7000, line: 10, lines: [10, 11, 12] },
  { code: "dispute_mismatch", paymentId: "pi_dispute_lost", orderId: "ord_dispute_lost", currency: "USD", settled: 8000, booked: 0, line: 13, lines: [13, 14] },
  { code: "duplicate_row", paymentId: "pi_ok", orderId: "ord_ok", currency: "USD", settled: 2500, booked: 0, line: 2, lines: [2, 18] },
  { code: "unsettled_credit", paymentId: "pi_phantom", orderId: "ord_phantom", currency: "USD", settled: 0, booked: 9900, line: null, lines: [] },
];

function byLine<T extends { line: number | null; code: string }>(rows: T[]): T[] {
  return [...rows].sort((a, b) => (a.line ?? 1e9) - (b.line ?? 1e9) || a.code.localeCompare(b.code));
}

describe("a Stripe itemized balance change report against the ledger of stripe:acct_recon:live", () => {
  test("every mismatch code once, with its amounts, lines and next action; a failed refund and a dispute booked as ledger entries match; nothing of another provider, account, mode or period", async () => {
    const { outcome, summary, mismatches } = await runReport(await db(), stripeReport(LINES), { from: "2026-11-29", to: "2026-12-01" });
    assert.deepEqual(outcome, { status: "done", mismatchCount: 8, rowCount: 23 });
    assert.deepEqual(
      byLine(mismatches).map(({ nextAction, ...rest }) => (assert.ok(nextAction.length > 20, rest.code), rest)),
      byLine(EXPECTED),
    );
    assert.deepEqual([summary.status, summary.scope, summary.period, summary.format], ["done", { provider: "stripe", account: "acct_recon", livemode: true }, { from: "2026-11-29T00:00:00.000Z", to: "2026-12-01T00:00:00.000Z" }, "stripe-balance-change"]);
    // Gross, fees and net from the file (the duplicate left out); credited and refunded from the ledger of the scope and period.
    assert.deepEqual(summary.totals, {
      USD: {
        gross: 2500 + 4000 + 2500 + 1000 + 6000 - 6000 + 7000 - 7000 + 7000 + 8000 - 8000 + 1500 - 1500 + 1500 - 200 + 7100 - 7100 + 7100 + 8100 - 8100,
        fees: 103 + 1500,
        net: 2500 - 103 + 4000 + 2500 + 1000 + 7000 + 1500 - 1500 - 200 + 7100,
        credited: 2500 + 3000 + 6000 + 7000 + 8000 + 1500 + 9900 + 7100 + 8100,
        refunded: 7000 + 0,
        overCredited: 500 + 9900,
        underCredited: 4000,
      },
      JPY: { gross: 500, fees: 35, net: 465, credited: 500, refunded: 0, overCredited: 0, underCredited: 0 },
      KWD: { gross: 1250, fees: 45, net: 1205, credited: 1250, refunded: 0, overCredited: 0, underCredited: 0 },
      EUR: { gross: 0, fees: 0, net: 0, credited: 1000, refunded: 0, overCredited: 0, underCredited: 0 },
    });
    assert.deepEqual(summary.overcredited, { USD: 10400, JPY: 0, KWD: 0, EUR: 0 });
  });

  test("without a period, the report's whole UTC days are the period: the same result", async () => {
    const { summary, mismatches } = await runReport(await db(), stripeReport(LINES, { bom: false, crlf: false }));
    assert.deepEqual(summary.period, { from: "2026-11-29T00:00:00.000Z", to: "2026-12-01T00:00:00.000Z" });
    assert.deepEqual(byLine(mismatches).map((m) => [m.code, m.paymentId]), byLine(EXPECTED).map((m) => [m.code, m.paymentId]));
  });

  test("the test-mode report of the same account sees only the test-mode leak; another account's report only its own credit", async () => {
    const testMode = await runReport(await db(), stripeReport([{ txn: "txn_t1", at: AT, currency: "usd", gross: "42.00", category: "charge", paymentIntent: "pi_testleak" }]), { livemode: false });
    assert.deepEqual([testMode.summary.scope, testMode.mismatches], [{ provider: "stripe", account: "acct_recon", livemode: false }, []]);
    const other = await runReport(await db(), stripeReport([{ txn: "txn_o1", at: AT, currency: "usd", gross: "1.00", category: "charge", paymentIntent: "pi_o1" }]), { account: "acct_other" });
    assert.deepEqual(
      other.mismatches.map((m) => [m.code, m.paymentId, m.settled, m.booked]),
      [
        ["missing_credit", "pi_o1", 100, 0],
        ["unsettled_credit", "pi_other_account", 0, 4300],
      ].sort(),
    );
  });

  test("the payout reconciliation report: net per payout, in the payout's currency", async () => {
    const { summary, mismatches } = await runReport(
      await db(),
      stripeReport(
        [
          { txn: "txn_p1", at: AT, currency: "jpy", gross: "500", fee: "35", category: "charge", paymentIntent: "pi_jpy", payout: "po_jpy" },
          { txn: "txn_p2", at: AT, currency: "kwd", gross: "1.250", fee: "0.045", category: "charge", paymentIntent: "pi_kwd", payout: "po_kwd" },
          { txn: "txn_p3", at: AT, currency: "kwd", gross: "-0.100", category: "fee", payout: "po_kwd" },
        ],
        { payout: true },
      ),
      { from: "2026-11-29T00:00:00Z", to: "2026-11-29T23:59:59Z" },
    );
    assert.equal(summary.format, "stripe-payout-reconciliation");
    assert.deepEqual(summary.payouts, { po_jpy: { currency: "JPY", net: 465 }, po_kwd: { currency: "KWD", net: 1205 - 100 } });
    // In that period the USD credits are unsettled by this report: it lists only the payouts' JPY and KWD charges.
    assert.deepEqual([...new Set(mismatches.map((m) => m.code))], ["unsettled_credit"]);
    assert.deepEqual(mismatches.map((m) => m.paymentId).sort(), ["pi_amount", "pi_currency", "pi_dispute_booked", "pi_dispute_lost", "pi_dispute_won", "pi_ok", "pi_refund_failed", "pi_refund_failed_booked", "pi_refund_missed"]);
  });

  test("payouts are kept for the first 1,000 only (a report of one-line payouts cannot grow a run's row); a payout id is never a property name", async () => {
    const lines: ReportLine[] = Array.from({ length: MAX_PAYOUTS_PER_RUN + 200 }, (_, index) => ({ txn: `txn_many_${index}`, at: AT, currency: "usd", gross: "-1.00", category: "fee", payout: index === 0 ? "__proto__" : `po_many_${index}` }));
    const { summary } = await runReport(await db(), stripeReport(lines, { payout: true }), { account: "acct_payouts" });
    assert.equal(summary.status, "done");
    const stored = JSON.parse((await (await db()).reconciliationRun.findUniqueOrThrow({ where: { id: summary.id } })).payouts) as Record<string, unknown>;
    assert.equal(Object.keys(stored).length, MAX_PAYOUTS_PER_RUN);
    assert.deepEqual(stored.__proto__, { currency: "USD", net: -100 });
    assert.deepEqual(summary.payouts.po_many_1, { currency: "USD", net: -100 });
    assert.equal(summary.payouts.po_many_1100, undefined);
    // Every line is in the totals, listed payout or not.
    assert.equal(summary.totals.USD.net, -100 * (MAX_PAYOUTS_PER_RUN + 200));
    assert.equal((Object.prototype as { net?: unknown }).net, undefined);
  });

  test("a bad line fails the run with its line number and keeps no mismatch; the scope is free again", async () => {
    const csv = stripeReport([LINES[0], { ...LINES[1], txn: "txn_bad", currency: "usd", gross: "25,00" }]);
    const { outcome, summary, mismatches } = await runReport(await db(), csv);
    assert.deepEqual(outcome, { status: "failed", error: 'line 3: gross: "25,00" is not a decimal amount like 25.00', reason: { code: "report_line", params: { line: 3, problem: { code: "report_bad_decimal", params: { column: "gross", value: "25,00" } } } } });
    assert.deepEqual([summary.status, summary.error, mismatches.length], ["failed", 'line 3: gross: "25,00" is not a decimal amount like 25.00', 0]);
    assert.equal((await (await db()).reconciliationRun.findUniqueOrThrow({ where: { id: summary.id } })).activeScope, null);
    assert.equal(await (await db()).reconciliationEntry.count(), 0);
  });
});
