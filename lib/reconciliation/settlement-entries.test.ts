import assert from "node:assert/strict";
import { test } from "node:test";
import { detectFormat, readSettlementEntries, type SettlementEntry } from "@/lib/reconciliation/settlement-entries";
import { MAX_REPORT_ID_CHARS, MAX_STRIPE_ID_CHARS, SettlementCsvError } from "@/lib/reconciliation/report-fields";

async function collect(csv: string, format?: Parameters<typeof readSettlementEntries>[1]): Promise<SettlementEntry[]> {
  const entries: SettlementEntry[] = [];
  for await (const entry of readSettlementEntries(csv, format)) entries.push(entry);
  return entries;
}

async function failure(csv: string): Promise<string> {
  try {
    await collect(csv);
  } catch (error) {
    assert.ok(error instanceof SettlementCsvError, String(error));
    return error.message;
  }
  assert.fail("expected a SettlementCsvError");
}

// Columns as Stripe's Dashboard exports "Itemized balance change from activity" (a subset, in its order,
// with columns Acredita does not read left in).
const BALANCE_CHANGE = [
  "balance_transaction_id,created_utc,created,available_on_utc,currency,gross,fee,net,reporting_category,source_id,description,customer_facing_amount,customer_facing_currency,customer_id,charge_id,payment_intent_id,payment_metadata[order_id]",
  'txn_1,2026-11-29 12:00:00,2026-11-29 09:00:00,2026-12-01 00:00:00,usd,25.00,1.03,23.97,charge,ch_1,"Order 1, blue",25.00,usd,cus_1,ch_1,pi_1,ord_1',
  "txn_2,2026-11-29 13:30:05,2026-11-29 10:30:05,2026-12-01 00:00:00,usd,-10.00,0.00,-10.00,refund,re_1,,10.00,usd,cus_1,ch_1,pi_1,ord_1",
  "txn_3,2026-11-30 08:00:00,2026-11-30 05:00:00,2026-12-02 00:00:00,jpy,500,35,465,charge,ch_2,,500,jpy,cus_2,ch_2,pi_2,",
  "txn_4,2026-11-30 09:00:00,2026-11-30 06:00:00,2026-12-02 00:00:00,kwd,-1.250,15.000,-16.250,dispute,du_1,,,,,ch_3,pi_3,ord_3",
  "txn_5,2026-11-30 10:00:00,2026-11-30 07:00:00,2026-12-02 00:00:00,usd,-0.50,0.00,-0.50,tax,txr_1,,,,,,,",
].join("\n");

test("Stripe's itemized balance change report: decimal major units become minor units by each currency's exponent", async () => {
  assert.equal(detectFormat(BALANCE_CHANGE.split("\n")[0].split(",")), "stripe-balance-change");
  const entries = await collect(BALANCE_CHANGE);
  assert.deepEqual(
    entries.map((entry) => [entry.line, entry.transactionId, entry.createdAt.toISOString(), entry.kind, entry.paymentId, entry.orderId, entry.currency, entry.gross, entry.fee, entry.net]),
    [
      [2, "txn_1", "2026-11-29T12:00:00.000Z", "charge", "pi_1", "ord_1", "USD", 2500, 103, 2397],
      [3, "txn_2", "2026-11-29T13:30:05.000Z", "refund", "pi_1", "ord_1", "USD", -1000, 0, -1000],
      [4, "txn_3", "2026-11-30T08:00:00.000Z", "charge", "pi_2", undefined, "JPY", 500, 35, 465],
      [5, "txn_4", "2026-11-30T09:00:00.000Z", "dispute", "pi_3", "ord_3", "KWD", -1250, 15000, -16250],
      [6, "txn_5", "2026-11-30T10:00:00.000Z", "other", "txr_1", undefined, "USD", -50, 0, -50],
    ],
  );
  assert.equal(entries[4].category, "tax");
});

