import { getLocale, getTranslations } from "next-intl/server";
import { setLocaleAction } from "@/app/locale-action";
import { LOCALES } from "@/lib/i18n/locales";

const NAMES: Record<(typeof LOCALES)[number], string> = { en: "English", "es-AR": "Español (Argentina)" };

/** Language switch: a plain form (works without JavaScript) posting to a server action. */
export async function LocaleSwitch() {
  const [locale, t] = await Promise.all([getLocale(), getTranslations("nav")]);
  return (
    <form action={setLocaleAction} className="inline">
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
