/**
 * Renders a stored reason in the reader's locale: the code's message under `reasons.code.<code>`
 * (lib/i18n/messages/*.json, ICU), its money formatted by currency with Intl (minor units to major by
 * the currency's digits), its statuses, categories and modes translated, ids verbatim. The same on the
 * server, in client components and in the CLIs (which pass a translator over the same messages).
 */
import { formatCount, formatDateTime, formatMoney } from "@/lib/format/format";
import { readStoredReason, REASONS, type Money, type ParamKind, type ReasonRef } from "@/lib/reasons/reason-codes";

/** A translator over the whole catalogue (next-intl's `getTranslations()` / `useTranslations()` without a namespace). */
export interface ReasonTranslator {
  (key: string, values?: Record<string, string | number>): string;
  has(key: string): boolean;
}

/** Where each translated kind's words are: `status.paid`, `reasons.category.transition`, ... */
const WORD_NAMESPACE: Partial<Record<ParamKind, string>> = {
  status: "status",
  outcome: "outcome",
  category: "reasons.category",
  mode: "reasons.mode",
  what: "reasons.what",
  phase: "reasons.phase",
  variant: "reasons.variant",
  role: "roles",
  csvProblem: "reasons.csvProblem",
  format: "reasons.format",
};

/** A word of a fixed list in the reader's language (the word itself when the catalogue lacks it). */
export function translateWord(t: ReasonTranslator, namespace: string, word: string): string {
  // Only words (segments of letters, digits, _ and -): "constructor" or "__proto__" is no message of the catalogue.
  if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(word) || /(^|\.)(constructor|__proto__|prototype)(\.|$)/.test(word)) return word;
  const key = `${namespace}.${word}`;
  return t.has(key) ? t(key) : word;
}

function renderParam(kind: ParamKind, value: unknown, t: ReasonTranslator, locale: string): string | number {
  if (kind === "money") {
    const money = value as Money;
    return formatMoney(money.amount, money.currency, locale);
  }
  if (kind === "number" || kind === "seconds") return formatCount(value as number, locale);
  if (kind === "time") return formatDateTime(value as string, locale);
  if (kind === "zxcvbnTips") return String(value).split(" ").filter(Boolean).map((key) => translateWord(t, "reasons.zxcvbn", key)).join(" ");
  if (kind === "cause") return typeof value === "string" ? value : renderReason(value as ReasonRef, t, locale);
  const namespace = WORD_NAMESPACE[kind];
  return namespace ? translateWord(t, namespace, String(value)) : String(value);
}

/**
 * The reason `ref` as a sentence in `locale`, with its follow-ups joined by "; ". Takes a translator
 * over the whole catalogue and the locale (for Intl). A code the catalogue has no message for is
 * rendered in English ({@link REASONS}), never as a bare key.
 */
export function renderReason(ref: ReasonRef, t: ReasonTranslator, locale: string): string {
  const key = `reasons.code.${ref.code}`;
  const kinds = REASONS[ref.code].params as Record<string, ParamKind>;
  const values: Record<string, string | number> = {};
  for (const [name, kind] of Object.entries(kinds)) values[name] = renderParam(kind, ref.params[name], t, locale);
  // A transition to the status it came from (a partial refund leaves an order paid) reads "stays paid", not "paid → paid".
  if ("from" in kinds && "to" in kinds) values.sameStatus = ref.params.from === ref.params.to ? "yes" : "no";
  const head = t.has(key) ? t(key, values) : (REASONS[ref.code].en as (params: unknown) => string)(ref.params);
  return [head, ...(ref.then ?? []).map((next) => renderReason(next, t, locale))].join("; ");
}

/**
 * A stored row's reason for a page: the code and parameters rendered in `locale` when the row has
 * valid ones, else the stored sentence (rows written before codes existed). Takes the row's sentence
 * and its two code columns.
 */
export function describeReason(row: { reason: string | null; reasonCode?: string | null; reasonParams?: string | null }, t: ReasonTranslator, locale: string): string {
  const ref = readStoredReason(row.reasonCode, row.reasonParams);
  return ref ? renderReason(ref, t, locale) : (row.reason ?? "");
}

/** The actor an API_TOKEN caller is recorded as (lib/api/authorize-api.ts). */
export const API_TOKEN_ACTOR = "operator (API_TOKEN)";

/** A stored reason's columns as a page reads them. */
export type StoredReasonRow = { reason: string | null; reasonCode?: string | null; reasonParams?: string | null };

/** What a page or a CLI needs to show reasons in one locale. */
export interface ReaderReasons {
  /** The row's reason rendered from its code, else its stored sentence. */
  describe(row: StoredReasonRow): string;
  /** "yes" when the row's reason has a valid code (rendered in the reader's locale), "no" when its stored sentence is shown. */
  coded(row: StoredReasonRow): "yes" | "no";
  /** A reason already read (code and parameters) rendered; `fallback` when there is none. */
  render(ref: ReasonRef | undefined, fallback: string): string;
  /** An order, event or dead-letter status in the reader's language (the dashboard's `status` list). */
  status(word: string): string;
  /** A decision's outcome (applied, duplicate, rejected, ...) in the reader's language (the dashboard's `outcome` list). */
  outcome(word: string): string;
  /**
   * Who did something, as a person reads it: the system's own actors translated (`system`, the
   * `operator (API_TOKEN)`, a command's `cli:<os user>`), a person's email verbatim.
   */
  actor(actor: string): string;
  /** A word of a fixed list under `reasons.<list>` (category, ledgerKind, mismatch, ...), or the word itself. */
  word(list: string, word: string): string;
  /** The text under `reasons.<list>.<key>`, else `fallback` (the stored English text of a key the catalogue lacks). */
  text(list: string, key: string, fallback: string): string;
}

/** {@link ReaderReasons} over a translator of the whole catalogue and a locale. */
export function readerReasons(t: ReasonTranslator, locale: string): ReaderReasons {
  return {
    describe: (row) => describeReason(row, t, locale),
    coded: (row) => (readStoredReason(row.reasonCode, row.reasonParams) ? "yes" : "no"),
    render: (ref, fallback) => (ref ? renderReason(ref, t, locale) : fallback),
    status: (word) => translateWord(t, "status", word),
    outcome: (word) => translateWord(t, "outcome", word),
    actor: (actor) => (actor === "system" ? t("actors.system") : actor === API_TOKEN_ACTOR ? t("actors.apiToken") : actor.startsWith("cli:") ? t("actors.cli", { user: actor.slice(4) }) : actor),
    word: (list, word) => translateWord(t, `reasons.${list}`, word),
    text: (list, key, fallback) => (t.has(`reasons.${list}.${key}`) ? t(`reasons.${list}.${key}`) : fallback),
  };
}
