import { ClaimingWorker } from "@/lib/jobs/claiming-worker";
import { newWorkerId } from "@/lib/jobs/worker-id";
import { settings } from "@/lib/config/settings";
import type { Db } from "@/lib/db/client";
import { retryDelayMs } from "@/lib/jobs/retry-policy";
import { logger } from "@/lib/log/logger";
import { claimNextOutboxMessage, markAbandonedSendsUncertain, recordSendOutcome, type ClaimedOutboxMessage } from "@/lib/outbox/outbox-store";
import { postWithIdempotencyKey, type SendOutcome } from "@/lib/outbox/post-with-idempotency-key";
import { crashAt } from "@/lib/test-hooks/crash-point";
import { signTimestamped } from "@/lib/providers/signatures/timestamped-header";

/** Header carrying the fulfilment POST's signature when FULFILMENT_WEBHOOK_SECRET is set. */
export const FULFILMENT_SIGNATURE_HEADER = "Acredita-Signature";

/** Dispatcher settings; defaults from the settings (OUTBOX_*, INBOX_RETRY_*). */
export interface OutboxDispatcherOptions {
  owner?: string;
  leaseMs?: number;
  timeoutMs?: number;
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  pollIntervalMs?: number;
  /** Signing secret (default FULFILMENT_WEBHOOK_SECRET); unsigned when absent. */
  signingSecret?: string;
  /**
   * Sends a message that goes to an alert channel (channelId set): lib/alerts' sender, passed in by
   * lib/background (lib/alerts writes the outbox, so the outbox cannot import it). Without one, such a
   * message fails at once with a note saying so.
   */
  channelSender?: ChannelSender;
  now?: () => Date;
  random?: () => number;
}

/** Sends one claimed alert message to its channel; never throws. */
export type ChannelSender = (db: Db, message: ClaimedOutboxMessage) => Promise<SendOutcome>;

/** The status a message ends a send in: sent, pending (retry later), failed (needs a person) or uncertain. */
export interface DispatchResult {
  messageId: string;
  status: "sent" | "pending" | "failed" | "uncertain";
  detail: string;
  /** For `pending`: the delay (ms) before the next send. */
  retryInMs?: number;
}

/** Answers a sender should try again: timeouts, in-progress idempotent twin (409), rate limits, server errors. */
function retryableStatus(statusCode: number): boolean {
  return statusCode === 408 || statusCode === 409 || statusCode === 425 || statusCode === 429 || statusCode >= 500;
}

/**
 * Sends outbox messages (the merchant's fulfilment webhook): claims one due message, POSTs it with its
 * Idempotency-Key (signed with FULFILMENT_WEBHOOK_SECRET when set), and records the answer. 2xx: sent. Not sent at all, 408/409/425/429 or 5xx: retried
 * with exponential backoff and jitter, then failed after OUTBOX_MAX_ATTEMPTS. Another 4xx: failed.
 * Sent but no answer (timeout, reset), or the dispatcher died before recording: uncertain, never
 * re-sent blindly (no HTTP webhook offers exactly-once across services).
 */
export class OutboxDispatcher extends ClaimingWorker<DispatchResult> {
  readonly owner: string;
  private readonly config: Required<Omit<OutboxDispatcherOptions, "owner" | "pollIntervalMs" | "random" | "signingSecret" | "channelSender">> & { random?: () => number; signingSecret?: string; channelSender?: ChannelSender };

  constructor(
    private readonly database: () => Promise<Db>,
    options: OutboxDispatcherOptions = {},
  ) {
    super("outbox-dispatcher", "outbox", options.pollIntervalMs ?? settings().INBOX_POLL_INTERVAL_MS);
    const config = settings();
    this.owner = options.owner ?? newWorkerId("outbox");
    this.config = {
      leaseMs: options.leaseMs ?? config.OUTBOX_LEASE_MS,
      timeoutMs: options.timeoutMs ?? config.OUTBOX_TIMEOUT_MS,
      maxAttempts: options.maxAttempts ?? config.OUTBOX_MAX_ATTEMPTS,
      baseDelayMs: options.baseDelayMs ?? config.INBOX_RETRY_BASE_MS,
      maxDelayMs: options.maxDelayMs ?? config.INBOX_RETRY_MAX_DELAY_MS,
      now: options.now ?? (() => new Date()),
      random: options.random,
      signingSecret: options.signingSecret ?? config.FULFILMENT_WEBHOOK_SECRET,
      channelSender: options.channelSender,
    };
  }

