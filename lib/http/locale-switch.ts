import { safeNextPath } from "@/lib/http/next-path";
import { isLocale, LOCALE_COOKIE, type Locale } from "@/lib/i18n/locales";

/** The largest language-switch form accepted (two short fields; the page address is at most 2 KB). */
export const LOCALE_FORM_MAX_BYTES = 4_096;
/** How long the chosen language is remembered: a year. */
const LOCALE_COOKIE_SECONDS = 365 * 24 * 60 * 60;

/** What the language switch answers: the cookie to set and where to go, or why the post was refused. */
export type LocaleSwitchAnswer = { ok: true; locale: Locale; location: string; cookie: string } | { ok: false; status: 400 | 403 | 413 | 415; code: string };

/**
 * Reads a post of the language switch (POST /api/locale, a plain HTML form so it works without
 * JavaScript and without a session: the sign-in page has it too). Takes the request's Content-Length,
 * Origin and Host headers and its url-encoded body (read only when the length is within
 * {@link LOCALE_FORM_MAX_BYTES}). Returns the cookie (httpOnly, a year, SameSite=Lax; it wins over
 * Accept-Language, lib/i18n/request.ts) and the page to go back to: the form's `next`, checked like the
 * sign-in page's (lib/http/next-path.ts, same site only). Refuses another site's post (403: a page
 * elsewhere may not change a visitor's language), a body that is not a url-encoded form (415), a body
 * without a length or over the cap (413), and an unknown locale (400). Never throws.
 */
export async function answerLocaleSwitch(request: Request): Promise<LocaleSwitchAnswer> {
  const origin = request.headers.get("origin");
  const host = request.headers.get("x-forwarded-host") ?? request.headers.get("host");
  // A browser sends Origin with every form post; "null" (a sandboxed frame) is another site too.
  if (origin) {
    let originHost: string | undefined;
    try {
      originHost = new URL(origin).host;
    } catch {
      originHost = undefined;
    }
    if (!host || originHost !== host) return { ok: false, status: 403, code: "cross_site" };
  }
  // The switch is a plain HTML form: a JSON or multipart body is refused as such, not read as a form.
  const type = request.headers.get("content-type")?.split(";")[0].trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") return { ok: false, status: 415, code: "form_expected" };
  const length = Number(request.headers.get("content-length"));
  if (!Number.isInteger(length) || length < 0 || length > LOCALE_FORM_MAX_BYTES) return { ok: false, status: 413, code: "form_too_large" };
  const form = new URLSearchParams(await request.text().catch(() => ""));
  const locale = form.get("locale");
  if (!isLocale(locale)) return { ok: false, status: 400, code: "unknown_locale" };
  const location = safeNextPath(form.get("next") ?? undefined);
  return { ok: true, locale, location, cookie: `${LOCALE_COOKIE}=${locale}; Path=/; Max-Age=${LOCALE_COOKIE_SECONDS}; SameSite=Lax; HttpOnly` };
}
