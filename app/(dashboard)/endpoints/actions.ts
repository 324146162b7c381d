"use server";
// Endpoints stored as data, from the Endpoints page: `endpoints.manage` (admin) checked inside each action,
// zod-validated, changed and audited by lib/endpoints/endpoint-store.ts. A secret the admin typed is never
// sent back; one Acredita generated is in the answer of the action that made it, and nowhere else.
import { revalidatePath } from "next/cache";
import { getLocale, getTranslations } from "next-intl/server";
import { z } from "zod";
import type { Actor } from "@/lib/auth/roles";
import { answer, runAction, type ActionResult } from "@/lib/auth/run-action";
import { db } from "@/lib/db/client";
import { DEFAULT_BACKFILL_HOURS, requestBackfill } from "@/lib/backfill/backfill-requests";
import {
  createEndpoint,
  DATA_ENDPOINT_PROVIDERS,
  deleteEndpoint,
  MAX_OVERLAP_SECONDS,
  removeEndpointApiKey,
  retireSecret,
  rotateSecret,
  setEndpointApiKey,
  setEndpointStatus,
  type EndpointActor,
  type EndpointRefusal,
} from "@/lib/endpoints/endpoint-store";
import { endpointAccountSchema } from "@/lib/endpoints/endpoints";
import { formatDateTime } from "@/lib/format/format";

/** What a form that may make a secret shows: the usual answer, plus that secret in clear once. */
export interface SecretActionResult extends ActionResult {
  secret?: string;
  /** The endpoint the answer is about (a new one's id). */
  endpointId?: string;
}

const asEndpointActor = (actor: Actor): EndpointActor => ({ id: actor.id, email: actor.email, operator: false, role: actor.role });

/** An empty form field is an absent one. */
const optionalText = (max: number) =>
  z
    .string()
    .max(max)
    .optional()
    .transform((value) => (value === undefined || value.trim() === "" ? undefined : value));

const endpointIdSchema = z.string().regex(/^ep_[a-z0-9]{20}$/);

const createSchema = z.object({
  provider: z.enum(DATA_ENDPOINT_PROVIDERS),
  account: endpointAccountSchema,
  livemode: z.enum(["live", "test"]).transform((value) => value === "live"),
  processingMode: z.enum(["default", "inline", "inbox"]).transform((value) => (value === "default" ? undefined : value)),
  secret: optionalText(1_024),
  options: optionalText(20_000),
});

/** A refusal in the reader's language: its problem's sentence where it has one, else the generic words and the API's detail. */
async function refusalAnswer(refusal: EndpointRefusal): Promise<ActionResult> {
  const t = await getTranslations("endpoints.data");
  const common = await getTranslations("common");
  if (refusal.kind === "invalid") return answer("bad", [refusal.problem === "options_invalid" ? t("problem.options_invalid", { details: refusal.message }) : t(`problem.${refusal.problem}`)]);
  if (refusal.kind === "forbidden") return answer("bad", [common("notAllowed")]);
  if (refusal.kind === "not_found") return answer("bad", [common("notFound")]);
  if (refusal.kind === "conflict") return answer("bad", [t(`conflict.${refusal.code}`)]);
  return answer("bad", [t(`keyProblem.${refusal.code}`)]);
}

function formText(formData: FormData, name: string): string | undefined {
  const value = formData.get(name);
  return typeof value === "string" ? value : undefined;
}

export async function createEndpointAction(_previous: SecretActionResult | null, formData: FormData): Promise<SecretActionResult> {
  const input = Object.fromEntries(["provider", "account", "livemode", "processingMode", "secret", "options"].map((name) => [name, formText(formData, name)]));
  let made: { secret?: string; endpointId?: string } = {};
  const result = await runAction("endpoints.manage", createSchema, input, async (actor, data) => {
    const t = await getTranslations("endpoints.data");
    let options: unknown;
    if (data.options !== undefined) {
      try {
        options = JSON.parse(data.options);
      } catch {
        return answer("bad", [t("problem.options_json")]);
      }
    }
    const created = await createEndpoint(await db(), { provider: data.provider, account: data.account, livemode: data.livemode, processingMode: data.processingMode, secret: data.secret, options }, asEndpointActor(actor), { organizationId: actor.organizationId });
    if (created.kind !== "created") return refusalAnswer(created);
    revalidatePath("/endpoints");
    made = { secret: created.secret, endpointId: created.endpoint.id };
    return answer("ok", [t("created", { id: created.endpoint.id })]);
  });
  return { ...result, ...(made.endpointId ? { endpointId: made.endpointId } : {}), ...(made.secret ? { secret: made.secret } : {}) };
}

const rotateSchema = z.object({
  id: endpointIdSchema,
  secret: optionalText(1_024),
  overlapSeconds: z.coerce.number().int().min(0).max(MAX_OVERLAP_SECONDS),
});

