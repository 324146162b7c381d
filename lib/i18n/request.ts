// next-intl's request configuration (wired in next.config.mjs): locale from the switch's cookie or the
// browser's Accept-Language, messages for it, and UTC for every date (the house rule: times are UTC).
import { cookies, headers } from "next/headers";
import { getRequestConfig } from "next-intl/server";
import { LOCALE_COOKIE, resolveLocale } from "@/lib/i18n/locales";

export default getRequestConfig(async () => {
  const locale = resolveLocale((await cookies()).get(LOCALE_COOKIE)?.value, (await headers()).get("accept-language"));
  const messages = locale === "es-AR" ? (await import("./messages/es-AR.json")).default : (await import("./messages/en.json")).default;
  return { locale, messages, timeZone: "UTC" };
});
