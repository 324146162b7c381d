import assert from "node:assert/strict";
import { test } from "node:test";
import { formatOfHead } from "@/lib/reconciliation/report-head";
import { SettlementCsvError } from "@/lib/reconciliation/report-fields";
import { readSettlementEntries } from "@/lib/reconciliation/settlement-entries";
import { resolveScope, ScopeError } from "@/lib/reconciliation/run-scope";
import { readStoredReason, reasonColumns } from "@/lib/reasons/reason-codes";
import { cliReasons } from "@/lib/reasons/cli-reasons";

const es = cliReasons("es-AR");
const en = cliReasons("en");

async function refusal(csv: string): Promise<SettlementCsvError> {
  try {
    for await (const entry of readSettlementEntries(csv)) void entry;
  } catch (error) {
    if (error instanceof SettlementCsvError) return error;
    throw error;
  }
  throw new Error("expected a SettlementCsvError");
}

const PAYMENTS = "transaction_id,created_at,kind,payment_id,amount,currency";

test("a bad report's error keeps its English sentence and renders in es-AR from its stored code, line number formatted", async () => {
  const stripe = "balance_transaction_id,created_utc,currency,gross,fee,net,reporting_category,payment_intent_id";
  const cases: [string, string, string][] = [
    [`${stripe}\ntxn_1,2026-11-29 12:00:00,usd,"25,00",0,25.00,charge,pi_1`, 'line 2: gross: "25,00" is not a decimal amount like 25.00', 'línea 2: gross: "25,00" no es un importe decimal como 25.00 (con punto decimal)'],
    [`${stripe}\ntxn_1,2026-11-29 12:00:00,jpy,500.5,0,500.5,charge,pi_1`, 'line 2: gross: "500.5" has more decimals than JPY has (0)', 'línea 2: gross: "500.5" tiene más decimales de los que tiene JPY (0)'],
    [`${PAYMENTS}\nt1,2026-11-29T12:00:00Z,payout,p1,100,USD`, 'line 2: kind: "payout" must be one of charge, refund, dispute, dispute_reversal, fee, adjustment', 'línea 2: kind: "payout" debe ser uno de charge, refund, dispute, dispute_reversal, fee, adjustment'],
    [`${PAYMENTS}\nt1,2026-11-29T12:00:00Z,charge,p1,100,ZZZ`, 'line 2: currency: "ZZZ" is not an ISO 4217 currency', 'línea 2: currency: "ZZZ" no es una moneda ISO 4217'],
    [`${PAYMENTS}\n${"t,2026-11-29T12:00:00Z,charge,p,1,USD\n".repeat(1233)}t1,29/11/2026,charge,p1,100,USD`, 'line 1235: created_at: "29/11/2026" is not a UTC date and time like 2026-11-29 12:00:00', 'línea 1.235: created_at: "29/11/2026" no es una fecha y hora UTC como 2026-11-29 12:00:00'],
    [`${PAYMENTS}\nt1,2026-11-29T12:00:00Z,charge,,100,USD`, "line 2: payment_id: missing", "línea 2: payment_id: falta el valor"],
    [`${PAYMENTS}\nt1,2026-11-29T12:00:00Z,charge,p1,100,USD,extra`, "line 2: 7 fields where the header has 6 (an unquoted comma in a value?)", "línea 2: 7 campos donde el encabezado tiene 6 (¿una coma sin comillas en un valor?)"],
    [`${PAYMENTS}\nt1,2026-11-29T12:00:00Z,charge,"p1,100,USD`, "line 2: not a valid CSV: Quote Not Closed: the parsing is finished with an opening quote at line 2", "línea 2: no es un CSV válido: una comilla nunca se cierra"],
    ["id,amount\n1,2", "line 1: unknown settlement format: expected a Stripe itemized report (balance_transaction_id, ...), the payments CSV (transaction_id, ...) or the lab's (order_id, provider_status, ...)", "línea 1: formato de liquidación desconocido: se esperaba un reporte detallado de Stripe (balance_transaction_id, ...), el CSV de pagos (transaction_id, ...) o el del laboratorio (order_id, provider_status, ...)"],
  ];
  for (const [csv, english, spanish] of cases) {
    const error = await refusal(csv);
    assert.equal(error.message, english);
    // What a failed run stores, read back as a page reads it.
    const stored = readStoredReason(reasonColumns(error.reason).reasonCode, reasonColumns(error.reason).reasonParams);
    assert.deepEqual(stored, error.reason);
    assert.equal(es.describe({ reason: error.message, ...reasonColumns(error.reason) }), spanish);
    assert.equal(en.render(error.reason, ""), english.replace(/^line 1235/, "line 1,235").replace(/: Quote Not Closed.*$/, ": a quote is never closed"));
  }
});

test("a refused upload's head and a refused scope render in es-AR", () => {
  const head = (text: string | Buffer) => {
    try {
      formatOfHead(Buffer.isBuffer(text) ? text : Buffer.from(text));
    } catch (error) {
      if (error instanceof SettlementCsvError) return es.render(error.reason, error.message);
      throw error;
    }
    throw new Error("expected a refusal");
  };
  assert.equal(head("   \n"), "línea 1: archivo vacío: se esperaba una fila de encabezado");
  assert.equal(head(Buffer.from([0x89, 0x50, 0x00])), "línea 1: archivo binario: se esperaba un reporte CSV con fila de encabezado");
  assert.equal(head("balance_transaction_id,created_utc,currency,gross,net,reporting_category\n"), "línea 1: falta(n) la(s) columna(s) para el reporte detallado de cambios de saldo de Stripe: fee");
  const scope = (request: Parameters<typeof resolveScope>[1]) => {
    try {
      resolveScope("payments", request, {});
    } catch (error) {
      if (error instanceof ScopeError) return [error.message, es.render(error.reason, error.message)];
      throw error;
    }
    throw new Error("expected a refusal");
  };
  assert.deepEqual(scope({}), ["--provider: the payments CSV needs its provider (yolfi, standard-webhooks, ...)", "--provider: el CSV de pagos necesita su proveedor (yolfi, standard-webhooks, ...)"]);
  assert.deepEqual(scope({ provider: "yolfi", account: "org_1", from: "2026-12-01", to: "2026-11-01" }), ["--from must be before --to (the period is [from, to))", "--from debe ser anterior a --to (el período es [desde, hasta))"]);
});

test("a line longer than 64 KiB is refused at that line without reading the rest of the field (csv-parse max_record_size)", async () => {
  // A quoted field of 8 MB that never closes: without the cap the parser would hold it all, then fail at the end.
  const huge = `${PAYMENTS}\nt1,2026-11-29T12:00:00Z,charge,"${"x".repeat(8 * 1024 * 1024)}`;
  const error = await refusal(huge);
  assert.equal(error.message, "line 2: line longer than 65536 characters: not a settlement report line");
  assert.equal(es.render(error.reason, ""), "línea 2: línea de más de 65.536 caracteres: no es una línea de un reporte de liquidación");
});

test("csv-parse's message quoting a hostile field is cut before it is stored with the run", async () => {
  const error = await refusal(`${PAYMENTS}\nt1,2026-11-29T12:00:00Z,charge,p1,100,${"\u0001".repeat(60_000)}"x`);
  assert.equal(error.problem.code, "report_not_csv");
  assert.equal(es.render(error.reason, ""), "línea 2: no es un CSV válido: una comilla se abre en medio de un campo");
  const details = String(error.problem.params.details);
  assert.equal(details.length <= 200, true, `${details.length}`);
  assert.equal(JSON.stringify(error.reason).length < 1_000, true);
});