  /** Marks abandoned sends uncertain, then sends at most one due message. Returns its result, or null when none was due. */
  async runOnce(): Promise<DispatchResult | null> {
    const db = await this.database();
    const abandoned = await markAbandonedSendsUncertain(db, this.config.now());
    if (abandoned > 0) logger.warn({ count: abandoned }, "outbox messages marked uncertain: their dispatcher stopped while sending");
    const message = await claimNextOutboxMessage(db, this.owner, this.config.now(), this.config.leaseMs);
    if (!message) return null;
    const outcome = message.channelId !== null ? await this.sendToChannel(db, message) : await this.sendFulfilment(message);
    crashAt("outbox-after-send-before-record");
    return this.record(db, message, outcome);
  }

  private sendFulfilment(message: ClaimedOutboxMessage): Promise<SendOutcome> {
    // Signed at send time (fresh timestamp per attempt), so no signature is ever stored.
    const signature: Record<string, string> = this.config.signingSecret ? { [FULFILMENT_SIGNATURE_HEADER]: signTimestamped(this.config.signingSecret, Math.floor(Date.now() / 1000), message.body) } : {};
    return postWithIdempotencyKey(message.target, message.body, message.idempotencyKey, this.config.timeoutMs, signature);
  }

  private async sendToChannel(db: Db, message: ClaimedOutboxMessage): Promise<SendOutcome> {
    if (!this.config.channelSender) return { kind: "refused", error: "this dispatcher sends no alerts (started without lib/alerts' sender)" };
    try {
      return await this.config.channelSender(db, message);
    } catch (error) {
      // A sender that throws did not get as far as a request.
      return { kind: "not_sent", error: error instanceof Error ? error.message : String(error) };
    }
  }

  private async record(db: Db, message: ClaimedOutboxMessage, outcome: SendOutcome): Promise<DispatchResult> {
    const now = this.config.now();
    let status: DispatchResult["status"];
    let detail: string;
    let lastStatusCode: number | null = null;
    if (outcome.kind === "answered") {
      lastStatusCode = outcome.statusCode;
      if (outcome.statusCode >= 200 && outcome.statusCode < 300) {
        status = "sent";
        detail = `answered ${outcome.statusCode}`;
      } else if (retryableStatus(outcome.statusCode)) {
        status = message.attempts >= this.config.maxAttempts ? "failed" : "pending";
        detail = `answered ${outcome.statusCode}`;
      } else {
        status = "failed";
        detail = `answered ${outcome.statusCode}: the target refused the message; check its configuration, then resend`;
      }
    } else if (outcome.kind === "delivered") {
      status = "sent";
      detail = outcome.detail;
    } else if (outcome.kind === "refused") {
      status = "failed";
      detail = `not sent: ${outcome.error}`;
    } else if (outcome.kind === "not_sent") {
      status = message.attempts >= this.config.maxAttempts ? "failed" : "pending";
      detail = `not sent: ${outcome.error}`;
    } else {
      status = "uncertain";
      detail = `sent, no answer (${outcome.error}): the target may have acted; reconcile before resending`;
    }
    if (status === "failed" && (outcome.kind === "not_sent" || (outcome.kind === "answered" && retryableStatus(outcome.statusCode)))) detail = `${detail}; gave up after ${message.attempts} attempts`;
    const retryInMs = status === "pending" ? retryDelayMs(message.attempts, this.config, this.config.random) : undefined;
    const nextAttemptAt = new Date(now.getTime() + (retryInMs ?? 0));
    if (!(await recordSendOutcome(db, message.id, this.owner, { status, lastStatusCode, lastError: status === "sent" ? null : detail, nextAttemptAt }))) {
      // Our lease expired mid-send and the message was already marked uncertain: leave that verdict.
      logger.warn({ messageId: message.id }, "outbox lease lost before the answer was recorded");
      return { messageId: message.id, status: "uncertain", detail: "lease expired before the answer was recorded" };
    }
    return retryInMs === undefined ? { messageId: message.id, status, detail } : { messageId: message.id, status, detail, retryInMs };
  }
}
