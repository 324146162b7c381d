/**
 * Formatting for the dashboard, the same on the server and in client components (pure Intl, no state).
 * Money arrives in integer minor units (2500000 ARS = $ 25.000,00 in es-AR); dates are shown in UTC.
 */

const fractionCache = new Map<string, number>();

/**
 * Intl formatters by their options. Building one costs far more than using it (ICU data is looked up
 * on construction): the orders page formats ~150 values per render, and building a formatter for each
 * was 13% of the page's server CPU (bench/, 100,000 orders).
 */
const formatters = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();

function cachedFormatter<T extends Intl.NumberFormat | Intl.DateTimeFormat>(key: string, build: () => T): T {
  let formatter = formatters.get(key) as T | undefined;
  if (!formatter) {
    formatter = build();
    // Locales and currencies come from a short list; the bound only guards against a surprise.
    if (formatters.size >= 500) formatters.clear();
    formatters.set(key, formatter);
  }
  return formatter;
}

/** Minor-unit digits of an ISO 4217 currency as Intl knows them (ARS 2, JPY 0, BHD 3); 2 if unknown. */
export function currencyDigits(currency: string): number {
  let digits = fractionCache.get(currency);
  if (digits === undefined) {
    try {
      digits = new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      digits = 2;
    }
    fractionCache.set(currency, digits);
  }
  return digits;
}

/** Formats minor units of `currency` for `locale`: formatMoney(2500000, "ARS", "es-AR") → "$ 25.000,00". */
export function formatMoney(minor: number, currency: string, locale: string): string {
  const digits = currencyDigits(currency);
  try {
    const formatter = cachedFormatter(`money|${locale}|${currency}`, () => new Intl.NumberFormat(locale, { style: "currency", currency, minimumFractionDigits: digits, maximumFractionDigits: digits }));
    return formatter.format(minor / 10 ** digits);
  } catch {
    return `${(minor / 10 ** digits).toFixed(digits)} ${currency}`;
  }
}

/** Signed money (+/−) for differences; zero shows as the plain zero amount. */
export function formatSignedMoney(minor: number, currency: string, locale: string): string {
  const text = formatMoney(Math.abs(minor), currency, locale);
  return minor > 0 ? `+${text}` : minor < 0 ? `−${text}` : text;
}

/** Date and time in UTC for `locale`, to the second: "29 nov 2026, 14:03:05 UTC". */
export function formatDateTime(value: Date | string, locale: string): string {
  const date = typeof value === "string" ? new Date(value) : value;
  const formatter = cachedFormatter(`datetime|${locale}`, () => new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "medium", timeZone: "UTC", hourCycle: "h23" }));
  return `${formatter.format(date)} UTC`;
}

/** A count in the locale's grouping (100000 → "100.000" in es-AR). */
export function formatCount(value: number, locale: string): string {
  return cachedFormatter(`count|${locale}`, () => new Intl.NumberFormat(locale)).format(value);
}

/** An age in seconds as the largest one or two units, localised by Intl ("3 h 12 min", "45 s"). */
export function formatAge(seconds: number, locale: string): string {
  const parts: [number, Intl.NumberFormatOptions["unit"]][] = [];
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3_600);
  const minutes = Math.floor((seconds % 3_600) / 60);
  if (days > 0) parts.push([days, "day"], [hours, "hour"]);
  else if (hours > 0) parts.push([hours, "hour"], [minutes, "minute"]);
  else if (minutes > 0) parts.push([minutes, "minute"]);
  else parts.push([Math.max(0, Math.floor(seconds)), "second"]);
  return parts
    .filter(([value], index) => index === 0 || value > 0)
    .map(([value, unit]) => cachedFormatter(`unit|${locale}|${unit}`, () => new Intl.NumberFormat(locale, { style: "unit", unit, unitDisplay: "short" })).format(value))
    .join(" ");
}
