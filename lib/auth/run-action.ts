import { getLocale, getTranslations } from "next-intl/server";
import type { z } from "zod";
import { actorWith } from "@/lib/auth/session";
import { ForbiddenError, type Actor, type Permission } from "@/lib/auth/roles";
import { logger } from "@/lib/log/logger";
import { errorMessage } from "@/lib/log/error-message";
import { issueReason } from "@/lib/reasons/reason-codes";
import { readerReasons, type ReasonTranslator } from "@/lib/reasons/render-reason";

/** What every dashboard server action answers: a tone, messages to show, a code for failures, and when. */
export interface ActionResult {
  ok: boolean;
  tone: "ok" | "bad" | "info";
  messages: string[];
  code?: "forbidden" | "invalid" | "error";
  /** Milliseconds since the epoch: lets the page tell a fresh answer from the previous one. */
  at: number;
  /** Where the action sends the browser on success (the action redirects after runAction returns). */
  redirectTo?: string;
}

/** A successful or informative answer. */
export function answer(tone: ActionResult["tone"], messages: string[]): ActionResult {
  return { ok: tone !== "bad", tone, messages, at: Date.now() };
}

/**
 * The one path every server action takes: the role check INSIDE the action (never only in the page:
 * an action can be posted directly), zod validation of the form, then `body`. A missing permission
 * answers `forbidden`, invalid input `invalid` with the field messages, and an unexpected error a
 * generic message (logged with its text, never sent to the browser).
 */
export async function runAction<Schema extends z.ZodType>(
  permission: Permission,
  schema: Schema,
  input: unknown,
  body: (actor: Actor, data: z.output<Schema>) => Promise<ActionResult>,
): Promise<ActionResult> {
  const t = await getTranslations("common");
  let actor: Actor;
  try {
    actor = await actorWith(permission);
  } catch (error) {
    if (error instanceof ForbiddenError) return { ok: false, tone: "bad", messages: [t("notAllowed")], code: "forbidden", at: Date.now() };
    throw error;
  }
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    // An issue that carries a reason (params.reason, e.g. a weak password) reads in the reader's language.
    const reasons = readerReasons((await getTranslations()) as unknown as ReasonTranslator, await getLocale());
    // A field is named as the form labels it (common.fields), else by its name.
    const field = (path: PropertyKey[]) => {
      const name = path.map(String).join(".") || "form";
      return t.has(`fields.${name}`) ? t(`fields.${name}` as "fields.form") : name;
    };
    const details = parsed.error.issues
      .map((issue) => `${field(issue.path)}: ${reasons.render(issueReason(issue), issue.message)}`)
      .join("; ");
    return { ok: false, tone: "bad", messages: [t("invalid", { details })], code: "invalid", at: Date.now() };
  }
  try {
    return await body(actor, parsed.data);
  } catch (error) {
    if (error instanceof ForbiddenError) return { ok: false, tone: "bad", messages: [t("notAllowed")], code: "forbidden", at: Date.now() };
    logger.error({ err: errorMessage(error), permission }, "dashboard action failed");
    return { ok: false, tone: "bad", messages: [t("error")], code: "error", at: Date.now() };
  }
}
