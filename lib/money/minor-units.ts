/**
 * Currencies and minor units by ISO 4217. Money in Acredita is an integer of minor units; providers'
 * reports (Stripe's report CSVs) write decimal strings in major units, converted here without floating
 * point.
 */

/**
 * ISO 4217 minor-unit exponents that are not 2. Intl's currency digits are a display convention and
 * differ from ISO for some codes (Intl shows IDR, HUF and COP with 0 decimals; ISO 4217 gives them 2),
 * so the exponent comes from this table (ISO 4217 list one, "Minor unit" column).
 */
const EXPONENT_NOT_TWO: Readonly<Record<string, number>> = {
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0, UGX: 0, UYI: 0, VND: 0, VUV: 0, XAF: 0, XOF: 0, XPF: 0,
  BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3,
  CLF: 4, UYW: 4,
};

/** ISO 4217 codes that are not money in the ledger's sense (precious metals, bond units, test and no-currency codes: minor unit "N.A."). */
const NOT_MONEY = new Set(["XAG", "XAU", "XBA", "XBB", "XBC", "XBD", "XDR", "XPD", "XPT", "XSU", "XTS", "XUA", "XXX"]);

let known: Set<string> | undefined;

/**
 * True when `code` (upper case) is ISO 4217 money: a currency this runtime knows
 * (`Intl.supportedValuesOf("currency")`, which leaves out fund codes such as CLF and UYW, listed above).
 */
export function isIsoCurrency(code: string): boolean {
  known ??= new Set([...Intl.supportedValuesOf("currency"), ...Object.keys(EXPONENT_NOT_TWO)]);
  return known.has(code) && !NOT_MONEY.has(code);
}

/** What is wrong with a currency or an amount: `problem` for callers that say it in other words. */
export type MoneyFormatProblem = { kind: "unknown_currency"; currency: string } | { kind: "not_decimal"; text: string } | { kind: "too_many_decimals"; text: string; currency: string; exponent: number } | { kind: "too_large"; text: string };

function describeMoneyProblem(problem: MoneyFormatProblem): string {
  if (problem.kind === "unknown_currency") return `${problem.currency} is not an ISO 4217 currency`;
  if (problem.kind === "not_decimal") return `"${problem.text}" is not a decimal amount like 25.00`;
  if (problem.kind === "too_many_decimals") return `"${problem.text}" has more decimals than ${problem.currency} has (${problem.exponent})`;
  return `"${problem.text}" is too large`;
}

/** Raised for a currency code that is not ISO 4217 money, or an amount that is not a plain decimal in that currency; `problem` says which (text cut to 40 characters). */
export class MoneyFormatError extends Error {
  constructor(readonly problem: MoneyFormatProblem) {
    super(describeMoneyProblem(problem));
    this.name = "MoneyFormatError";
  }
}

/**
 * The ISO 4217 exponent of `currency` (any case): JPY 0, USD 2, KWD 3, CLF 4.
 * Throws {@link MoneyFormatError} for a code that is not ISO 4217 money (e.g. "ZZZ", "XAU").
 */
export function currencyExponent(currency: string): number {
  const code = currency.toUpperCase();
  if (!isIsoCurrency(code)) throw new MoneyFormatError({ kind: "unknown_currency", currency });
  return EXPONENT_NOT_TWO[code] ?? 2;
}

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

/**
 * Converts a decimal string in major units ("25.00", "-0.5", "1500") to an integer of minor units of
 * `currency` by its ISO 4217 exponent, exactly (string and BigInt arithmetic, never floating point):
 * "25.00" USD is 2500, "500" JPY is 500, "1.234" KWD is 1234. Surrounding spaces are ignored.
 * Throws {@link MoneyFormatError} for anything else: a decimal comma ("25,00"), thousands separators,
 * exponents, more decimals than the currency has ("1.234" USD), an unknown currency, or an amount beyond
 * Number.MAX_SAFE_INTEGER minor units.
 */
export function decimalToMinor(text: string, currency: string): number {
  const exponent = currencyExponent(currency);
  const match = DECIMAL.exec(text.trim());
  if (!match) throw new MoneyFormatError({ kind: "not_decimal", text: text.slice(0, 40) });
  const [, minus, whole, fraction = ""] = match;
  if (fraction.length > exponent) {
    // Trailing zeros beyond the exponent are exact ("25.000" USD); other digits would be lost.
    if (!/^0*$/.test(fraction.slice(exponent))) throw new MoneyFormatError({ kind: "too_many_decimals", text: text.slice(0, 40), currency: currency.toUpperCase(), exponent });
  }
  const digits = BigInt(whole + fraction.slice(0, exponent).padEnd(exponent, "0"));
  const minor = minus ? -digits : digits;
  if (minor > BigInt(Number.MAX_SAFE_INTEGER) || minor < BigInt(-Number.MAX_SAFE_INTEGER)) throw new MoneyFormatError({ kind: "too_large", text: text.slice(0, 40) });
  return Number(minor);
}

/**
 * Writes an integer of minor units of `currency` as a decimal string in major units by its ISO 4217
 * exponent, exactly: 2500 USD "25.00", 500 JPY "500", -1250 KWD "-1.250". The inverse of
 * {@link decimalToMinor}; for plain-text reports (pages format with Intl). Throws
 * {@link MoneyFormatError} for a code that is not ISO 4217 money.
 */
export function minorToDecimal(amount: number, currency: string): string {
  const exponent = currencyExponent(currency);
  const digits = String(Math.abs(Math.trunc(amount))).padStart(exponent + 1, "0");
  const whole = exponent === 0 ? digits : `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
  return amount < 0 ? `-${whole}` : whole;
}
