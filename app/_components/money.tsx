"use client";
import { useLocale } from "next-intl";
import { formatDateTime, formatMoney, formatSignedMoney } from "@/lib/format/format";

/** Minor units of `currency` formatted for the page's locale ($ 25.000,00 in es-AR). */
export function Money({ minor, currency, signed = false }: { minor: number; currency: string; signed?: boolean }) {
  const locale = useLocale();
  return <>{signed ? formatSignedMoney(minor, currency, locale) : formatMoney(minor, currency, locale)}</>;
}

/** A UTC timestamp formatted for the page's locale, in a <time> element with the ISO value. */
export function DateTime({ value }: { value: string | Date | null }) {
  const locale = useLocale();
  if (value === null) return <span className="muted">—</span>;
  const iso = typeof value === "string" ? value : value.toISOString();
  return <time dateTime={iso}>{formatDateTime(iso, locale)}</time>;
}
