import { ZxcvbnFactory } from "@zxcvbn-ts/core";
import * as common from "@zxcvbn-ts/language-common";
import * as english from "@zxcvbn-ts/language-en";
import * as spanish from "@zxcvbn-ts/language-es-es";
import { because, type Because } from "@/lib/reasons/reason-codes";

/** Shortest and longest password accepted (NIST SP 800-63B asks for a length floor and a long ceiling). */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 128;
/** zxcvbn score needed (0..4): 3 is "safely unguessable: moderate protection from offline slow-hash attacks". */
export const PASSWORD_MIN_SCORE = 3;

let estimator: ZxcvbnFactory | undefined;

/** How much of a password zxcvbn reads: its first 64 characters (a longer one is judged by them). */
export const ZXCVBN_MAX_LENGTH = 64;

/**
 * zxcvbn's translations with each text replaced by its own key ("warnings.straightRow"): the
 * estimator's feedback then names what it found, which pages say in the reader's language
 * (`reasons.zxcvbn.*` of the catalogue) and the logs in zxcvbn's English.
 */
const FEEDBACK_KEYS = Object.fromEntries(
  Object.entries(english.translations).map(([group, texts]) => [group, Object.fromEntries(Object.keys(texts).map((key) => [key, group === "timeEstimation" ? (texts as Record<string, string>)[key] : `${group}.${key}`]))]),
) as typeof english.translations;

function zxcvbn(): ZxcvbnFactory {
  estimator ??= new ZxcvbnFactory({
    // Spanish words and names too: the dashboard's people write es-AR ("contraseña123" is as weak as "password1234").
    dictionary: { ...common.dictionary, ...english.dictionary, ...spanish.dictionary },
    graphs: common.adjacencyGraphs,
    translations: FEEDBACK_KEYS,
    // Bounds the work one check does (its l33t and repeat matchers grow steeply with length and with
    // substitutable characters: 128 characters of "4@1!3$0|" took 5 to 10 s of blocked event loop).
    // The first 64 characters decide; at most 5 l33t substitutions are tried.
    maxLength: ZXCVBN_MAX_LENGTH,
    l33tMaxSubstitutions: 5,
  });
  return estimator;
}

/** zxcvbn's English text of a feedback key ("warnings.straightRow"), else the key. */
function englishFeedback(key: string): string {
  const [group, name] = key.split(".");
  return (english.translations as unknown as Record<string, Record<string, string>>)[group]?.[name] ?? key;
}

/**
 * Why `password` is refused, as a reason (code and parameters, for the reader's locale, and its
 * English sentence), or null when it is acceptable: shorter than 12 or longer than 128 characters,
 * or a zxcvbn-ts score below 3 (common passwords, keyboard rows, repeats, dates, or the person's own
 * email or name, passed as `userInputs`) with zxcvbn's warning and suggestions. Never the password itself.
 */
export function passwordReason(password: string, userInputs: string[] = []): Because | null {
  if (password.length < PASSWORD_MIN_LENGTH) return because("password_too_short", { min: PASSWORD_MIN_LENGTH });
  if (password.length > PASSWORD_MAX_LENGTH) return because("password_too_long", { max: PASSWORD_MAX_LENGTH });
  const inputs = userInputs.flatMap((input) => [input, ...input.split(/[@.\s_-]+/)]).filter((input) => input.length >= 3);
  const result = zxcvbn().check(password, inputs);
  if (result.score >= PASSWORD_MIN_SCORE) return null;
  const keys = [result.feedback.warning, ...result.feedback.suggestions].filter((key): key is string => Boolean(key));
  const strength = { score: result.score, needed: PASSWORD_MIN_SCORE };
  if (keys.length === 0) return because("password_too_weak", strength);
  return because("password_too_weak_because", { ...strength, tips: keys.join(" "), details: keys.map(englishFeedback).join(" ") });
}

/** {@link passwordReason}'s English sentence ("too weak (strength 1 of 4, 3 needed): ..."), or null when the password is acceptable. */
export function passwordProblem(password: string, userInputs: string[] = []): string | null {
  return passwordReason(password, userInputs)?.reason ?? null;
}
