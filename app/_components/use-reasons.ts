"use client";
// Reasons, categories, next actions and ledger kinds in the reader's locale, for client components.
import { useLocale, useTranslations } from "next-intl";
import { readerReasons, type ReaderReasons, type ReasonTranslator } from "@/lib/reasons/render-reason";

/** {@link ReaderReasons} for the page's locale. */
export function useReasons(): ReaderReasons {
  const t = useTranslations();
  const locale = useLocale();
  return readerReasons(t as unknown as ReasonTranslator, locale);
}
