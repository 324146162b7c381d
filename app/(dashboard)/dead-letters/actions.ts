"use server";
// Dead-letter actions: each checks `dead_letters.manage` itself (runAction), validates with zod, calls
// one lib/ function and revalidates the pages that show the result.
import { revalidatePath } from "next/cache";
import { getTranslations } from "next-intl/server";
import { z } from "zod";
import { serverReasons } from "@/app/_components/server-reasons";
import { answer, runAction, type ActionResult } from "@/lib/auth/run-action";
import { db } from "@/lib/db/client";
import { assignDeadLetterAs, MAX_BULK_RETRY, resolveDeadLetterAs, retryDeadLettersAs } from "@/lib/triage/manage-dead-letters";
import { isReviewFirst } from "@/lib/dead-letters/review-first";
import { UNASSIGNED } from "@/lib/dead-letters/list-dead-letters";

const idSchema = z.string().min(1).max(64);
const retrySchema = z.object({ ids: z.array(idSchema).min(1).max(MAX_BULK_RETRY), confirmReviewFirst: z.boolean() });
// `to`: empty for the person acting, "none" to undo an assignment, else a colleague's e-mail.
const assignSchema = z.object({ id: idSchema, to: z.union([z.literal(""), z.literal(UNASSIGNED), z.email().max(255)]) });
const resolveSchema = z.object({ id: idSchema, note: z.string().trim().min(3).max(1000) });

function refresh(): void {
  revalidatePath("/dead-letters");
  revalidatePath("/orders", "layout");
  revalidatePath("/decisions");
}

/**
 * Retries one dead letter (one `id` field) or several (repeated `id` fields, the bulk form). A
 * review-first dead letter runs only with `confirm=review-first` (the row's confirmation dialog); the
 * answer names every result by event and order, as the table shows them.
 */
export async function retryDeadLettersAction(_previous: ActionResult | null, formData: FormData): Promise<ActionResult> {
  const input = { ids: formData.getAll("id"), confirmReviewFirst: formData.get("confirm") === "review-first" };
  return runAction("dead_letters.manage", retrySchema, input, async (actor, { ids, confirmReviewFirst }) => {
    const [t, reasons] = await Promise.all([getTranslations("deadLetters"), serverReasons()]);
    const results = await retryDeadLettersAs(await db(), actor, ids, { confirmReviewFirst });
    refresh();
    const messages = results.map((result) => {
      const subject = t("retrySubject", { event: result.eventId ?? result.id, order: result.orderId ?? "none" });
      const why = result.category && isReviewFirst(result.category) ? t(`retryConfirm.why.${result.category}`) : "";
      return t(`retryResult.${result.outcome}`, { subject, reason: reasons.render(result.reasonRef, result.reason), attempts: result.attempts ?? 0, why });
    });
    const settled = results.every((result) => result.outcome === "applied" || result.outcome === "already_applied" || result.outcome === "requeued" || result.outcome === "ignored");
    return answer(settled ? "ok" : "info", messages);
  });
}

/** Sets the dead letter's owner: the signed-in user (no `to`), a colleague (`to` an e-mail), or nobody (`to=none`). */
export async function assignDeadLetterAction(_previous: ActionResult | null, formData: FormData): Promise<ActionResult> {
  return runAction("dead_letters.manage", assignSchema, { id: formData.get("id"), to: formData.get("to") ?? "" }, async (actor, { id, to }) => {
    const t = await getTranslations("deadLetters");
    const owner = to === "" ? actor.email : to === UNASSIGNED ? null : to;
    const outcome = await assignDeadLetterAs(await db(), actor, id, owner);
    refresh();
    if (outcome === "not_a_colleague") return answer("bad", [t("notAColleague", { email: owner ?? "" })]);
    if (outcome === "not_open") return answer("bad", [t("notOpen")]);
    return answer("ok", [owner === null ? t("unassignedOk") : owner === actor.email ? t("assigned") : t("handedOk", { email: owner })]);
  });
}

/** Resolves a dead letter by hand with a note (audit row). */
export async function resolveDeadLetterAction(_previous: ActionResult | null, formData: FormData): Promise<ActionResult> {
  return runAction("dead_letters.manage", resolveSchema, { id: formData.get("id"), note: formData.get("note") }, async (actor, { id, note }) => {
    const t = await getTranslations("deadLetters");
    const done = await resolveDeadLetterAs(await db(), actor, id, note);
    refresh();
    return answer(done ? "ok" : "bad", [done ? t("resolvedOk") : t("notOpen")]);
  });
}
