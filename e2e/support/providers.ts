// Helpers that play Stripe, Yolfi and a Standard Webhooks sender against the webhook route handler.
// Signatures come from the providers' own packages (stripe, standardwebhooks) wherever one exists.
import { Webhook } from "standardwebhooks";
import Stripe from "stripe";
import { db } from "@/lib/db/client";
import { hmacSha256 } from "@/lib/providers/signatures/hmac";
import { deliver, sentSignatures } from "./http";
import { paymentIntent, stripeEvent } from "./stripe-objects";

export { paymentIntent, stripeEvent };
import { onPostgres } from "./test-database";

/** Offline Stripe client: only its webhook helpers are used (no network). */
export const stripe = new Stripe("sk_test_dummy");

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);


/** A paid (by default) Checkout Session, as in checkout.session.completed. */
export function checkoutSession(fields: { id: string; paymentIntent: string | null; clientReferenceId?: string | null; orderIdMetadata?: string; amount: number; currency: string; paymentStatus?: string }): Record<string, unknown> {
  return {
    id: fields.id,
    object: "checkout.session",
    amount_subtotal: fields.amount,
    amount_total: fields.amount,
    client_reference_id: fields.clientReferenceId ?? null,
    currency: fields.currency,
    livemode: true,
    metadata: fields.orderIdMetadata ? { order_id: fields.orderIdMetadata } : {},
    mode: "payment",
    payment_intent: fields.paymentIntent,
    payment_status: fields.paymentStatus ?? "paid",
    status: "complete",
  };
}


/** A Refund object (docs.stripe.com/api/refunds/object): `created` in unix seconds. */
export function refundObject(fields: { id: string; paymentIntent: string; charge?: string; amount: number; currency?: string; status: string; created: number }): Record<string, unknown> {
  return {
    id: fields.id,
    object: "refund",
    amount: fields.amount,
    balance_transaction: `txn_${fields.id}`,
    charge: fields.charge ?? `ch_${fields.paymentIntent}`,
    created: fields.created,
    currency: fields.currency ?? "usd",
    metadata: {},
    payment_intent: fields.paymentIntent,
    reason: "requested_by_customer",
    status: fields.status,
    ...(fields.status === "failed" ? { failure_reason: "expired_or_canceled_card", failure_balance_transaction: `txn_${fields.id}_failure` } : {}),
  };
}

/** A Dispute object (docs.stripe.com/api/disputes/object) with its balance transactions (amounts signed, minor units). */
export function disputeObject(fields: { id: string; paymentIntent: string; amount: number; currency?: string; status: string; balanceTransactions?: { id: string; amount: number }[] }): Record<string, unknown> {
  const currency = fields.currency ?? "usd";
  return {
    id: fields.id,
    object: "dispute",
    amount: fields.amount,
    balance_transactions: (fields.balanceTransactions ?? []).map((transaction) => ({
      id: transaction.id,
      object: "balance_transaction",
      amount: transaction.amount,
      currency,
      exchange_rate: null,
      fee: transaction.amount < 0 ? 1_500 : -1_500,
      net: transaction.amount < 0 ? transaction.amount - 1_500 : transaction.amount + 1_500,
      reporting_category: transaction.amount < 0 ? "dispute" : "dispute_reversal",
      type: "adjustment",
    })),
    charge: `ch_${fields.paymentIntent}`,
    currency,
    livemode: true,
    payment_intent: fields.paymentIntent,
    reason: "fraudulent",
    status: fields.status,
  };
}

/**
 * A Charge, as in charge.refunded: `amountRefunded` is the absolute refunded total; `refunds`, when given,
 * is the charge's refunds list (API versions before 2022-11-15, or an expanded payload).
 */
