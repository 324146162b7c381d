// Sends one alert notice (an outbox message with a channelId) to its channel: the generic webhook signed
// with Standard Webhooks under the channel's secret, Slack's incoming webhook as {text}, or e-mail over
// SMTP_URL. The outbox dispatcher calls it (through lib/background) and records the outcome: retries
// with backoff, uncertain when a request was written and no answer came.
import nodemailer from "nodemailer";
import { settings } from "@/lib/config/settings";
import type { Db } from "@/lib/db/client";
import { OutboundUrlError, pinnedLookup, resolveOutboundUrl } from "@/lib/net/outbound-url";
import type { ClaimedOutboxMessage } from "@/lib/outbox/outbox-store";
import { postWithIdempotencyKey, type SendOutcome } from "@/lib/outbox/post-with-idempotency-key";
import { signStandardWebhooks, STANDARD_WEBHOOKS_HEADERS } from "@/lib/providers/signatures/standard-webhooks-signature";
import { decryptSecret } from "@/lib/secrets/secret-box";
import { secretsKeys } from "@/lib/secrets/secrets-key";
import { channelSecretContext } from "@/lib/alerts/alert-channels";
import type { AlertNotice } from "@/lib/alerts/alert-message";
import { findAlertChannel } from "@/lib/alerts/alert-store";

/**
 * The Standard Webhooks headers of one send: `webhook-id` is the message's idempotency key (the same on
 * every retry, so a receiver drops a repeat), the timestamp is the send's, and the signature is over
 * `<id>.<timestamp>.<body>` (standardwebhooks.com).
 */
export function standardWebhooksHeaders(secret: string, id: string, body: string, now: Date): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return { [STANDARD_WEBHOOKS_HEADERS.id]: id, [STANDARD_WEBHOOKS_HEADERS.timestamp]: String(timestamp), [STANDARD_WEBHOOKS_HEADERS.signature]: signStandardWebhooks(secret, id, timestamp, body) };
}

const transports = new Map<string, nodemailer.Transporter>();

function transportFor(url: string, timeoutMs: number): nodemailer.Transporter {
  let transport = transports.get(url);
  if (!transport) {
    transport = nodemailer.createTransport(url, { connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs });
    transports.set(url, transport);
  }
  return transport;
}

/** An SMTP failure as a send outcome: 5xx refused (failed), 4xx or no connection retried, no answer after the message was handed over uncertain. */
function smtpOutcome(error: unknown): SendOutcome {
  const failure = error as { responseCode?: number; code?: string; command?: string; message?: string };
  const text = `${failure.code ?? "error"}${failure.responseCode ? ` ${failure.responseCode}` : ""}`;
  if (failure.responseCode !== undefined && failure.responseCode >= 500) return { kind: "refused", error: `the SMTP server refused the message (${text})` };
  if (failure.responseCode === undefined && /DATA|message/i.test(failure.command ?? "")) return { kind: "uncertain", error: `no answer from the SMTP server after the message (${text})` };
  return { kind: "not_sent", error: `SMTP: ${text}` };
}

/** Sends `message` to its channel. Never throws; the error texts never contain a URL or a secret. */
export async function sendAlertMessage(db: Db, message: ClaimedOutboxMessage, now = new Date()): Promise<SendOutcome> {
  const channel = message.channelId ? await findAlertChannel(db, message.channelId) : null;
  if (!channel || channel.disabledAt) return { kind: "refused", error: "the alert channel was removed" };
  const config = settings();
  const notice = JSON.parse(message.body) as AlertNotice;
  if (channel.kind === "email") {
    if (!config.SMTP_URL) return { kind: "refused", error: "SMTP_URL is not set" };
    const details = [notice.summary, "", `Incident: ${notice.incident.id}`, `Rule: ${notice.incident.rule}`, `Key: ${notice.incident.key || "-"}`, `Opened: ${notice.incident.opened_at}`];
    if (notice.incident.resolved_at) details.push(`Resolved: ${notice.incident.resolved_at}`);
    details.push(`Count: ${notice.incident.count}`, `Detail: ${JSON.stringify(notice.incident.detail)}`);
    try {
      const sent = await transportFor(config.SMTP_URL, config.OUTBOX_TIMEOUT_MS).sendMail({
        from: config.ALERTS_EMAIL_FROM,
        to: channel.to!,
        subject: notice.summary,
        text: details.join("\n"),
        // One Message-ID per notice: a repeat after an uncertain send threads with the first.
        messageId: `<${message.idempotencyKey.replaceAll(":", ".")}@acredita>`,
      });
      return { kind: "delivered", detail: `accepted by the SMTP server (${String(sent.response ?? "").slice(0, 3) || "250"})` };
    } catch (error) {
      return smtpOutcome(error);
    }
  }
  let checked: Awaited<ReturnType<typeof resolveOutboundUrl>>;
  try {
    checked = await resolveOutboundUrl(channel.url!, { allowPrivate: config.ALERTS_ALLOW_PRIVATE_URLS });
  } catch (error) {
    if (error instanceof OutboundUrlError) return { kind: "refused", error: `the channel's URL is refused: ${error.message}` };
    throw error;
  }
  // Sent to the addresses just checked, never to what a second DNS answer says.
  const pinned = checked.addresses ? { lookup: pinnedLookup(checked.addresses) } : {};
  if (channel.kind === "slack") return postWithIdempotencyKey(channel.url!, JSON.stringify({ text: notice.summary }), message.idempotencyKey, config.OUTBOX_TIMEOUT_MS, {}, pinned);
  if (!channel.secretCiphertext) return { kind: "refused", error: "the channel has no signing secret" };
  const secret = decryptSecret(channel.secretCiphertext, channelSecretContext(channel.id), secretsKeys());
  return postWithIdempotencyKey(channel.url!, message.body, message.idempotencyKey, config.OUTBOX_TIMEOUT_MS, standardWebhooksHeaders(secret, message.idempotencyKey, message.body, now), pinned);
}
