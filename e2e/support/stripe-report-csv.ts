// Stripe's itemized report CSVs written from the documented columns (docs.stripe.com/reports/report-types,
// "Itemized balance change from activity" and "Itemized payout reconciliation"), for reconciliation tests.
// Columns Acredita does not read are kept so the reader must ignore them; amounts are decimal strings in
// major units and currencies lower case, as Stripe writes them.

export const BALANCE_COLUMNS = [
  "balance_transaction_id",
  "created_utc",
  "created",
  "available_on_utc",
  "currency",
  "gross",
  "fee",
  "net",
  "reporting_category",
  "source_id",
  "description",
  "customer_facing_amount",
  "customer_facing_currency",
  "customer_id",
  "customer_email",
  "charge_id",
  "payment_intent_id",
  "charge_created_utc",
  "payment_method_type",
  "payment_metadata[order_id]",
  "payment_metadata[cart]",
] as const;

export const PAYOUT_COLUMNS = ["automatic_payout_id", "automatic_payout_effective_at_utc", ...BALANCE_COLUMNS] as const;

/** One report line: what a test says about it; the other documented columns get plausible values. */
export interface ReportLine {
  txn: string;
  at: string;
  currency: string;
  gross: string;
  fee?: string;
  net?: string;
  category: string;
  paymentIntent?: string;
  orderId?: string;
  description?: string;
  payout?: string;
}

function quote(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

function minus(a: string, b: string): string {
  // Test amounts have at most 3 decimals: exact in thousandths.
  const scale = Math.max(a.split(".")[1]?.length ?? 0, b.split(".")[1]?.length ?? 0);
  const value = Math.round(Number(a) * 1000) - Math.round(Number(b) * 1000);
  return (value / 1000).toFixed(scale);
}

/**
 * A report CSV as Stripe exports it: a UTF-8 BOM, CRLF line ends, every documented column (those not
 * given left empty or filled as Stripe would), quoted values where they hold commas.
 */
export function stripeReport(lines: ReportLine[], options: { payout?: boolean; bom?: boolean; crlf?: boolean } = {}): string {
  const columns: readonly string[] = options.payout ? PAYOUT_COLUMNS : BALANCE_COLUMNS;
  const rows = lines.map((line) => {
    const fee = line.fee ?? (line.currency === "jpy" ? "0" : line.currency === "kwd" ? "0.000" : "0.00");
    const values: Record<string, string> = {
      automatic_payout_id: line.payout ?? "",
      automatic_payout_effective_at_utc: line.payout ? "2026-12-02 00:00:00" : "",
      balance_transaction_id: line.txn,
      created_utc: line.at,
      created: line.at,
      available_on_utc: "2026-12-02 00:00:00",
      currency: line.currency,
      gross: line.gross,
      fee,
      net: line.net ?? minus(line.gross, fee),
      reporting_category: line.category,
      source_id: line.paymentIntent ? `ch_${line.paymentIntent.slice(3)}` : `src_${line.txn}`,
      description: line.description ?? "",
      customer_facing_amount: line.gross.replace("-", ""),
      customer_facing_currency: line.currency,
      customer_id: line.paymentIntent ? "cus_1" : "",
      customer_email: line.paymentIntent ? "buyer@example.com" : "",
      charge_id: line.paymentIntent ? `ch_${line.paymentIntent.slice(3)}` : "",
      payment_intent_id: line.paymentIntent ?? "",
      charge_created_utc: line.paymentIntent ? line.at : "",
      payment_method_type: line.paymentIntent ? "card" : "",
      "payment_metadata[order_id]": line.orderId ?? "",
      "payment_metadata[cart]": line.paymentIntent ? "sku_1, sku_2" : "",
    };
    return columns.map((column) => quote(values[column] ?? "")).join(",");
  });
  const eol = options.crlf === false ? "\n" : "\r\n";
  return `${options.bom === false ? "" : "\uFEFF"}${[columns.join(","), ...rows].join(eol)}${eol}`;
}