export function charge(fields: { id: string; paymentIntent: string | null; amount: number; amountRefunded: number; currency: string; orderId?: string; refunds?: Record<string, unknown>[] }): Record<string, unknown> {
  return {
    ...(fields.refunds ? { refunds: { object: "list", data: fields.refunds, has_more: false, total_count: fields.refunds.length, url: `/v1/charges/${fields.id}/refunds` } } : {}),
    id: fields.id,
    object: "charge",
    amount: fields.amount,
    amount_captured: fields.amount,
    amount_refunded: fields.amountRefunded,
    currency: fields.currency,
    captured: true,
    livemode: true,
    metadata: fields.orderId ? { order_id: fields.orderId } : {},
    paid: true,
    payment_intent: fields.paymentIntent,
    refunded: fields.amountRefunded === fields.amount,
    status: "succeeded",
  };
}

/** A Stripe-Signature value made by the official package (`t=...,v1=...`). */
export function stripeHeader(payload: string, secret: string, timestamp = nowSeconds()): string {
  return stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });
}

/** Delivers a Stripe body signed by the official package; `headerName` lets tests vary the header's case. */
export function deliverStripe(body: string, options: { secret: string; timestamp?: number; endpoint?: string; headerName?: string }) {
  return deliver(options.endpoint ?? "stripe", body, { [options.headerName ?? "Stripe-Signature"]: stripeHeader(body, options.secret, options.timestamp) });
}

/** A Yolfi event body as the seed guide describes it. */
export function yolfiEvent(fields: { id: string; type: string; orgId?: string | null; livemode?: boolean; data?: Record<string, unknown> }): string {
  return JSON.stringify({
    id: fields.id,
    type: fields.type,
    ...(fields.orgId === null ? {} : { orgId: fields.orgId ?? "org_merchant_1" }),
    livemode: fields.livemode ?? true,
    createdAt: "2026-11-29T12:00:00.000Z",
    data: fields.data ?? {},
  });
}

/** Yolfi's signature: base64 HMAC-SHA256 of the raw body with the secret (docs.yolfi.com, webhook signatures). */
export function yolfiSignature(body: string | Buffer, secret: string): string {
  return hmacSha256(secret, body).toString("base64");
}

/** Delivers a Yolfi body; `eventIdHeader` false omits X-Yolfi-Event-ID, a string overrides it. */
export function deliverYolfi(body: string, options: { secret: string; endpoint?: string; eventIdHeader?: string | false; signature?: string; headerName?: string }) {
  const signature = options.signature ?? yolfiSignature(body, options.secret);
  sentSignatures.add(signature);
  const headers: Record<string, string> = { [options.headerName ?? "X-Yolfi-Signature"]: signature };
  const id = (JSON.parse(body) as { id: string }).id;
  if (options.eventIdHeader !== false) headers["X-Yolfi-Event-ID"] = options.eventIdHeader ?? id;
  return deliver(options.endpoint ?? "yolfi", body, headers);
}

/** Standard Webhooks headers signed by the official `standardwebhooks` package. */
export function standardWebhooksHeaders(id: string, body: string, secret: string, timestamp = nowSeconds()): Record<string, string> {
  const signature = new Webhook(secret).sign(id, new Date(timestamp * 1000), body);
  return { "webhook-id": id, "webhook-timestamp": String(timestamp), "webhook-signature": signature };
}

/** The decision rows of one event id, oldest first. */
export async function decisionsOf(eventId: string) {
  return (await db()).decision.findMany({ where: { eventId }, orderBy: { at: "asc" } });
}

/**
 * The most recently inserted decision row of an endpoint (`at` may tie under a frozen clock): SQLite's
 * rowid order; on PostgreSQL the inserting transaction's id (`xmin`), each decision being written by
 * its own transaction.
 */
export async function lastDecision(endpoint: string) {
  const database = await db();
  const rows = onPostgres
    ? await database.$queryRaw<{ id: string }[]>`SELECT id FROM "Decision" WHERE endpoint = ${endpoint} ORDER BY xmin::text::bigint DESC LIMIT 1`
    : await database.$queryRaw<{ id: string }[]>`SELECT id FROM Decision WHERE endpoint = ${endpoint} ORDER BY rowid DESC LIMIT 1`;
  if (rows.length === 0) throw new Error(`no decision for ${endpoint}`);
  return database.decision.findUniqueOrThrow({ where: { id: rows[0].id } });
}