test("Stripe's itemized payout reconciliation report is told apart by automatic_payout_id and keeps the payout", async () => {
  const csv = "automatic_payout_id,automatic_payout_effective_at_utc,balance_transaction_id,created_utc,currency,gross,fee,net,reporting_category,source_id,charge_id,payment_intent_id\npo_1,2026-12-02 00:00:00,txn_9,2026-11-29 12:00:00,eur,49.90,1.70,48.20,charge,ch_9,ch_9,pi_9\n";
  const [entry] = await collect(csv);
  assert.deepEqual([entry.payoutId, entry.paymentId, entry.chargeId, entry.gross, entry.fee, entry.net, entry.currency], ["po_1", "pi_9", "ch_9", 4990, 170, 4820, "EUR"]);
});

test("the provider-neutral payments CSV: signed minor units, optional fee and order", async () => {
  const csv = "transaction_id,created_at,kind,payment_id,order_id,amount,currency,fee,extra_column\nyt_1,2026-11-29T12:00:00Z,charge,ypay_1,ord_1,5000,usd,150,x\nyt_2,2026-11-29T13:00:00+01:00,refund,ypay_1,,-5000,USD,,y\n";
  assert.deepEqual(
    (await collect(csv)).map((entry) => [entry.transactionId, entry.createdAt.toISOString(), entry.kind, entry.paymentId, entry.orderId, entry.gross, entry.fee, entry.net, entry.currency]),
    [
      ["yt_1", "2026-11-29T12:00:00.000Z", "charge", "ypay_1", "ord_1", 5000, 150, 4850, "USD"],
      ["yt_2", "2026-11-29T12:00:00.000Z", "refund", "ypay_1", undefined, -5000, 0, -5000, "USD"],
    ],
  );
});

test("bad input names the line and the column; a missing required column is named", async () => {
  const header = BALANCE_CHANGE.split("\n")[0];
  assert.equal(await failure(`${header}\ntxn_1,2026-11-29 12:00:00,x,x,usd,"25,00",0,25.00,charge,ch_1,,,,,ch_1,pi_1,`), 'line 2: gross: "25,00" is not a decimal amount like 25.00');
  assert.equal(await failure(`${header}\ntxn_1,2026-11-29 12:00:00,x,x,zzz,25.00,0,25.00,charge,ch_1,,,,,ch_1,pi_1,`), 'line 2: currency: "zzz" is not an ISO 4217 currency');
  assert.equal(await failure(`${header}\ntxn_1,29/11/2026,x,x,usd,25.00,0,25.00,charge,ch_1,,,,,ch_1,pi_1,`), 'line 2: created_utc: "29/11/2026" is not a UTC date and time like 2026-11-29 12:00:00');
  assert.equal(await failure(`${header}\ntxn_1,2026-11-29 12:00:00,x,x,jpy,500.5,0,500.5,charge,ch_1,,,,,ch_1,pi_1,`), 'line 2: gross: "500.5" has more decimals than JPY has (0)');
  assert.equal(await failure("balance_transaction_id,created_utc,currency,gross,net,reporting_category\n"), "line 1: missing column(s) for stripe-balance-change: fee");
  assert.equal(await failure("transaction_id,created_at,kind,amount,currency\n"), "line 1: missing column(s) for payments: payment_id");
  // A Stripe report with none of its payment columns could match no line to a credit: refused at line 1.
  assert.equal(
    await failure("balance_transaction_id,created_utc,currency,gross,fee,net,reporting_category\ntxn_1,2026-11-29 12:00:00,usd,25.00,0,25.00,charge\n"),
    "line 1: no payment column for stripe-balance-change: one of payment_intent_id, charge_id, source_id is needed to match its lines to payments",
  );
  assert.equal(await failure("transaction_id,created_at,kind,payment_id,amount,currency\nt1,2026-11-29T12:00:00Z,charge,p1,12.50,USD\n"), 'line 2: amount: "12.50" must be a whole number of minor units');
  assert.equal(await failure("transaction_id,created_at,kind,payment_id,amount,currency\nt1,2026-11-29T12:00:00Z,payout,p1,100,USD\n"), 'line 2: kind: "payout" must be one of charge, refund, dispute, dispute_reversal, fee, adjustment');
  assert.equal(await failure("id,amount\n1,2\n"), "line 1: unknown settlement format: expected a Stripe itemized report (balance_transaction_id, ...), the payments CSV (transaction_id, ...) or the lab's (order_id, provider_status, ...)");
  assert.equal(await failure("order_id,provider_status,amount,currency\nord_1,approved,100,ARS\n"), "line 1: the lab's order-level file is not a payment-level report");
  assert.equal(await failure(""), "line 1: empty file: expected a header row");
});

