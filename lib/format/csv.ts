// CSV as Acredita writes it (exports of orders, decisions, the ledger and reconciliation mismatches):
// RFC 4180 fields, and cells a spreadsheet cannot run as a formula (OWASP, "CSV Injection").

/** A cell a spreadsheet runs as a formula: one that starts with =, +, -, @, a tab or a carriage return (OWASP, CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;
/**
 * Where else a cell can start: a spreadsheet whose list separator is ";" (most European locales, es-AR
 * among them) splits this comma-separated file at every ";" as well, quotes or not, so a formula can
 * follow a ";" (or another separator) inside a field.
 */
const FORMULA_AFTER_SEPARATOR = /([;,\t\r\n])(?=[=+\-@])/g;

/**
 * A text cell (ids, codes, reasons, e-mails: webhook and report input among them): prefixed with ' wherever
 * a cell could start a formula, then quoted (RFC 4180: `"` doubled) when it holds a quote, a separator
 * or a line break. Null and undefined are an empty cell.
 */
export function csvText(value: string | null | undefined): string {
  if (value === null || value === undefined) return "";
  const inner = value.replace(FORMULA_AFTER_SEPARATOR, "$1'");
  const safe = FORMULA_START.test(inner) ? `'${inner}` : inner;
  return /[",;\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * A number Acredita computed (a count, an HTTP status, an amount written by minorToDecimal): written as
 * it is, so a spreadsheet reads it as a number; a minus sign here is a negative amount, never a formula.
 * Throws a TypeError for text that is not a plain decimal number (a guard: input never comes this way).
 */
export function csvNumber(value: number | string | null | undefined): string {
  if (value === null || value === undefined) return "";
  const text = String(value);
  if (!/^-?\d+(\.\d+)?$/.test(text)) throw new TypeError(`not a plain decimal number: ${text.slice(0, 40)}`);
  return text;
}

/** One record: its cells (each already a {@link csvText} or {@link csvNumber}) joined, ended by CRLF (RFC 4180). */
export function csvRecord(cells: readonly string[]): string {
  return `${cells.join(",")}\r\n`;
}
