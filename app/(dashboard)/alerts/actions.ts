"use server";
// The Alerts page's changes: `alerts.manage` (admin) checked inside each action, zod-validated, written
// by lib/alerts. A webhook channel's generated secret is in the answer of the action that made it only.
import { revalidatePath } from "next/cache";
import { getTranslations } from "next-intl/server";
import { z } from "zod";
import { answer, runAction, type ActionResult } from "@/lib/auth/run-action";
import { db } from "@/lib/db/client";
import { createAlertChannel, newAlertChannelSchema, removeAlertChannel } from "@/lib/alerts/alert-channels";
import { ALERT_RULES, RULE_DEFAULTS } from "@/lib/alerts/alert-rules";
import { saveAlertRule } from "@/lib/alerts/alert-store";

/** An answer that may carry a new webhook channel's secret, shown once. */
export interface ChannelActionResult extends ActionResult {
  secret?: string;
}

function formText(formData: FormData, name: string): string | undefined {
  const value = formData.get(name);
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

export async function addChannelAction(_previous: ChannelActionResult | null, formData: FormData): Promise<ChannelActionResult> {
  const kind = formText(formData, "kind");
  const input = kind === "email" ? { kind, to: formText(formData, "to") } : { kind, url: formText(formData, "url") };
  let secret: string | undefined;
  const result = await runAction("alerts.manage", newAlertChannelSchema, input, async (actor, data) => {
    const t = await getTranslations("alerts");
    const created = await createAlertChannel(await db(), actor.organizationId, data);
    if (created.kind === "invalid") return answer("bad", [t("problem.url", { details: created.message.replace(/^url: /, "") })]);
    if (created.kind === "unavailable") return answer("bad", [t(`problem.${created.code}`)]);
    secret = created.secret;
    revalidatePath("/alerts");
    return answer("ok", [t("added")]);
  });
  return { ...result, ...(secret ? { secret } : {}) };
}

const channelIdSchema = z.object({ id: z.string().regex(/^ach_[0-9A-Z]{26}$/) });

export async function removeChannelAction(_previous: ActionResult | null, formData: FormData): Promise<ActionResult> {
  return runAction("alerts.manage", channelIdSchema, { id: formText(formData, "id") }, async (actor, data) => {
    const [t, common] = await Promise.all([getTranslations("alerts"), getTranslations("common")]);
    if (!(await removeAlertChannel(await db(), actor.organizationId, data.id))) return answer("bad", [common("notFound")]);
    revalidatePath("/alerts");
    return answer("ok", [t("removed")]);
  });
}

const ruleSchema = z
  .object({ rule: z.enum(ALERT_RULES), enabled: z.boolean(), threshold: z.coerce.number().int() })
  .superRefine((value, context) => {
    const { min, max } = RULE_DEFAULTS[value.rule];
    if (value.threshold < min || value.threshold > max) context.addIssue({ code: "custom", path: ["threshold"], message: `${min} to ${max}` });
  });

export async function saveRuleAction(_previous: ActionResult | null, formData: FormData): Promise<ActionResult> {
  return runAction("alerts.manage", ruleSchema, { rule: formText(formData, "rule"), enabled: formData.get("enabled") === "on", threshold: formText(formData, "threshold") }, async (actor, data) => {
    const t = await getTranslations("alerts");
    await saveAlertRule(await db(), actor.organizationId, data.rule, { enabled: data.enabled, threshold: data.threshold });
    revalidatePath("/alerts");
    return answer("ok", [t("saved")]);
  });
}
