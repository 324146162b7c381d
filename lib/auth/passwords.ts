import { ZxcvbnFactory } from "@zxcvbn-ts/core";
import * as common from "@zxcvbn-ts/language-common";
import * as english from "@zxcvbn-ts/language-en";
import { z } from "zod";

/** Shortest and longest password accepted (NIST SP 800-63B asks for a length floor and a long ceiling). */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 128;
/** zxcvbn score needed (0..4): 3 is "safely unguessable: moderate protection from offline slow-hash attacks". */
export const PASSWORD_MIN_SCORE = 3;

let estimator: ZxcvbnFactory | undefined;

function zxcvbn(): ZxcvbnFactory {
  estimator ??= new ZxcvbnFactory({
    dictionary: { ...common.dictionary, ...english.dictionary },
    graphs: common.adjacencyGraphs,
    translations: english.translations,
  });
  return estimator;
}

/**
 * Why `password` is refused, or null when it is acceptable: shorter than 12 or longer than 128
 * characters, or a zxcvbn-ts score below 3 (common passwords, keyboard rows, repeats, dates, or the
 * person's own email or name, passed as `userInputs`). The reason is zxcvbn's own English warning and
 * suggestions, never the password itself.
 */
export function passwordProblem(password: string, userInputs: string[] = []): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) return `too short: at least ${PASSWORD_MIN_LENGTH} characters`;
  if (password.length > PASSWORD_MAX_LENGTH) return `too long: at most ${PASSWORD_MAX_LENGTH} characters`;
  const inputs = userInputs.flatMap((input) => [input, ...input.split(/[@.\s_-]+/)]).filter((input) => input.length >= 3);
  const result = zxcvbn().check(password, inputs);
  if (result.score >= PASSWORD_MIN_SCORE) return null;
  const why = [result.feedback.warning, ...result.feedback.suggestions].filter((text): text is string => Boolean(text)).join(" ");
  return `too weak (strength ${result.score} of 4, ${PASSWORD_MIN_SCORE} needed)${why ? `: ${why}` : ""}`;
}

/** A zod schema for a new password: refuses it with {@link passwordProblem}'s reason. */
export function newPasswordSchema(userInputs: string[] = []) {
  return z.string().superRefine((password, context) => {
    const problem = passwordProblem(password, userInputs);
    if (problem) context.addIssue({ code: "custom", message: problem });
  });
}
