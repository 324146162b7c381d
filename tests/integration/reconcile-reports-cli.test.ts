import { TEST_DB } from "@/e2e/support/test-env";
// `npm run reconcile` with Stripe's reports and the neutral payments CSV, after real deliveries of three
// providers (Stripe, Yolfi, the lab): each report sees only its own scope; bad inputs are answered with
// the exact problem and its line number, before anything is queued when the file itself is wrong.
// The command's main runs in this process (e2e/http/cli-smoke.test.ts runs the script once).
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { closeDb, db } from "@/lib/db/client";
import { createOrder, deliverLab, labEvent } from "@/e2e/support/http";
import { deliverStripe, deliverYolfi, paymentIntent, stripeEvent, yolfiEvent } from "@/e2e/support/providers";
import { stripeReport } from "@/e2e/support/stripe-reports";
import { runMain } from "@/e2e/support/cli";
import { main as reconcile } from "@/scripts/reconcile";

process.env.WEBHOOK_PROCESSING_MODE = "inline";
const STRIPE_SECRET = "whsec_reconcile_cli_0001";
const YOLFI_SECRET = "yolfi_reconcile_cli_0001";
const ENV = { STRIPE_WEBHOOK_SECRET: STRIPE_SECRET, STRIPE_ACCOUNT_ID: "acct_cli", YOLFI_WEBHOOK_SECRET: YOLFI_SECRET, YOLFI_ORG_ID: "org_cli" };
Object.assign(process.env, ENV);

const folder = mkdtempSync(path.join(tmpdir(), "acredita-reconcile-reports-"));
const TODAY = new Date().toISOString().slice(0, 10);
const AT = `${TODAY} 12:00:00`;

async function cli(content: string | Buffer, ...flags: string[]) {
  const file = path.join(folder, `report-${Math.random().toString(36).slice(2)}.csv`);
  writeFileSync(file, content);
  const result = await runMain(reconcile, [file, ...flags], { ...process.env, ...ENV, DATABASE_URL: TEST_DB.url });
  return { code: result.code, stdout: result.stdout.trim(), stderr: result.stderr.trim(), file };
}

before(async () => {
  for (const [id, amount, currency] of [["ord_c_stripe", 2500, "USD"], ["ord_c_stripe_jpy", 500, "JPY"], ["ord_c_yolfi", 150000, "ARS"], ["ord_c_lab", 1850000, "ARS"]] as const) assert.equal((await createOrder(id, amount, currency)).status, 201, id);
  const stripePaid = await deliverStripe(JSON.stringify(stripeEvent("evt_c_pi", "payment_intent.succeeded", paymentIntent({ id: "pi_c_1", orderId: "ord_c_stripe", amount: 2500, currency: "usd" }), { account: "acct_cli" })), { secret: STRIPE_SECRET });
  assert.equal(stripePaid.json.outcome, "applied", stripePaid.json.reason);
  const stripeJpy = await deliverStripe(JSON.stringify(stripeEvent("evt_c_pi_jpy", "payment_intent.succeeded", paymentIntent({ id: "pi_c_jpy", orderId: "ord_c_stripe_jpy", amount: 500, currency: "jpy" }), { account: "acct_cli" })), { secret: STRIPE_SECRET });
  assert.equal(stripeJpy.json.outcome, "applied", stripeJpy.json.reason);
  const yolfi = await deliverYolfi(yolfiEvent({ id: "evt_c_y", type: "payment.confirmed", orgId: "org_cli", data: { invoiceId: "inv_c", amount: "24.95", token: "USDT", paymentId: "ypay_c_1", merchantOrderId: "ord_c_yolfi" } }), { secret: YOLFI_SECRET });
  assert.equal(yolfi.json.outcome, "applied", yolfi.json.reason);
  const lab = await deliverLab(labEvent("evt_c_lab", "payment.approved", "ord_c_lab", "pay_c_lab", 1850000));
  assert.equal(lab.json.outcome, "applied", lab.json.reason);
  await closeDb();
});
after(closeDb);