test("an id holding a control character is refused, optional ids too: no newline or escape sequence reaches a page, a CLI line or an export", async () => {
  const header = "transaction_id,created_at,kind,payment_id,order_id,amount,currency";
  // A quoted newline makes the record two lines long: the error names the line where it ends.
  assert.equal(await failure(`${header}\nt1,2026-11-29T12:00:00Z,charge,"p1\nALL GOOD: 0 mismatches",,100,USD\n`), "line 3: payment_id: not an id");
  assert.equal(await failure(`${header}\nt1,2026-11-29T12:00:00Z,charge,p1,ord\u001b[2J,100,USD\n`), "line 2: order_id: not an id");
  assert.equal(await failure(`${header}\nt1,2026-11-29T12:00:00Z,charge,p1\u202e,,100,USD\n`), "line 2: payment_id: not an id");
  const stripeHeader = BALANCE_CHANGE.split("\n")[0];
  assert.equal(await failure(`${stripeHeader}\ntxn_1,2026-11-29 12:00:00,x,x,usd,25.00,0,25.00,charge,ch_1,,,,,ch_1,pi_1,ord\u00071`), "line 2: payment_metadata[order_id]: not an id");
});

test("a Stripe id longer than MAX_STRIPE_ID_CHARS (100) is refused at its line, naming the column and the bound; 100 characters pass; order ids keep the order's bound (255)", async () => {
  assert.equal(MAX_STRIPE_ID_CHARS, 100);
  const stripeHeader = BALANCE_CHANGE.split("\n")[0];
  const line = (paymentIntent: string, orderId = "ord_1") => `txn_1,2026-11-29 12:00:00,x,x,usd,25.00,0,25.00,charge,ch_1,,,,,ch_1,${paymentIntent},${orderId}`;
  const atBound = `pi_${"a".repeat(97)}`;
  assert.deepEqual((await collect(`${stripeHeader}\n${line(atBound)}\n`)).map((entry) => entry.paymentId), [atBound]);
  assert.equal(await failure(`${stripeHeader}\n${line(atBound)}\n${line(`${atBound}b`)}\n`), "line 3: payment_intent_id: longer than 100 characters, longer than any id of its kind");
  assert.equal(await failure(`${stripeHeader}\n${line("pi_1").replace("txn_1", `txn_${"x".repeat(97)}`)}\n`), "line 2: balance_transaction_id: longer than 100 characters, longer than any id of its kind");
  const longOrder = `ord_${"o".repeat(251)}`;
  assert.deepEqual((await collect(`${stripeHeader}\n${line("pi_1", longOrder)}\n`)).map((entry) => entry.orderId), [longOrder]);
  assert.equal(await failure(`${stripeHeader}\n${line("pi_1", `${longOrder}o`)}\n`), "line 2: payment_metadata[order_id]: longer than 255 characters, longer than any id of its kind");
  // The payments CSV (Yolfi, Standard Webhooks senders) is bounded by what their webhooks may carry (255).
  const header = "transaction_id,created_at,kind,payment_id,order_id,amount,currency";
  assert.equal(MAX_REPORT_ID_CHARS, 255);
  assert.equal(await failure(`${header}\nt1,2026-11-29T12:00:00Z,charge,${"p".repeat(256)},,100,USD\n`), "line 2: payment_id: longer than 255 characters, longer than any id of its kind");
});
