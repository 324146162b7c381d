"use server";
// User and API key management: `users.manage` (admin) checked inside each action, zod-validated, audited
// in lib/auth/users.ts and lib/auth/api-keys.ts. Role, activation and session changes go through the
// better-auth admin plugin with the acting admin's own request headers.
import { headers } from "next/headers";
import { revalidatePath } from "next/cache";
import { getTranslations } from "next-intl/server";
import { z } from "zod";
import { getAuth } from "@/lib/auth/auth";
import { createApiKeyAs, newApiKeySchema, revokeApiKeyAs } from "@/lib/auth/api-keys";
import { roleSchema } from "@/lib/auth/roles";
import { answer, runAction, type ActionResult } from "@/lib/auth/run-action";
import { adminCalls, createUserAs, newUserSchema, revokeUserSessionsAs, setUserActiveAs, setUserRoleAs } from "@/lib/auth/users";
import { db } from "@/lib/db/client";

async function calls() {
  return adminCalls(await getAuth(), await headers());
}

export async function createUserAction(_previous: ActionResult | null, formData: FormData): Promise<ActionResult> {
  const input = { email: formData.get("email"), name: formData.get("name"), role: formData.get("role"), password: formData.get("password") };
  return runAction("users.manage", newUserSchema, input, async (actor, data) => {
    const t = await getTranslations("users");
    const result = await createUserAs(await db(), actor, data);
    revalidatePath("/admin/users");
    if (result.kind === "demo_mode") return answer("bad", [t("demoMode")]);
    return result.kind === "created" ? answer("ok", [t("created", { email: result.user.email })]) : answer("bad", [t("exists")]);
  });
}

const roleChangeSchema = z.object({ userId: z.string().min(1).max(64), role: roleSchema });

export async function setRoleAction(_previous: ActionResult | null, formData: FormData): Promise<ActionResult> {
  return runAction("users.manage", roleChangeSchema, { userId: formData.get("userId"), role: formData.get("role") }, async (actor, { userId, role }) => {
    const t = await getTranslations("users");
    const common = await getTranslations("common");
    const result = await setUserRoleAs(await db(), actor, await calls(), userId, role);
    revalidatePath("/admin/users");
    if (result === "updated") return answer("ok", [t("savedRevoked")]);
    if (result === "unchanged") return answer("info", [t("unchanged")]);
    return answer("bad", [result === "self" ? t("self") : common("notFound")]);
  });
}

const activeSchema = z.object({ userId: z.string().min(1).max(64), active: z.enum(["true", "false"]).transform((value) => value === "true") });

export async function setActiveAction(_previous: ActionResult | null, formData: FormData): Promise<ActionResult> {
  return runAction("users.manage", activeSchema, { userId: formData.get("userId"), active: formData.get("active") }, async (actor, { userId, active }) => {
    const t = await getTranslations("users");
    const common = await getTranslations("common");
    const result = await setUserActiveAs(await db(), actor, await calls(), userId, active);
    revalidatePath("/admin/users");
    if (result === "updated") return answer("ok", [active ? t("reactivatedDone") : t("deactivatedDone")]);
    return answer("bad", [result === "self" ? t("selfDeactivate") : result === "shared" ? t("sharedDeactivate") : common("notFound")]);
  });
}

const userIdSchema = z.object({ userId: z.string().min(1).max(64) });

export async function revokeSessionsAction(_previous: ActionResult | null, formData: FormData): Promise<ActionResult> {
  return runAction("users.manage", userIdSchema, { userId: formData.get("userId") }, async (actor, { userId }) => {
    const t = await getTranslations("users");
    const common = await getTranslations("common");
    const result = await revokeUserSessionsAs(await db(), actor, await calls(), userId);
    revalidatePath("/admin/users");
    return result === "revoked" ? answer("ok", [t("sessionsRevoked")]) : answer("bad", [common("notFound")]);
  });
}

/** What the create-key form shows: the usual answer, plus the new key in clear once. */
export interface ApiKeyActionResult extends ActionResult {
  key?: string;
}

export async function createApiKeyAction(_previous: ApiKeyActionResult | null, formData: FormData): Promise<ApiKeyActionResult> {
  const input = { userId: formData.get("userId"), name: formData.get("name"), days: formData.get("days") };
  let key: string | undefined;
  const result = await runAction("users.manage", newApiKeySchema, input, async (actor, data) => {
    const t = await getTranslations("users");
    const created = await createApiKeyAs(await db(), actor, data);
    revalidatePath("/admin/users");
    if (created.kind === "not_found") return answer("bad", [t("ownerNotFound")]);
    key = created.key;
    return answer("ok", [t("keyCreated")]);
  });
  return key ? { ...result, key } : result;
}

const keyIdSchema = z.object({ keyId: z.string().min(1).max(64) });

export async function revokeApiKeyAction(_previous: ActionResult | null, formData: FormData): Promise<ActionResult> {
  return runAction("users.manage", keyIdSchema, { keyId: formData.get("keyId") }, async (actor, { keyId }) => {
    const t = await getTranslations("users");
    const common = await getTranslations("common");
    const result = await revokeApiKeyAs(await db(), actor, keyId);
    revalidatePath("/admin/users");
    return result === "revoked" ? answer("ok", [t("keyRevoked")]) : answer("bad", [common("notFound")]);
  });
}
