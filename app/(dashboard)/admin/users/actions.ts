"use server";
// User management: `users.manage` (admin) checked inside each action, zod-validated, audited in lib/auth/users.
import { revalidatePath } from "next/cache";
import { getTranslations } from "next-intl/server";
import { z } from "zod";
import { roleSchema } from "@/lib/auth/roles";
import { answer, runAction, type ActionResult } from "@/lib/auth/run-action";
import { createUserAs, newUserSchema, setUserRoleAs } from "@/lib/auth/users";
import { db } from "@/lib/db/client";

export async function createUserAction(_previous: ActionResult | null, formData: FormData): Promise<ActionResult> {
  const input = { email: formData.get("email"), name: formData.get("name"), role: formData.get("role"), password: formData.get("password") };
  return runAction("users.manage", newUserSchema, input, async (actor, data) => {
    const t = await getTranslations("users");
    const result = await createUserAs(await db(), actor, data);
    revalidatePath("/admin/users");
    return result.kind === "created" ? answer("ok", [t("created", { email: result.user.email })]) : answer("bad", [t("exists")]);
  });
}

const roleChangeSchema = z.object({ userId: z.string().min(1).max(64), role: roleSchema });

export async function setRoleAction(_previous: ActionResult | null, formData: FormData): Promise<ActionResult> {
  return runAction("users.manage", roleChangeSchema, { userId: formData.get("userId"), role: formData.get("role") }, async (actor, { userId, role }) => {
    const t = await getTranslations("users");
    const common = await getTranslations("common");
    const result = await setUserRoleAs(await db(), actor, userId, role);
    revalidatePath("/admin/users");
    if (result === "updated") return answer("ok", [t("saved")]);
    return answer("bad", [result === "self" ? t("self") : common("notFound")]);
  });
}