const STRIPE_LINES = [
  { txn: "txn_c1", at: AT, currency: "usd", gross: "25.00", fee: "1.03", category: "charge", paymentIntent: "pi_c_1", orderId: "ord_c_stripe", description: "Order c, one, two" },
  { txn: "txn_c2", at: AT, currency: "jpy", gross: "500", fee: "35", category: "charge", paymentIntent: "pi_c_jpy" },
];

describe("npm run reconcile with a Stripe report", () => {
  test("a report that agrees with Stripe's credits: exit 0, the totals per currency in major units; no Yolfi or lab order is flagged", async () => {
    const result = await cli(stripeReport(STRIPE_LINES));
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(result.stdout.split("\n"), [
      "TOTAL JPY: gross 500, fees 35, net 465; credited 500, refunded 0; over-credited 0, under-credited 0",
      "TOTAL USD: gross 25.00, fees 1.03, net 23.97; credited 25.00, refunded 0.00; over-credited 0.00, under-credited 0.00",
      `0 mismatches in 2 report lines; scope stripe:acct_cli:live; period [${TODAY}T00:00:00.000Z to ${nextDay()}T00:00:00.000Z)`,
    ]);
  });

  test("mismatches: one line each with the code, amounts, lines and next action; exit 1; --json streams the same as one document", async () => {
    const lines = [{ ...STRIPE_LINES[0], gross: "20.00", fee: "0.00" }, { txn: "txn_c3", at: AT, currency: "usd", gross: "9.99", category: "charge", paymentIntent: "pi_c_unknown" }];
    const text = await cli(stripeReport(lines));
    assert.equal(text.code, 1, text.stderr);
    assert.deepEqual(text.stdout.split("\n"), [
      "MISMATCH amount_mismatch pi_c_1 (order ord_c_stripe): settled 20.00 USD, booked 25.00 USD; line 2; next: compare the payment with the order in the provider's dashboard; refund or correct the order",
      "MISMATCH missing_credit pi_c_unknown: settled 9.99 USD, booked 0.00 USD; line 3; next: find the payment's webhook in the dead letters or the provider's event log, then retry or resend it",
      "MISMATCH unsettled_credit pi_c_jpy (order ord_c_stripe_jpy): settled 0 JPY, booked 500 JPY; not in the report; next: check the payment in the provider's dashboard; if it does not exist there, reverse the credit and investigate which secret signed it",
      "TOTAL JPY: gross 0, fees 0, net 0; credited 500, refunded 0; over-credited 500, under-credited 0",
      "TOTAL USD: gross 29.99, fees 0.00, net 29.99; credited 25.00, refunded 0.00; over-credited 5.00, under-credited 9.99",
      `3 mismatches in 2 report lines; scope stripe:acct_cli:live; period [${TODAY}T00:00:00.000Z to ${nextDay()}T00:00:00.000Z)`,
    ]);
    // In es-AR: the mismatch lines, the totals and the last line translated, money formatted by currency.
    const spanish = await cli(stripeReport(lines), "--locale", "es-AR");
    assert.equal(spanish.code, 1, spanish.stderr);
    assert.deepEqual(spanish.stdout.split("\n").slice(3), [
      "TOTAL JPY: bruto JPY 0, comisiones JPY 0, neto JPY 0; acreditado JPY 500, reembolsado JPY 0; acreditado de más JPY 500, acreditado de menos JPY 0",
      "TOTAL USD: bruto US$ 29,99, comisiones US$ 0,00, neto US$ 29,99; acreditado US$ 25,00, reembolsado US$ 0,00; acreditado de más US$ 5,00, acreditado de menos US$ 9,99",
      `3 diferencias en 2 líneas del reporte; alcance stripe:acct_cli:live; período [${TODAY}T00:00:00.000Z a ${nextDay()}T00:00:00.000Z)`,
    ]);
    const json = await cli(stripeReport(lines), "--json", "--format", "stripe-balance");
    assert.equal(json.code, 1, json.stderr);
    const report = JSON.parse(json.stdout) as { format: string; rowCount: number; mismatchCount: number; mismatches: { code: string; paymentId: string; settled: number; booked: number; line: number | null }[]; totals: Record<string, { overCredited: number }> };
    assert.deepEqual([report.format, report.rowCount, report.mismatchCount], ["stripe-balance-change", 2, 3]);
    assert.deepEqual(report.mismatches.map((m) => [m.code, m.paymentId, m.settled, m.booked, m.line]), [["amount_mismatch", "pi_c_1", 2000, 2500, 2], ["missing_credit", "pi_c_unknown", 999, 0, 3], ["unsettled_credit", "pi_c_jpy", 0, 500, null]]);
  });

  test("the neutral payments CSV reconciles the Yolfi scope it names; without --provider it is refused", async () => {
    const csv = `transaction_id,created_at,kind,payment_id,order_id,amount,currency,fee\nyt_1,${TODAY}T12:00:00Z,charge,ypay_c_1,ord_c_yolfi,150000,ARS,1500\n`;
    const ok = await cli(csv, "--provider", "yolfi");
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout.split("\n").at(-1), `0 mismatches in 1 report line; scope yolfi:org_cli:live; period [${TODAY}T00:00:00.000Z to ${nextDay()}T00:00:00.000Z)`);
    const refused = await cli(csv);
    assert.deepEqual([refused.code, refused.stderr], [2, `reconcile: ${refused.file}: --provider: the payments CSV needs its provider (yolfi, standard-webhooks, ...)`]);
  });

  test("a report's fields cannot drive the terminal: an id with an escape sequence is refused, a bad cell quoted in an error is printed escaped", async () => {
    const hostile = "ypay_\u001b]0;OWNED\u0007\u001b[2K\u001b[32mOK";
    const csv = `transaction_id,created_at,kind,payment_id,order_id,amount,currency,fee\nyt_esc,${TODAY}T12:00:00Z,charge,ypay_c_1,ord_c_yolfi,150000,ARS,1500\nyt_esc2,${TODAY}T12:00:00Z,charge,"${hostile}",,100,ARS,0\n`;
    const refusedId = await cli(csv, "--provider", "yolfi");
    assert.deepEqual([refusedId.code, refusedId.stderr], [2, `reconcile: ${refusedId.file}: line 3: payment_id: not an id`]);
    const badKind = await cli(`transaction_id,created_at,kind,payment_id,order_id,amount,currency,fee\nyt_k,${TODAY}T12:00:00Z,charge,ypay_k,,"\u001b]0;PWNED\u0007\u001b[2J",ARS,0\n`, "--provider", "yolfi");
    assert.equal(badKind.code, 2, badKind.stderr);
    assert.equal(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(badKind.stderr), false, JSON.stringify(badKind.stderr));
    assert.equal(badKind.stderr, `reconcile: ${badKind.file}: line 2: amount: "\\x1b]0;PWNED\\x07\\x1b[2J" must be a whole number of minor units`);
  });

  test("the lab's file still reconciles the lab alone: 0 mismatches after Stripe's and Yolfi's credits", async () => {
    const result = await cli("order_id,provider_status,amount,currency\nord_c_lab,approved,1850000,ARS\n");
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "0 mismatches in 1 settlement row and 1 order; over-credited: ARS 0.00");
  });
});