export async function rotateSecretAction(_previous: SecretActionResult | null, formData: FormData): Promise<SecretActionResult> {
  const input = { id: formText(formData, "id"), secret: formText(formData, "secret"), overlapSeconds: formText(formData, "overlapSeconds") };
  let secret: string | undefined;
  const result = await runAction("endpoints.manage", rotateSchema, input, async (actor, data) => {
    const t = await getTranslations("endpoints.data");
    const rotated = await rotateSecret(await db(), data.id, { secret: data.secret, overlapSeconds: data.overlapSeconds }, asEndpointActor(actor), { organizationId: actor.organizationId });
    if (rotated.kind !== "rotated") return refusalAnswer(rotated);
    revalidatePath("/endpoints");
    secret = rotated.secret;
    return answer("ok", [rotated.previousExpiresAt ? t("rotated", { label: rotated.label, at: formatDateTime(rotated.previousExpiresAt, await getLocale()) }) : t("rotatedAlone", { label: rotated.label })]);
  });
  return secret ? { ...result, secret } : result;
}

const statusSchema = z.object({ id: endpointIdSchema, status: z.enum(["enabled", "disabled"]) });

export async function setEndpointStatusAction(_previous: ActionResult | null, formData: FormData): Promise<ActionResult> {
  return runAction("endpoints.manage", statusSchema, { id: formText(formData, "id"), status: formText(formData, "status") }, async (actor, data) => {
    const t = await getTranslations("endpoints.data");
    const changed = await setEndpointStatus(await db(), data.id, data.status, asEndpointActor(actor), { organizationId: actor.organizationId });
    if (changed.kind !== "updated") return refusalAnswer(changed);
    revalidatePath("/endpoints");
    return answer("ok", [t(data.status === "enabled" ? "enabledDone" : "disabledDone")]);
  });
}

const deleteSchema = z.object({ id: endpointIdSchema, confirm: z.literal("yes") });

export async function deleteEndpointAction(_previous: ActionResult | null, formData: FormData): Promise<ActionResult> {
  return runAction("endpoints.manage", deleteSchema, { id: formText(formData, "id"), confirm: formText(formData, "confirm") }, async (actor, data) => {
    const t = await getTranslations("endpoints.data");
    const deleted = await deleteEndpoint(await db(), data.id, asEndpointActor(actor), { organizationId: actor.organizationId });
    if (deleted.kind !== "deleted") return refusalAnswer(deleted);
    revalidatePath("/endpoints");
    return answer("ok", [t("deletedDone", { id: data.id })]);
  });
}

const retireSchema = z.object({ id: endpointIdSchema, label: z.string().regex(/^secret-\d{1,6}$/) });

export async function retireSecretAction(_previous: ActionResult | null, formData: FormData): Promise<ActionResult> {
  return runAction("endpoints.manage", retireSchema, { id: formText(formData, "id"), label: formText(formData, "label") }, async (actor, data) => {
    const t = await getTranslations("endpoints.data");
    const retired = await retireSecret(await db(), data.id, data.label, asEndpointActor(actor), { organizationId: actor.organizationId });
    if (retired.kind !== "retired") return refusalAnswer(retired);
    revalidatePath("/endpoints");
    return answer("ok", [t("retiredDone", { label: data.label })]);
  });
}

const apiKeySchema = z.object({ id: endpointIdSchema, apiKey: z.string().trim().min(1).max(255) });

export async function setApiKeyAction(_previous: ActionResult | null, formData: FormData): Promise<ActionResult> {
  return runAction("endpoints.manage", apiKeySchema, { id: formText(formData, "id"), apiKey: formText(formData, "apiKey") }, async (actor, data) => {
    const t = await getTranslations("endpoints.data");
    const set = await setEndpointApiKey(await db(), data.id, data.apiKey, asEndpointActor(actor), { organizationId: actor.organizationId });
    if (set.kind !== "updated") return refusalAnswer(set);
    revalidatePath("/endpoints");
    return answer("ok", [t("apiKeySaved")]);
  });
}

const endpointOnlySchema = z.object({ id: endpointIdSchema });

export async function removeApiKeyAction(_previous: ActionResult | null, formData: FormData): Promise<ActionResult> {
  return runAction("endpoints.manage", endpointOnlySchema, { id: formText(formData, "id") }, async (actor, data) => {
    const t = await getTranslations("endpoints.data");
    const removed = await removeEndpointApiKey(await db(), data.id, asEndpointActor(actor), { organizationId: actor.organizationId });
    if (removed.kind !== "updated") return refusalAnswer(removed);
    revalidatePath("/endpoints");
    return answer("ok", [t("apiKeyRemoved")]);
  });
}

/** An endpoint a backfill may be asked for: a data endpoint's id, or an environment-configured Stripe endpoint's name. */
const backfillSchema = z.object({ id: z.union([endpointIdSchema, z.enum(["stripe", "stripe-test"])]) });

export async function requestBackfillAction(_previous: ActionResult | null, formData: FormData): Promise<ActionResult> {
  return runAction("endpoints.manage", backfillSchema, { id: formText(formData, "id") }, async (actor, data) => {
    const t = await getTranslations("endpoints.data");
    const common = await getTranslations("common");
    const asked = await requestBackfill(await db(), data.id, { id: actor.id, email: actor.email, organizationId: actor.organizationId, operator: false, role: actor.role });
    if (asked.kind === "forbidden") return answer("bad", [common("notAllowed")]);
    if (asked.kind === "not_found") return answer("bad", [common("notFound")]);
    if (asked.kind === "conflict") return answer("bad", [t(`backfillConflict.${asked.code}`, { details: asked.message })]);
    revalidatePath("/endpoints");
    return answer(asked.created ? "ok" : "info", [asked.created ? t("backfillQueued", { hours: DEFAULT_BACKFILL_HOURS }) : t("backfillAlready")]);
  });
}
