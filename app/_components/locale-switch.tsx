import { headers } from "next/headers";
import { getLocale, getTranslations } from "next-intl/server";
import { REQUEST_PATH_HEADER } from "@/lib/http/request-path";
import { LOCALES } from "@/lib/i18n/locales";

const NAMES: Record<(typeof LOCALES)[number], string> = { en: "English", "es-AR": "Español (Argentina)" };

/**
 * Language switch: a plain form (works without JavaScript and without a session) posting to
 * /api/locale, which sets the cookie and comes back to this page (its address as proxy.ts saw it).
 * Not a server action: proxy.ts refuses an action's post from anyone not signed in.
 */
export async function LocaleSwitch() {
  const [locale, t, requestHeaders] = await Promise.all([getLocale(), getTranslations("nav"), headers()]);
  return (
    <form action="/api/locale" method="post" className="inline">
      <input type="hidden" name="next" value={requestHeaders.get(REQUEST_PATH_HEADER) ?? "/"} />
      <label htmlFor="locale-select">{t("language")}</label>
      <select id="locale-select" name="locale" defaultValue={locale}>
        {LOCALES.map((value) => (
          <option key={value} value={value} lang={value}>
            {NAMES[value]}
          </option>
        ))}
      </select>
      <button type="submit" className="secondary">
        {t("apply")}
      </button>
    </form>
  );
}
