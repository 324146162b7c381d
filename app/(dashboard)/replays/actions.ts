"use server";
// Replay actions: each checks `dead_letters.manage` itself (runAction), reads the filter with the same
// schema as the API, calls one lib/ function and revalidates what it changed.
import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { z } from "zod";
import { serverReasons } from "@/app/_components/server-reasons";
import { answer, runAction, type ActionResult } from "@/lib/auth/run-action";
import { db } from "@/lib/db/client";
import { applyReplay } from "@/lib/replay/apply-replay";
import { previewReplay } from "@/lib/replay/preview-replay";
import { filterFromFields, type ReplayFilter } from "@/lib/replay/replay-filter";
import { deadLettersByFilter, MAX_FILTER_RETRY, retryDeadLettersByFilter, type FilteredDeadLetter } from "@/lib/replay/retry-by-filter";

/** The filter fields of the replay form, as their names. */
const FIELDS = ["eventIds", "endpoint", "type", "status", "reason", "from", "to", "orderId"] as const;

/** The form's filter, checked by the same schema as POST /api/replays (datetime-local read in UTC). */
const formFilterSchema = z.unknown().transform((fields, context): ReplayFilter => {
  const parsed = filterFromFields(fields as Record<string, string | undefined>);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) context.addIssue({ code: "custom", message: issue.message, path: issue.path });
  return z.NEVER;
});

function fieldsOf(formData: FormData): Record<string, string | undefined> {
  return Object.fromEntries(FIELDS.map((name) => [name, typeof formData.get(name) === "string" ? (formData.get(name) as string) : undefined]));
}

/** What the count before a bulk retry answers: the result, plus the dead letters and their count. */
export interface CountResult extends ActionResult {
  count?: number;
  deadLetters?: FilteredDeadLetter[];
}

/** Previews a replay of the form's filter; on success goes to the stored replay's page. */
export async function previewReplayAction(_previous: CountResult | null, formData: FormData): Promise<CountResult> {
  const result = await runAction("dead_letters.manage", formFilterSchema, fieldsOf(formData), async (actor, filter) => {
    const t = await getTranslations("replays");
    const previewed = await previewReplay(await db(), actor, filter);
    if (previewed.kind === "no_events") return answer("info", [t("noEvents")]);
    if (previewed.kind === "too_many") return answer("bad", [t("tooMany", { count: previewed.count, limit: previewed.limit })]);
    revalidatePath("/replays");
    return { ...answer("ok", []), redirectTo: `/replays/${previewed.replay.id}` };
  });
  if (result.ok && result.redirectTo) redirect(result.redirectTo);
  return result;
}

/** Counts the open dead letters the form's filter names: what a retry by this filter would retry. */
export async function countDeadLettersAction(_previous: CountResult | null, formData: FormData): Promise<CountResult> {
  let found: Awaited<ReturnType<typeof deadLettersByFilter>> | undefined;
  const result = await runAction("dead_letters.manage", formFilterSchema, fieldsOf(formData), async (actor, filter) => {
    const t = await getTranslations("replays");
    found = await deadLettersByFilter(await db(), actor.organizationId, filter);
    if (found.kind === "too_many") return answer("bad", [t("retryTooMany", { count: found.count, limit: found.limit })]);
    return answer("info", [t("deadLettersCount", { count: found.count })]);
  });
  return found?.kind === "ok" ? { ...result, count: found.count, deadLetters: found.deadLetters } : result;
}

const retrySchema = z.object({ filter: formFilterSchema, expected: z.coerce.number().int().min(1).max(MAX_FILTER_RETRY) });

/** Retries the open dead letters the form's filter names, only at the count the person was shown. */
export async function retryByFilterAction(_previous: CountResult | null, formData: FormData): Promise<CountResult> {
  return runAction("dead_letters.manage", retrySchema, { filter: fieldsOf(formData), expected: formData.get("expected") }, async (actor, { filter, expected }) => {
    const [t, dead, reasons] = await Promise.all([getTranslations("replays"), getTranslations("deadLetters"), serverReasons()]);
    const result = await retryDeadLettersByFilter(await db(), actor, filter, expected);
    if (result.kind === "too_many") return answer("bad", [t("retryTooMany", { count: result.count, limit: result.limit })]);
    if (result.kind === "count_changed") return answer("bad", [t("countChanged", { count: result.count, expected: result.expected })]);
    revalidatePath("/dead-letters");
    revalidatePath("/orders", "layout");
    revalidatePath("/decisions");
    const messages = result.results.map((one) => {
      const subject = dead("retrySubject", { event: one.eventId ?? one.id, order: one.orderId ?? "none" });
      return dead(`retryResult.${one.outcome}`, { subject, reason: reasons.render(one.reasonRef, one.reason), attempts: one.attempts ?? 0, why: "" });
    });
    const settled = result.results.every((one) => ["applied", "already_applied", "requeued", "ignored", "duplicate"].includes(one.outcome));
    return answer(settled ? "ok" : "info", [t("retried", { count: result.results.length }), ...messages]);
  });
}

const applySchema = z.object({ id: z.string().min(1).max(64) });

/** Applies a previewed replay (exactly its events, once); a stale preview asks for a new one. */
export async function applyReplayAction(_previous: ActionResult | null, formData: FormData): Promise<ActionResult> {
  return runAction("dead_letters.manage", applySchema, { id: formData.get("id") }, async (actor, { id }) => {
    const t = await getTranslations("replay");
    const result = await applyReplay(await db(), actor, id);
    revalidatePath(`/replays/${id}`);
    revalidatePath("/replays");
    if (result.kind === "not_found") return answer("bad", [t("notFound")]);
    if (result.kind === "already_applied") return answer("info", [t("alreadyApplied")]);
    if (result.kind === "stale") return answer("bad", [t("stale", { orders: result.orders.length > 0 ? result.orders.join(", ") : "—" })]);
    revalidatePath("/dead-letters");
    revalidatePath("/orders", "layout");
    revalidatePath("/decisions");
    return answer("ok", [t("appliedNow", { applied: result.applied, events: result.replay.applied?.length ?? 0 })]);
  });
}
