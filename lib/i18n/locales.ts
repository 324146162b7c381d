/** Dashboard languages: English and Spanish as written in Argentina (the seed guides and many merchants). */
export const LOCALES = ["en", "es-AR"] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = "en";
/** Cookie set by the language switch; it wins over Accept-Language. next-intl's conventional name. */
export const LOCALE_COOKIE = "NEXT_LOCALE";

/** True for a supported locale tag. */
export function isLocale(value: string | undefined | null): value is Locale {
  return value !== undefined && value !== null && (LOCALES as readonly string[]).includes(value);
}

/**
 * Picks the locale from an Accept-Language header (RFC 9110 §12.5.4: tags with q weights, highest
 * first, ties in order): any Spanish (es, es-AR, es-ES, ...) maps to es-AR, any English to en.
 * Returns {@link DEFAULT_LOCALE} when nothing matches.
 */
export function negotiateLocale(acceptLanguage: string | null | undefined): Locale {
  if (!acceptLanguage) return DEFAULT_LOCALE;
  const ranges = acceptLanguage
    .split(",")
    .map((part, index) => {
      const [tag, ...params] = part.trim().split(";");
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      const weight = q ? Number(q.slice(2)) : 1;
      return { tag: tag.trim().toLowerCase(), weight: Number.isFinite(weight) ? weight : 0, index };
    })
    .filter((range) => range.tag && range.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index);
  for (const { tag } of ranges) {
    if (tag === "es" || tag.startsWith("es-")) return "es-AR";
    if (tag === "en" || tag.startsWith("en-")) return "en";
  }
  return DEFAULT_LOCALE;
}

/** The locale of a request: the switch's cookie when valid, else Accept-Language. */
export function resolveLocale(cookieValue: string | undefined, acceptLanguage: string | null | undefined): Locale {
  return isLocale(cookieValue) ? cookieValue : negotiateLocale(acceptLanguage);
}

/**
 * The locale of an HTTP request outside a page (a JSON or CSV route): the language switch's cookie
 * (`NEXT_LOCALE`) when it holds a supported locale, else Accept-Language, as the pages choose.
 */
export function localeOfRequest(headers: Headers): Locale {
  const cookie = (headers.get("cookie") ?? "")
    .split(";")
    .map((part) => part.trim())
    .find((part) => part.startsWith(`${LOCALE_COOKIE}=`));
  return resolveLocale(cookie ? decodeURIComponent(cookie.slice(LOCALE_COOKIE.length + 1)) : undefined, headers.get("accept-language"));
}
