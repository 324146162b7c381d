// Reasons, categories, next actions and ledger kinds in the reader's locale, for server components.
import { getLocale, getTranslations } from "next-intl/server";
import { readerReasons, type ReaderReasons, type ReasonTranslator } from "@/lib/reasons/render-reason";

/** {@link ReaderReasons} for the request's locale. */
export async function serverReasons(): Promise<ReaderReasons> {
  const [t, locale] = await Promise.all([getTranslations(), getLocale()]);
  return readerReasons(t as unknown as ReasonTranslator, locale);
}
