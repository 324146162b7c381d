// An organization's alert channels: added (a webhook channel's signing secret generated here, shown
// once, stored encrypted), listed (never a secret) and removed. Every URL passes the outbound guard
// (lib/net/outbound-url.ts) here and again at each send.
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { settings } from "@/lib/config/settings";
import type { Db } from "@/lib/db/client";
import { newRowId } from "@/lib/db/row-id";
import { assertOutboundUrl, OutboundUrlError, type Resolve } from "@/lib/net/outbound-url";
import { encryptSecret, SecretsKeyMissingError } from "@/lib/secrets/secret-box";
import { secretsKeys, SecretsKeyError } from "@/lib/secrets/secrets-key";
import { disableAlertChannel, insertAlertChannel, type AlertChannelKind, type AlertChannelRow } from "@/lib/alerts/alert-store";

/** `POST /api/alerts/channels`'s body: an e-mail address, or a URL for Slack and the generic webhook. */
export const newAlertChannelSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("email"), to: z.email("must be an e-mail address").max(254) }).strict(),
  z.object({ kind: z.literal("slack"), url: z.string().trim().min(1, "required").max(2_000) }).strict(),
  z.object({ kind: z.literal("webhook"), url: z.string().trim().min(1, "required").max(2_000) }).strict(),
]);
export type NewAlertChannel = z.infer<typeof newAlertChannelSchema>;

/** A channel as the API and the page show it: never its secret. Times ISO 8601 UTC. */
export interface AlertChannelView {
  id: string;
  kind: AlertChannelKind;
  to: string | null;
  url: string | null;
  createdAt: string;
}

export function channelView(row: AlertChannelRow): AlertChannelView {
  return { id: row.id, kind: row.kind, to: row.to, url: row.url, createdAt: row.createdAt.toISOString() };
}

/** The context a webhook channel's secret is encrypted under: a ciphertext copied to another row does not decrypt. */
export function channelSecretContext(id: string): string {
  return `alert-channel:${id}`;
}

/** Why a channel was not added; `invalid` names the field. */
export type ChannelRefusal = { kind: "invalid"; message: string } | { kind: "unavailable"; code: "secrets_key_missing" | "smtp_not_configured"; message: string };

/**
 * Adds a channel to `organizationId`. A URL must pass the outbound guard (https to a public address,
 * unless ALERTS_ALLOW_PRIVATE_URLS); an e-mail channel needs SMTP_URL; a webhook channel gets a new
 * Standard Webhooks secret (`whsec_` + 32 random bytes in base64), returned here only and stored
 * encrypted under ACREDITA_SECRETS_KEY.
 */
export async function createAlertChannel(
  db: Db,
  organizationId: string,
  input: NewAlertChannel,
  options: { now?: Date; resolve?: Resolve } = {},
): Promise<{ kind: "created"; channel: AlertChannelView; secret?: string } | ChannelRefusal> {
  const now = options.now ?? new Date();
  const config = settings();
  const id = `ach_${newRowId(now)}`;
  if (input.kind === "email") {
    if (!config.SMTP_URL) return { kind: "unavailable", code: "smtp_not_configured", message: "SMTP_URL is not set: e-mail alerts cannot be sent from this deployment" };
    const row = { id, organizationId, kind: input.kind, to: input.to, url: null, secretCiphertext: null, createdAt: now };
    await insertAlertChannel(db, row);
    return { kind: "created", channel: channelView({ ...row, disabledAt: null }) };
  }
  try {
    await assertOutboundUrl(input.url, { allowPrivate: config.ALERTS_ALLOW_PRIVATE_URLS, resolve: options.resolve });
  } catch (error) {
    if (error instanceof OutboundUrlError) return { kind: "invalid", message: `url: ${error.message}` };
    throw error;
  }
  let secret: string | undefined;
  let secretCiphertext: string | null = null;
  if (input.kind === "webhook") {
    secret = `whsec_${randomBytes(32).toString("base64")}`;
    try {
      secretCiphertext = encryptSecret(secret, channelSecretContext(id), secretsKeys());
    } catch (error) {
      if (error instanceof SecretsKeyMissingError || error instanceof SecretsKeyError) return { kind: "unavailable", code: "secrets_key_missing", message: new SecretsKeyMissingError().message };
      throw error;
    }
  }
  const row = { id, organizationId, kind: input.kind, to: null, url: input.url, secretCiphertext, createdAt: now };
  await insertAlertChannel(db, row);
  return { kind: "created", channel: channelView({ ...row, disabledAt: null }), ...(secret ? { secret } : {}) };
}

/** The enabled channels of `organizationId`, oldest first. */
export async function listAlertChannels(db: Db, organizationId: string): Promise<{ data: AlertChannelView[]; count: number }> {
  const rows = (await db.alertChannel.findMany({ where: { organizationId, disabledAt: null }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] })) as AlertChannelRow[];
  return { data: rows.map(channelView), count: rows.length };
}

/** Removes a channel of `organizationId`; false when it has none by that id (another organization's included). */
export async function removeAlertChannel(db: Db, organizationId: string, id: string, now = new Date()): Promise<boolean> {
  return disableAlertChannel(db, organizationId, id, now);
}
