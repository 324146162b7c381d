"use server";
// Review queue actions: `review.manage` checked inside each action, zod-validated, audited in lib/review.
import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { z } from "zod";
import { answer, runAction, type ActionResult } from "@/lib/auth/run-action";
import { db } from "@/lib/db/client";
import { resolveExtraChargeAs, resolveOutboxAs } from "@/lib/review/review-queue";
import { actingOrganizationBase } from "@/lib/auth/session";

const resolveSchema = z.object({ kind: z.enum(["extra_charge", "outbox"]), id: z.string().min(1).max(64), note: z.string().trim().min(3).max(1000) });

/** Resolves an open extra charge or an uncertain outbox row with a note. */
export async function resolveReviewItemAction(_previous: ActionResult | null, formData: FormData): Promise<ActionResult> {
  const result = await runAction("review.manage", resolveSchema, { kind: formData.get("kind"), id: formData.get("id"), note: formData.get("note") }, async (actor, { kind, id, note }) => {
    const t = await getTranslations("review");
    const dead = await getTranslations("deadLetters");
    const client = await db();
    const done = kind === "extra_charge" ? await resolveExtraChargeAs(client, actor, id, note) : await resolveOutboxAs(client, actor, id, note);
    revalidatePath("/review");
    revalidatePath("/orders", "layout");
    return answer(done ? "ok" : "bad", [done ? t("resolvedOk") : dead("notOpen")]);
  });
  // Resolved: the row leaves the table, and its form with it; the page says so instead.
  if (result.ok) redirect(`${await actingOrganizationBase()}/review?resolved=${formData.get("kind") === "outbox" ? "outbox" : "extra_charge"}`);
  return result;
}
