/**
 * Reasons and money for the CLIs (npm run lab, reconcile, dead-letters) in one locale: `--locale en|es-AR`
 * wins, else LC_ALL / LC_MESSAGES / LANG (any Spanish gives es-AR), else English. The same messages
 * (lib/i18n/messages/*.json) and formatting (Intl, money by currency) as the dashboard.
 */
import { createTranslator } from "next-intl";
import { formatCount, formatMoney } from "@/lib/format/format";
import en from "@/lib/i18n/messages/en.json";
import esAR from "@/lib/i18n/messages/es-AR.json";
import { DEFAULT_LOCALE, isLocale, type Locale } from "@/lib/i18n/locales";
import { readerReasons, type ReaderReasons, type ReasonTranslator } from "@/lib/reasons/render-reason";

/**
 * The CLI's locale: `--locale <tag>` (en or es-AR; an unknown tag is an error the caller reports),
 * else the first of LC_ALL, LC_MESSAGES, LANG that is set ("es_AR.UTF-8", "es" give es-AR; "C",
 * "en_US.UTF-8" give en). Returns the locale, or `{ error }` for a bad --locale.
 */
export function cliLocale(argv: readonly string[], env: Record<string, string | undefined>): Locale | { error: string } {
  const flag = argv.indexOf("--locale");
  if (flag >= 0) {
    const value = argv[flag + 1];
    return value !== undefined && isLocale(value) ? value : { error: `--locale must be en or es-AR (got ${value ?? "nothing"})` };
  }
  const system = [env.LC_ALL, env.LC_MESSAGES, env.LANG].find((value) => value !== undefined && value !== "");
  if (system && /^es([_-]|$|\.)/i.test(system)) return "es-AR";
  return DEFAULT_LOCALE;
}

/** The arguments without `--locale <tag>` (for CLIs that parse the rest strictly). */
export function withoutLocaleFlag(argv: readonly string[]): string[] {
  const flag = argv.indexOf("--locale");
  return flag < 0 ? [...argv] : [...argv.slice(0, flag), ...argv.slice(flag + 2)];
}

/** What a CLI prints reasons and money with. */
export interface CliReasons extends ReaderReasons {
  locale: Locale;
  /** Minor units of `currency` formatted for the locale ("ARS 20,500.00" in en, "$ 20.500,00" in es-AR). */
  money(amount: number, currency: string): string;
  /** A count for a line: as digits alone in English (the report's lines that scripts parse), grouped by Intl in another locale ("1.234" in es-AR). */
  count(value: number): string;
  /** A message of the catalogue (e.g. `reasons.cli.labSummary`) with ICU values. */
  t(key: string, values?: Record<string, string | number>): string;
}

/** {@link CliReasons} for `locale`. */
export function cliReasons(locale: Locale): CliReasons {
  const intl = createTranslator({ locale, messages: locale === "es-AR" ? esAR : en }) as unknown as ReasonTranslator;
  // A terminal line is read and grepped as plain text: Intl's no-break spaces become spaces.
  const plain = (text: string) => text.replace(/[\u00a0\u202f]/g, " ");
  const translator = Object.assign((key: string, values?: Record<string, string | number>) => plain(intl(key, values)), { has: (key: string) => intl.has(key) });
  return {
    ...readerReasons(translator, locale),
    locale,
    money: (amount, currency) => plain(formatMoney(amount, currency, locale)),
    count: (value) => (locale === "en" ? String(value) : plain(formatCount(value, locale))),
    t: translator,
  };
}

/** The English CLI view (the default when nothing names a locale). */
export const ENGLISH_CLI: CliReasons = cliReasons("en");