describe("bad inputs are answered with the exact problem and line, nothing queued for a bad file", () => {
  test("missing column, bad decimal, unquoted decimal comma, empty, binary, a format that does not fit, bad options", async () => {
    const before = await (await db()).reconciliationRun.count();
    const header = stripeReport([]).replace(/^\uFEFF/, "").split("\r\n")[0];
    const noFee = await cli(header.replace(",fee,", ",") + "\r\n");
    assert.deepEqual([noFee.code, noFee.stderr], [2, `reconcile: ${noFee.file}: line 1: missing column(s) for stripe-balance-change: fee`]);
    const noPaymentColumn = await cli("balance_transaction_id,created_utc,currency,gross,fee,net,reporting_category\r\ntxn_1,2026-11-29 12:00:00,usd,25.00,0,25.00,charge\r\n");
    assert.deepEqual([noPaymentColumn.code, noPaymentColumn.stderr], [2, `reconcile: ${noPaymentColumn.file}: line 1: no payment column for stripe-balance-change: one of payment_intent_id, charge_id, source_id is needed to match its lines to payments`]);
    const empty = await cli("");
    assert.deepEqual([empty.code, empty.stderr], [2, `reconcile: ${empty.file}: line 1: empty file: expected a header row`]);
    const binary = await cli(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x08, 0x00]));
    assert.deepEqual([binary.code, binary.stderr], [2, `reconcile: ${binary.file}: line 1: binary file: expected a CSV report with a header row`]);
    const wrongFormat = await cli(stripeReport(STRIPE_LINES), "--format", "lab");
    assert.deepEqual([wrongFormat.code, wrongFormat.stderr], [2, `reconcile: ${wrongFormat.file}: line 1: missing column(s) for lab: order_id, provider_status, amount`]);
    const unknownFormat = await cli(stripeReport(STRIPE_LINES), "--format", "excel");
    assert.deepEqual([unknownFormat.code, unknownFormat.stderr], [2, `reconcile: ${unknownFormat.file}: --format: "excel" must be one of stripe-balance, stripe-payout, neutral, lab`]);
    const badPeriod = await cli(stripeReport(STRIPE_LINES), "--from", "2026-12-02", "--to", "2026-12-01");
    assert.deepEqual([badPeriod.code, badPeriod.stderr], [2, `reconcile: ${badPeriod.file}: --from must be before --to (the period is [from, to))`]);
    const badDate = await cli(stripeReport(STRIPE_LINES), "--from", "yesterday");
    assert.deepEqual([badDate.code, badDate.stderr], [2, `reconcile: ${badDate.file}: --from: "yesterday" is not an ISO 8601 date or time (e.g. 2026-11-01 or 2026-11-01T00:00:00Z)`]);
    assert.equal(await (await db()).reconciliationRun.count(), before);

    // Lines are found bad while the run reads them: the run is kept as failed, with the answer.
    const quoted = await cli(stripeReport([STRIPE_LINES[0], { ...STRIPE_LINES[0], txn: "txn_bad", gross: "25,00" }]));
    assert.deepEqual([quoted.code, quoted.stderr], [2, `reconcile: ${quoted.file}: line 3: gross: "25,00" is not a decimal amount like 25.00`]);
    const unquoted = await cli(stripeReport([STRIPE_LINES[0]]).replace(",25.00,1.03,23.97,", ",25,00,1.03,23.97,"));
    assert.deepEqual([unquoted.code, unquoted.stderr], [2, `reconcile: ${unquoted.file}: line 2: 22 fields where the header has 21 (an unquoted comma in a value?)`]);
    const spanish = await cli(stripeReport([STRIPE_LINES[0], { ...STRIPE_LINES[0], txn: "txn_bad", gross: "25,00" }]), "--locale", "es-AR");
    assert.deepEqual([spanish.code, spanish.stderr], [2, `reconcile: ${spanish.file}: línea 3: gross: "25,00" no es un importe decimal como 25.00 (con punto decimal)`]);
    const spanishScope = await cli(stripeReport(STRIPE_LINES), "--from", "yesterday", "--locale", "es-AR");
    assert.deepEqual([spanishScope.code, spanishScope.stderr], [2, `reconcile: ${spanishScope.file}: --from: "yesterday" no es una fecha u hora ISO 8601 (por ejemplo 2026-11-01 o 2026-11-01T00:00:00Z)`]);
    const runs = await (await db()).reconciliationRun.findMany({ orderBy: { startedAt: "asc" }, skip: before });
    assert.deepEqual(runs.map((run) => [run.status, run.error]), [
      ["failed", 'line 3: gross: "25,00" is not a decimal amount like 25.00'],
      ["failed", "line 2: 22 fields where the header has 21 (an unquoted comma in a value?)"],
      ["failed", 'line 3: gross: "25,00" is not a decimal amount like 25.00'],
    ]);
  });
});

function nextDay(): string {
  return new Date(Date.parse(`${TODAY}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}
