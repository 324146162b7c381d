/**
 * The reasons' vocabulary: every reason a decision, a dead letter, a reconciliation mismatch or a
 * resolution gives is a stable code with typed parameters (amounts with their currency, ids, statuses,
 * seconds), stored beside the English sentence the logs and the webhook answers keep. Pages and CLIs
 * render the code in the reader's locale (lib/reasons/render-reason.ts); a row written before the codes
 * existed keeps its stored sentence. The English text of a code is exactly the sentence written before,
 * amounts in minor units ("credited 1500000 ARS"), so answers and logs do not change.
 */
import { z } from "zod";

// In the browser (the dead-letters table renders reasons client-side), zod's JIT probes `new Function`
// when a schema is built, which the dashboard's CSP (no 'unsafe-eval') reports as a violation. Set before
// the schemas below are built; the server keeps the JIT.
if (typeof window !== "undefined") z.config({ jitless: true });

/** An amount in integer minor units of an ISO 4217 currency. */
export interface Money {
  amount: number;
  currency: string;
}

/**
 * How a parameter is rendered: `money` formatted by currency, `status` / `category` / `mode` /
 * `outcome` / `what` / `phase` / `variant` (what a signature diagnosis found changed) / `role` /
 * `csvProblem` (csv-parse's error code) / `format` (a settlement report's format) translated from a fixed list, `zxcvbnTips` zxcvbn's feedback keys
 * (space-separated, each translated), `time` an ISO 8601 UTC instant formatted by Intl (in UTC), `id` / `text` / `type` shown verbatim
 * (ids, currency codes, event types), `number` / `seconds` formatted as numbers, `cause` a nested
 * reason (or a plain sentence when its source had no code).
 */
export type ParamKind = "money" | "id" | "text" | "type" | "status" | "category" | "mode" | "outcome" | "what" | "phase" | "variant" | "role" | "csvProblem" | "zxcvbnTips" | "format" | "time" | "number" | "seconds" | "cause";

/** A reason as stored: its code, its parameters and, for a compound sentence, the reasons that follow it. */
export interface ReasonRef {
  code: ReasonCode;
  params: Record<string, unknown>;
  /** Reasons joined after this one with "; " (e.g. "...; dead letter resolved"). */
  then?: ReasonRef[];
}

type ValueOf<K extends ParamKind> = K extends "money" ? Money : K extends "number" | "seconds" ? number : K extends "cause" ? ReasonRef | string : string;
type ParamsOf<P extends Record<string, ParamKind>> = { [Name in keyof P]: ValueOf<P[Name]> };

interface Definition<P extends Record<string, ParamKind>> {
  params: P;
  en: (params: ParamsOf<P>) => string;
}

function define<const P extends Record<string, ParamKind>>(params: P, en: (params: ParamsOf<P>) => string): Definition<P> {
  return { params, en };
}

const WHAT_EN: Record<string, string> = { failed_refund: "failed refund", dispute: "dispute", refund: "refund" };
const what = (value: string) => WHAT_EN[value] ?? value;
/** What a signature diagnosis found changed between the sender's signing and the bytes received. */
export const DIAGNOSIS_VARIANTS_EN = {
  trailing_newline: "a trailing newline",
  trailing_crlf: "a trailing CR LF",
  trailing_space: "a trailing space",
  trailing_tab: "a trailing tab",
  leading_space: "a leading space",
  leading_newline: "a leading newline",
  compact_json: "compact JSON (JSON.stringify of the parsed body)",
  json_2_spaces: "JSON pretty-printed with 2 spaces",
  json_4_spaces: "JSON pretty-printed with 4 spaces",
  json_tabs: "JSON pretty-printed with tabs",
  without_trailing_newline: "the body without its trailing newline",
  with_trailing_newline: "the body with a trailing newline",
} as const;
/** A diagnosis variant's key. */
export type DiagnosisVariant = keyof typeof DIAGNOSIS_VARIANTS_EN;
const variant = (value: string) => DIAGNOSIS_VARIANTS_EN[value as DiagnosisVariant] ?? value;
/** The English sentence of a nested cause. */
const cause = (value: ReasonRef | string) => (typeof value === "string" ? value : reasonText(value));

/**
 * Every reason code, its parameters and its English sentence. The sentences are the ones the receiver
 * answered and logged before codes existed, byte for byte (tests and providers' logs read them).
 */
export const REASONS = {
  // Decisions of the core (lib/core/decide-effect.ts, apply-effect.ts, apply-stored-event.ts).
  live_test_scope: define({ eventMode: "mode", orderMode: "mode", orderId: "id" }, (p) => `${p.eventMode} event does not touch ${p.orderMode} order ${p.orderId}`),
  live_test_endpoint: define({ eventMode: "mode", endpointMode: "mode" }, (p) => `${p.eventMode} event on a ${p.endpointMode} endpoint: stored, no effect`),
  unknown_order: define({ orderId: "id" }, (p) => `unknown order ${p.orderId}`),
  unknown_checkout_session: define({ sessionId: "id" }, (p) => `unknown order checkout session ${p.sessionId}`),
  amount_missing: define({ paymentKey: "id", orderId: "id", provider: "id" }, (p) => `payment ${p.paymentKey} for order ${p.orderId} carries no amount, though ${p.provider} always sends one: not credited at the order's price`),
  already_credited: define({ paymentKey: "id", eventId: "id" }, (p) => `payment ${p.paymentKey} already credited by event ${p.eventId}`),
  extra_charge_duplicate: define({ paymentKey: "id" }, (p) => `extra charge ${p.paymentKey} already recorded`),
  extra_charge: define({ paymentKey: "id", amount: "money" }, (p) => `order already paid: payment ${p.paymentKey} recorded as an extra charge for review, not credited`),
  no_transition: define({ from: "status", trigger: "type", orderId: "id" }, (p) => `no transition from ${p.from} on ${p.trigger} for order ${p.orderId}`),
  currency_mismatch_payment: define({ orderId: "id", paid: "id", expected: "id" }, (p) => `currency mismatch for order ${p.orderId}: payment ${p.paid}, order ${p.expected}`),
  amount_mismatch_payment: define({ orderId: "id", paid: "money", expected: "money" }, (p) => `amount mismatch for order ${p.orderId}: payment ${p.paid.amount}, order ${p.expected.amount} (${p.expected.currency} minor units)`),
  credited: define({ amount: "money", orderId: "id", from: "status", to: "status" }, (p) => `credited ${p.amount.amount} ${p.amount.currency}; order ${p.orderId} ${p.from} -> ${p.to}`),
  extra_refund_noted: define({ paymentKey: "id" }, (p) => `refund of extra charge ${p.paymentKey} recorded; order unchanged`),
  refund_not_credited: define({ from: "status", orderId: "id", paymentKey: "id" }, (p) => `no transition from ${p.from} on payment.refunded for order ${p.orderId}: payment ${p.paymentKey} was never credited`),
  currency_mismatch_refund: define({ orderId: "id", refund: "id", payment: "id" }, (p) => `currency mismatch for refund of order ${p.orderId}: refund ${p.refund}, payment ${p.payment}`),
  refund_out_of_range: define({ total: "money", max: "money", orderId: "id" }, (p) => `refund total ${p.total.amount} is outside 1..${p.max.amount} for order ${p.orderId}`),
  refund_duplicate: define({ total: "money", paymentKey: "id", refunded: "money" }, (p) => `refund total ${p.total.amount} of payment ${p.paymentKey} already recorded (refunded ${p.refunded.amount})`),
  refunded: define({ amount: "money", total: "money", orderId: "id", from: "status", to: "status" }, (p) => `refunded ${p.amount.amount} ${p.amount.currency} (total ${p.total.amount}); order ${p.orderId} ${p.from} -> ${p.to}`),
  waiting_for_credit: define({ what: "what", paymentKey: "id", orderId: "id" }, (p) => `${what(p.what)} of payment ${p.paymentKey} for order ${p.orderId}, which was never credited: waiting for its credit`),
  currency_mismatch_other: define({ what: "what", orderId: "id", got: "id", payment: "id" }, (p) => `currency mismatch for ${what(p.what)} of order ${p.orderId}: ${p.got}, payment ${p.payment}`),
  amount_out_of_range: define({ what: "what", amount: "money", max: "money", orderId: "id" }, (p) => `${what(p.what)} amount ${p.amount.amount} is outside 1..${p.max.amount} for order ${p.orderId}`),
  // Decisions written before refunds and disputes were booked by their own objects: no longer given,
  // kept so the rows that carry them still render in the reader's language.
  refund_failed_duplicate: define({ refundId: "id", paymentKey: "id" }, (p) => `failed refund ${p.refundId} of payment ${p.paymentKey} already booked back`),
  refund_failed_waiting: define({ refundId: "id", amount: "money", refunded: "money", paymentKey: "id" }, (p) => `refund ${p.refundId} of ${p.amount.amount} failed, but only ${p.refunded.amount} of payment ${p.paymentKey} is booked as refunded: waiting for the refund`),
  refund_failed_booked: define({ refundId: "id", amount: "money", refunded: "money", orderId: "id", from: "status", to: "status" }, (p) => `refund ${p.refundId} failed: ${p.amount.amount} ${p.amount.currency} booked back (refunded ${p.refunded.amount}); order ${p.orderId} ${p.from} -> ${p.to}`),
  dispute_already_open: define({ disputeId: "id", orderId: "id", status: "status" }, (p) => `dispute ${p.disputeId} already open on order ${p.orderId} (${p.status})`),
  dispute_opened: define({ disputeId: "id", amount: "money", orderId: "id", from: "status", to: "status" }, (p) => `dispute ${p.disputeId} opened for ${p.amount.amount} ${p.amount.currency}; order ${p.orderId} ${p.from} -> ${p.to}`),
  dispute_withdrawal_duplicate: define({ disputeId: "id" }, (p) => `dispute ${p.disputeId} withdrawal already booked`),
  dispute_withdrawn: define({ disputeId: "id", amount: "money", orderId: "id", from: "status", to: "status" }, (p) => `dispute ${p.disputeId}: ${p.amount.amount} ${p.amount.currency} withdrawn; order ${p.orderId} ${p.from} -> ${p.to}`),
  dispute_reinstatement_duplicate: define({ disputeId: "id" }, (p) => `dispute ${p.disputeId} reinstatement already booked`),
  dispute_reinstate_waiting: define({ disputeId: "id", orderId: "id" }, (p) => `dispute ${p.disputeId} reinstates funds that were never booked as withdrawn for order ${p.orderId}: waiting for the withdrawal`),
  dispute_withdrawal_too_large: define({ disputeId: "id", amount: "money", available: "money", orderId: "id" }, (p) => `dispute ${p.disputeId}: withdrawal of ${p.amount.amount} ${p.amount.currency} is more than the ${p.available.amount} ${p.available.currency} of the payment not already withdrawn for order ${p.orderId}`),
  dispute_reinstatement_too_large: define({ disputeId: "id", amount: "money", withdrawn: "money", orderId: "id" }, (p) => `dispute ${p.disputeId}: reinstatement of ${p.amount.amount} ${p.amount.currency} is more than the ${p.withdrawn.amount} ${p.withdrawn.currency} it withdrew for order ${p.orderId}`),
  dispute_reinstated: define({ disputeId: "id", amount: "money", orderId: "id", status: "status" }, (p) => `dispute ${p.disputeId}: ${p.amount.amount} ${p.amount.currency} reinstated; order ${p.orderId} stays ${p.status}`),
  dispute_closed: define({ disputeId: "id", phase: "phase", orderId: "id", from: "status", to: "status" }, (p) => `dispute ${p.disputeId} ${p.phase}; order ${p.orderId} ${p.from} -> ${p.to}`),
  refund_booked: define({ refundId: "id", amount: "money" }, (p) => `refunded ${p.amount.amount} ${p.amount.currency} (refund ${p.refundId})`),
  refund_total_booked: define({ amount: "money", total: "money" }, (p) => `refunded ${p.amount.amount} ${p.amount.currency} that no refund object explains (refunded total ${p.total.amount})`),
  refund_reversed: define({ refundId: "id", amount: "money" }, (p) => `refund ${p.refundId} failed: ${p.amount.amount} ${p.amount.currency} booked back`),
  refund_facts_limit: define({ paymentKey: "id", limit: "number" }, (p) => `payment ${p.paymentKey} has more than ${p.limit} refunds or refunded totals: not applied, review it with the provider`),
  refunds_already_booked: define({ paymentKey: "id", refunded: "money" }, (p) => `refunds of payment ${p.paymentKey} already booked (refunded ${p.refunded.amount})`),
  order_books: define({ orderId: "id", from: "status", to: "status", refunded: "money", disputed: "money" }, (p) => `order ${p.orderId} ${p.from} -> ${p.to} (refunded ${p.refunded.amount}, disputed ${p.disputed.amount})`),
  waiting_for_payment: define({ what: "what", paymentKey: "id" }, (p) => `${what(p.what)} waiting for payment ${p.paymentKey}, which is not credited yet`),
  waiting_for_payment_charge: define({ what: "what", paymentKey: "id", chargeId: "id" }, (p) => `${what(p.what)} waiting for payment ${p.paymentKey} (charge ${p.chargeId}), which is not credited yet`),
  dispute_status: define({ disputeId: "id", phase: "phase" }, (p) => `dispute ${p.disputeId} ${p.phase}`),
  dispute_moved: define({ disputeId: "id", amount: "money", phase: "phase" }, (p) => `dispute ${p.disputeId}: ${p.amount.amount} ${p.amount.currency} ${p.phase === "funds_withdrawn" ? "withdrawn" : "reinstated"}`),
  dispute_known: define({ disputeId: "id", phase: "phase", orderId: "id" }, (p) => `dispute ${p.disputeId} (${p.phase}) already booked; order ${p.orderId} unchanged`),
  payment_failure_recorded: define({ paymentKey: "id" }, (p) => `payment failure of ${p.paymentKey} recorded; a later success still applies`),
  demo_secret: define({ eventId: "id", secretLabel: "id" }, (p) => `event ${p.eventId} was signed with a public demo secret (${p.secretLabel}) and is never applied outside demo mode`),
  dead_letter_resolved: define({}, () => "dead letter resolved"),

  // The delivery path (lib/ingest/).
  accepted: define({ eventId: "id" }, (p) => `event ${p.eventId} stored in the inbox; a worker applies it`),
  duplicate_event: define({ eventId: "id", status: "status" }, (p) => `event ${p.eventId} already stored (status ${p.status}); nothing changed`),
  event_conflict: define({ eventId: "id" }, (p) => `event id ${p.eventId} reused with a different signed body; the stored event was kept`),
  account_not_bound: define({ account: "id", endpoint: "id" }, (p) => `Connect event of account ${p.account}, which endpoint ${p.endpoint} is not bound to: recorded, not applied`),
  org_mismatch: define({ account: "id", endpoint: "id" }, (p) => `event organisation ${p.account} does not match endpoint ${p.endpoint}`),
  database_unavailable: define({}, () => "database unavailable; retry later"),
  not_stored: define({}, () => "database unavailable, event not stored; retry later"),
  endpoint_misconfigured: define({}, () => "endpoint misconfigured; see the server log"),
  unknown_endpoint: define({}, () => "unknown webhook endpoint"),
  endpoint_disabled: define({}, () => "endpoint disabled; deliveries are refused until it is enabled again, retry later"),

  // The inbox worker (lib/inbox/).
  retry_scheduled: define({ attempt: "number", category: "category", cause: "cause", seconds: "seconds" }, (p) => `attempt ${p.attempt} failed (${p.category}): ${cause(p.cause)}; next attempt in ${p.seconds} s`),
  retries_exhausted_attempts: define({ attempts: "number", max: "number", cause: "cause" }, (p) => `gave up after ${p.attempts} attempts (max ${p.max}); last error: ${cause(p.cause)}`),
  retries_exhausted_age: define({ attempts: "number", age: "seconds", maxAge: "seconds", cause: "cause" }, (p) => `gave up after ${p.attempts} attempts: event is ${p.age} s old (max ${p.maxAge} s); last error: ${cause(p.cause)}`),
  payload_not_json: define({ eventId: "id" }, (p) => `stored payload of event ${p.eventId} is not valid JSON`),
  unexpected_apply_error: define({}, () => "unexpected error while applying (see the worker's log)"),
  database_busy_tries: define({ tries: "number" }, (p) => `database busy after ${p.tries} tries`),
  concurrent_writer_tries: define({ tries: "number" }, (p) => `a concurrent writer changed the order after ${p.tries} tries`),
  claimed_too_often: define({ attempts: "number" }, (p) => `claimed ${p.attempts} times without finishing (workers stopped mid-attempt)`),

  // Providers' events that change nothing (lib/providers/).
  unhandled_event_type: define({ type: "type" }, (p) => `unhandled event type ${p.type}`),
  unhandled_stripe_event_type: define({ type: "type" }, (p) => `unhandled Stripe event type ${p.type}: stored, nothing changed`),
  unmapped_event_type: define({ type: "type" }, (p) => `event type ${p.type} is not mapped on this endpoint: stored, nothing changed`),
  session_not_paid: define({ sessionId: "id", paymentStatus: "type" }, (p) => `checkout session ${p.sessionId} has payment_status ${p.paymentStatus}: not paid, nothing credited`),
  session_without_intent: define({ sessionId: "id" }, (p) => `checkout session ${p.sessionId} has no payment intent (subscription or free session): nothing credited`),
  session_failed_without_intent: define({ sessionId: "id" }, (p) => `checkout session ${p.sessionId} failed without a payment intent`),
  intent_without_order: define({ intentId: "id" }, (p) => `payment intent ${p.intentId} has no metadata.order_id: its checkout.session.completed event credits it`),
  charge_without_intent: define({ chargeId: "id" }, (p) => `charge ${p.chargeId} has no payment intent: Acredita tracks payments by intent, nothing changed`),
  dispute_without_intent: define({ disputeId: "id" }, (p) => `dispute ${p.disputeId} has no payment intent: Acredita tracks payments by intent, nothing changed`),
  dispute_no_funds_moved: define({ disputeId: "id", status: "type" }, (p) => `dispute ${p.disputeId} has status ${p.status}: no funds moved, order unchanged`),
  refund_status_not_failed: define({ refundId: "id", status: "type" }, (p) => `refund ${p.refundId} has status ${p.status}: charge.refunded books refunds, nothing changed`),
  refund_without_intent: define({ refundId: "id" }, (p) => `refund ${p.refundId} has no payment intent: Acredita tracks payments by intent, nothing changed`),
  yolfi_invoice_created: define({ type: "type" }, (p) => `${p.type}: an invoice is not a payment: nothing changed`),
  yolfi_invoice_overdue: define({ type: "type" }, (p) => `${p.type}: invoice overdue: recorded; never reverts a delivered order`),
  yolfi_subscription_event: define({ type: "type" }, (p) => `${p.type}: subscription event: recorded; changes no single order`),
  yolfi_unhandled_type: define({ type: "type" }, (p) => `${p.type}: unhandled Yolfi event type: stored, nothing changed`),

  // Signature and body checks (lib/providers/signatures/, providers' parse).
  signature_missing: define({ header: "id" }, (p) => `missing ${p.header} header`),
  signature_malformed_timestamped: define({ header: "id" }, (p) => `malformed ${p.header} header: expected t=<unix seconds>,v1=<hex>`),
  signature_malformed_base64: define({ header: "id" }, (p) => `malformed ${p.header} header: expected base64`),
  signature_malformed_standard: define({}, () => "malformed webhook-signature header: no v1,<base64> signature"),
  signature_timestamp_not_number: define({ header: "id" }, (p) => `malformed ${p.header} header: timestamp is not a number`),
  standard_timestamp_not_number: define({}, () => "malformed webhook-timestamp header: not a number of unix seconds"),
  signature_mismatch: define({}, () => "signature does not match any configured signing secret"),
  timestamp_outside_tolerance: define({ age: "seconds", max: "seconds" }, (p) => `timestamp outside tolerance: ${p.age} s (max ${p.max})`),
  body_not_json: define({}, () => "body is not valid JSON"),
  invalid_event: define({ provider: "id", details: "text" }, (p) => `invalid ${p.provider} event: ${p.details}`),
  invalid_typed_event: define({ type: "type", details: "text" }, (p) => `invalid ${p.type} event: ${p.details}`),
  invalid_untyped_event: define({ details: "text" }, (p) => `invalid event: ${p.details}`),
  invalid_event_object: define({ type: "type", details: "text" }, (p) => `invalid ${p.type} data.object: ${p.details}`),
  event_id_header_mismatch: define({ header: "id", eventId: "id" }, (p) => `${p.header} header does not match the signed payload id ${p.eventId}`),
  webhook_id_invalid: define({}, () => "webhook-id header must be 1 to 255 characters"),
  method_not_allowed: define({ method: "id" }, (p) => `method ${p.method} not allowed: webhooks are POST`),
  content_type_missing: define({}, () => "missing Content-Type: expected application/json"),
  content_type_unsupported: define({ mediaType: "id" }, (p) => `unsupported Content-Type ${p.mediaType}: expected application/json`),
  content_type_unreadable: define({}, () => "unsupported Content-Type an unreadable media type: expected application/json"),
  content_type_charset: define({}, () => "unsupported Content-Type charset: expected utf-8"),
  body_too_large_bytes: define({ limit: "number" }, (p) => `body too large: more than ${p.limit} bytes received, limit ${p.limit} bytes`),
  body_too_large_declared: define({ declared: "number", limit: "number" }, (p) => `body too large: Content-Length ${p.declared}, limit ${p.limit} bytes`),
  body_unreadable: define({}, () => "request body could not be read"),
  body_read_timeout: define({ seconds: "seconds" }, (p) => `request body not received within ${p.seconds} s`),

  // Resolutions of dead letters written by the system (a person's note is free text).
  applied_later: define({ outcome: "outcome" }, (p) => `applied on a later attempt (${p.outcome})`),
  event_already_done: define({ status: "status" }, (p) => `event already ${p.status}; nothing to retry`),

  // What a dashboard or CLI retry of a dead letter did (lib/dead-letters/).
  retry_not_found: define({ id: "id" }, (p) => `no dead letter ${p.id}`),
  retry_already_resolved: define({ status: "status" }, (p) => `dead letter already ${p.status}`),
  retry_already_resolved_as: define({ status: "status", resolution: "cause" }, (p) => `dead letter already ${p.status}: ${cause(p.resolution)}`),
  retry_conflict: define({}, () => "a conflict is not retried: compare both bodies with the provider; the stored event was kept"),
  retry_body_differs: define({ eventId: "id" }, (p) => `another body is stored under event ${p.eventId}; compare both bodies with the provider`),
  retry_event_was_done: define({ eventId: "id", status: "status" }, (p) => `event ${p.eventId} was already ${p.status}`),
  retry_already_queued: define({ eventId: "id", status: "status" }, (p) => `event ${p.eventId} is already queued (status ${p.status})`),
  retry_requeued: define({ eventId: "id" }, (p) => `event ${p.eventId} re-queued for the worker`),
  retry_requeued_concurrently: define({ eventId: "id" }, (p) => `event ${p.eventId} was re-queued concurrently`),
  retry_endpoint_misconfigured: define({ endpoint: "id" }, (p) => `endpoint ${p.endpoint} is misconfigured; fix its configuration, then retry`),
  retry_endpoint_gone: define({ endpoint: "id", provider: "id", account: "id" }, (p) => `endpoint ${p.endpoint} is not configured for ${p.provider}/${p.account} in this process: set its signing secret, or run with ACREDITA_MODE=demo against the demo's database`),
  retry_payload_not_json: define({}, () => "stored payload is not valid JSON"),
  // A replay of stored events (lib/replay/).
  replay_payload_purged: define({ eventId: "id" }, (p) => `the payload of event ${p.eventId} was purged by retention: it cannot be replayed`),
  replay_stored_meanwhile: define({ eventId: "id" }, (p) => `event ${p.eventId} was stored meanwhile: preview the replay again`),
  review_first: define({ category: "category" }, (p) => `${p.category}: a retry meets the same check and fails again; review the order first`),

  // Why a signature did not match, when it can be found without revealing anything (lib/providers/signatures/diagnose-signature.ts).
  diagnosis_retired_secret: define({ secretLabel: "id" }, (p) => `signed with a retired secret (${p.secretLabel}): the sender still signs with a secret this endpoint no longer accepts; give the sender the current secret`),
  diagnosis_expired_secret: define({ secretLabel: "id", expiredAt: "time" }, (p) => `signed with an expired secret (${p.secretLabel}, expired ${p.expiredAt} at the end of its rotation's overlap): the sender still signs with the previous secret; give the sender the current one`),
  diagnosis_encoding: define({ sent: "id", expected: "id", secretLabel: "id" }, (p) => `signature is ${p.sent}-encoded but this provider's signatures are ${p.expected}: the MAC matches ${p.secretLabel}, only its encoding is wrong`),
  diagnosis_whitespace: define({ secretLabel: "id", variant: "variant" }, (p) => `signed with ${p.secretLabel} plus ${variant(p.variant)}: the sender's copy of the secret has stray whitespace (Acredita trims its own); remove it at the sender`),
  diagnosis_reserialised: define({ secretLabel: "id", variant: "variant" }, (p) => `signature matches ${p.secretLabel} over ${variant(p.variant)}, not over the bytes received: the body was re-serialised between signing and delivery (a proxy or framework re-encoded the JSON, or the sender signed another serialisation)`),
  diagnosis_clock_past: define({ secretLabel: "id", seconds: "seconds" }, (p) => `signature is valid (${p.secretLabel}) but its timestamp is ${p.seconds} s in the past: a replay of an old delivery, or the sender's clock is ${p.seconds} s behind`),
  diagnosis_clock_future: define({ secretLabel: "id", seconds: "seconds" }, (p) => `signature is valid (${p.secretLabel}) but its timestamp is ${p.seconds} s in the future: the sender's clock is ${p.seconds} s ahead`),

  // Audit notes the system writes (a person's note is free text).
  audit_retry: define({ outcome: "outcome", cause: "cause" }, (p) => `${p.outcome}: ${cause(p.cause)}`),
  audit_replay_applied: define({ events: "number", applied: "number", orders: "number" }, (p) => `replayed ${p.events} event(s): ${p.applied} applied, ${p.orders} order(s) reached`),
  audit_dead_letters_retried: define({ count: "number", filter: "text" }, (p) => `retried ${p.count} dead letter(s) chosen by the filter ${p.filter}`),
  audit_password_changed: define({ email: "id" }, (p) => `${p.email} changed their password; their other sessions ended`),
  audit_owner: define({ email: "id" }, (p) => `owner ${p.email}`),
  audit_owner_handed: define({ from: "id", email: "id" }, (p) => `owner ${p.email} (was ${p.from})`),
  audit_owner_cleared: define({ from: "id" }, (p) => `unassigned (was ${p.from})`),
  audit_user_created: define({ email: "id", role: "role" }, (p) => `${p.email} as ${p.role}`),
  audit_user_role: define({ email: "id", from: "role", to: "role" }, (p) => `${p.email}: role ${p.from} → ${p.to}; sessions ended`),
  audit_api_key_created: define({ name: "text", start: "id", email: "id", days: "number" }, (p) => `${p.name} (${p.start}…) for ${p.email}, ${p.days} days`),
  audit_endpoint_created: define({ provider: "id", account: "id", mode: "mode" }, (p) => `${p.provider} endpoint for ${p.account} (${p.mode})`),
  audit_endpoint_status: define({ status: "id" }, (p) => (p.status === "enabled" ? "enabled: deliveries are verified and applied again" : "disabled: deliveries are answered 503 with Retry-After")),
  audit_endpoint_deleted: define({ provider: "id", account: "id" }, (p) => `${p.provider} endpoint for ${p.account} deleted; its URL answers 404 and its secrets were erased`),
  audit_endpoint_secret_rotated: define({ label: "id", seconds: "seconds" }, (p) => `new signing secret ${p.label}; the previous ones expire in ${p.seconds} s`),
  audit_endpoint_secret_retired: define({ label: "id" }, (p) => `signing secret ${p.label} retired`),
  audit_endpoint_api_key_set: define({}, () => "API key set (encrypted; never shown again)"),
  audit_endpoint_api_key_removed: define({}, () => "API key removed"),
  audit_backfill_requested: define({ hours: "number" }, (p) => `backfill of the last ${p.hours} h requested`),
  audit_connect_bound: define({ account: "id", org: "id" }, (p) => `connected account ${p.account} bound to organization ${p.org}: its events are booked there`),
  audit_connect_moved: define({ account: "id", from: "id", org: "id" }, (p) => `connected account ${p.account} moved from organization ${p.from} to ${p.org}: its next events are booked there, its earlier books stay`),
  audit_connect_unbound: define({ account: "id", org: "id" }, (p) => `connected account ${p.account} unbound from organization ${p.org}: its next events are recorded, not applied`),
  audit_reconciliation_queued: define({ source: "text", bytes: "number" }, (p) => `${p.source}: queued, ${p.bytes} bytes (dashboard upload)`),
  audit_reconciliation_queued_key: define({ source: "text", bytes: "number", keyStart: "id" }, (p) => `${p.source}: queued, ${p.bytes} bytes (API, API key ${p.keyStart}…)`),
  audit_reconciliation_queued_token: define({ source: "text", bytes: "number" }, (p) => `${p.source}: queued, ${p.bytes} bytes (API, API_TOKEN)`),
  audit_reconciliation_queued_scheduled: define({ source: "text", bytes: "number", endpoint: "id" }, (p) => `${p.source}: queued, ${p.bytes} bytes (settlement pull of endpoint ${p.endpoint} from Stripe's Reporting API)`),
  audit_retention: define(
    { payloadDays: "number", payloadCutoff: "time", eventsPurged: "number", deadLettersPurged: "number", eventsKept: "number", deadLettersKept: "number", decisionDays: "number", decisionCutoff: "time", decisionsDeleted: "number", countDays: "number", countCutoff: "time", countsDeleted: "number" },
    (p) =>
      `Payload retention (${p.payloadDays} days, cutoff ${p.payloadCutoff}): purged ${p.eventsPurged} event payload(s) and ${p.deadLettersPurged} dead-letter payload(s); kept ${p.eventsKept} unfinished event(s) and ${p.deadLettersKept} open dead letter(s) older than the cutoff. Ledger and orders are never purged. ` +
      `Decision retention (${p.decisionDays} days, cutoff ${p.decisionCutoff}): deleted ${p.decisionsDeleted} decision row(s). Rejection count retention (${p.countDays} days, cutoff ${p.countCutoff}): deleted ${p.countsDeleted} per-minute count(s).`,
  ),
  audit_reconciliation_cli: define({ file: "text", mismatches: "number" }, (p) => `${p.file}: ${p.mismatches} mismatches (npm run reconcile)`),

  // Settlement reports refused at upload or failed in a run (lib/reconciliation/report-fields.ts): a
  // problem is always wrapped in report_line, which says where.
  report_line: define({ line: "number", problem: "cause" }, (p) => `line ${p.line}: ${cause(p.problem)}`),
  report_empty: define({}, () => "empty file: expected a header row"),
  report_empty_expected: define({ header: "text" }, (p) => `empty file: expected the header ${p.header}`),
  report_binary: define({}, () => "binary file: expected a CSV report with a header row"),
  report_no_header: define({ bytes: "number" }, (p) => `no header row in the first ${p.bytes} bytes`),
  report_header_not_csv: define({}, () => "the header row is not valid CSV"),
  report_unknown_format: define({}, () => "unknown settlement format: expected a Stripe itemized report (balance_transaction_id, ...), the payments CSV (transaction_id, ...) or the lab's (order_id, provider_status, ...)"),
  report_missing_columns: define({ columns: "text" }, (p) => `missing column(s): ${p.columns}`),
  report_missing_any_column: define({ format: "format", columns: "text" }, (p) => `no payment column for ${p.format}: one of ${p.columns} is needed to match its lines to payments`),
  report_missing_columns_for: define({ format: "format", columns: "text" }, (p) => `missing column(s) for ${p.format}: ${p.columns}`),
  report_lab_not_payment_level: define({}, () => "the lab's order-level file is not a payment-level report"),
  report_field_count: define({ fields: "text", expected: "text" }, (p) => `${p.fields} fields where the header has ${p.expected} (an unquoted comma in a value?)`),
  report_line_too_long: define({ chars: "number" }, (p) => `line longer than ${p.chars} characters: not a settlement report line`),
  report_not_csv: define({ problem: "csvProblem", details: "text" }, (p) => `not a valid CSV: ${p.details}`),
  report_bad_time: define({ column: "id", value: "text" }, (p) => `${p.column}: "${p.value}" is not a UTC date and time like 2026-11-29 12:00:00`),
  report_bad_decimal: define({ column: "id", value: "text" }, (p) => `${p.column}: "${p.value}" is not a decimal amount like 25.00`),
  report_too_many_decimals: define({ column: "id", value: "text", currency: "id", exponent: "number" }, (p) => `${p.column}: "${p.value}" has more decimals than ${p.currency} has (${p.exponent})`),
  report_amount_too_large: define({ column: "id", value: "text" }, (p) => `${p.column}: "${p.value}" is too large`),
  report_not_minor_units: define({ column: "id", value: "text" }, (p) => `${p.column}: "${p.value}" must be a whole number of minor units`),
  report_bad_currency: define({ column: "id", value: "text" }, (p) => `${p.column}: "${p.value}" is not an ISO 4217 currency`),
  report_not_id: define({ column: "id" }, (p) => `${p.column}: not an id`),
  report_id_too_long: define({ column: "id", max: "number" }, (p) => `${p.column}: longer than ${p.max} characters, longer than any id of its kind`),
  report_too_much_to_hold: define({ max: "number" }, (p) => `the order ids to compare take more than ${p.max} MB of the worker's memory: the lab's order-level file is for the lab and small exports; reconcile a larger one with npm run reconcile or a payment-level report`),
  report_missing_value: define({ column: "id" }, (p) => `${p.column}: missing`),
  report_not_one_of: define({ column: "id", value: "text", allowed: "text" }, (p) => `${p.column}: "${p.value}" must be one of ${p.allowed}`),
  report_too_many_rows: define({ max: "number" }, (p) => `more than ${p.max} rows: the lab's order-level file is for the lab and small exports; reconcile a larger one with npm run reconcile or a payment-level report`),
  report_order_twice: define({ orderId: "id" }, (p) => `order ${p.orderId} appears twice`),

  // A run's scope refused (lib/reconciliation/run-scope.ts): `flag` is the CLI's flag, the upload's field.
  scope_bad_format: define({ flag: "id", value: "text" }, (p) => `${p.flag}: "${p.value}" must be one of stripe-balance, stripe-payout, neutral, lab`),
  scope_needs_provider: define({ flag: "id" }, (p) => `${p.flag}: the payments CSV needs its provider (yolfi, standard-webhooks, ...)`),
  scope_stripe_only: define({ flag: "id", provider: "id" }, (p) => `${p.flag}: a Stripe report reconciles the stripe provider, not ${p.provider}`),
  scope_no_endpoint: define({ flag: "id", provider: "id", accountFlag: "id" }, (p) => `${p.flag}: no endpoint serves "${p.provider}"; give ${p.accountFlag} too`),
  scope_account_colon: define({ flag: "id" }, (p) => `${p.flag}: an account holds no colon`),
  scope_bad_mode: define({ flag: "id", value: "text" }, (p) => `${p.flag}: "${p.value}" must be live or test`),
  scope_account_elsewhere: define({ provider: "id", account: "id" }, (p) => `account: ${p.provider} account ${p.account} is not this organization's; a report is reconciled only by the organization whose endpoints receive its events`),
  scope_bad_date: define({ flag: "id", value: "text" }, (p) => `${p.flag}: "${p.value}" is not an ISO 8601 date or time (e.g. 2026-11-01 or 2026-11-01T00:00:00Z)`),
  scope_from_after_to: define({ from: "id", to: "id" }, (p) => `${p.from} must be before ${p.to} (the period is [from, to))`),

  // Why a run failed without a bad line (lib/reconciliation/runs.ts).
  run_no_file: define({}, () => "the run has no report file"),
  run_command_stopped: define({}, () => "the command running it stopped before the run ended"),
  run_claimed_too_often: define({ attempts: "number" }, (p) => `claimed ${p.attempts} times without ending: see the worker's log`),
  run_worker_out_of_memory: define({ heapMb: "number" }, (p) => `the worker process ran out of memory (its heap is capped at ${p.heapMb} MB) while running it; not retried: split the report or reconcile a payment-level one`),

  // A new password refused (lib/auth/passwords.ts): `tips` are zxcvbn's feedback keys, `details` their English.
  password_too_short: define({ min: "number" }, (p) => `too short: at least ${p.min} characters`),
  password_too_long: define({ max: "number" }, (p) => `too long: at most ${p.max} characters`),
  password_too_weak: define({ score: "number", needed: "number" }, (p) => `too weak (strength ${p.score} of 4, ${p.needed} needed)`),
  password_too_weak_because: define({ score: "number", needed: "number", tips: "zxcvbnTips", details: "text" }, (p) => `too weak (strength ${p.score} of 4, ${p.needed} needed): ${p.details}`),

  // The lab's order-level reconciliation (lib/reconciliation/compare.ts).
  recon_order_missing: define({}, () => "order not found in Acredita"),
  recon_not_in_settlement: define({}, () => "not in the settlement"),
  recon_currency: define({ found: "id", settled: "id" }, (p) => `currency ${p.found} vs settled ${p.settled}`),
  recon_status: define({ found: "status", expected: "status" }, (p) => `status ${p.found}, expected ${p.expected}`),
  recon_credited: define({ found: "money", expected: "money" }, (p) => `credited ${p.found.amount}, expected ${p.expected.amount}`),
} as const;

/** Every reason code. */
export type ReasonCode = keyof typeof REASONS;
/** The parameters of reason `C`. */
export type ReasonParams<C extends ReasonCode> = ParamsOf<(typeof REASONS)[C]["params"]>;

/** The reason codes, for zod and for the catalogue's completeness test. */
export const REASON_CODES = Object.keys(REASONS) as ReasonCode[];

/** A reason and its English sentence, spread into a decision or an answer: `{ ...because("credited", {...}) }`. */
export interface Because {
  reason: string;
  reasonRef: ReasonRef;
}

/**
 * Builds reason `code` with `params` (typed per code) and its English sentence. Takes optional
 * follow-up reasons (joined with "; "). Returns `{ reason, reasonRef }`.
 */
export function because<C extends ReasonCode>(code: C, params: ReasonParams<C>, then?: ReasonRef[]): Because {
  const reasonRef: ReasonRef = { code, params: params as Record<string, unknown>, ...(then && then.length > 0 ? { then } : {}) };
  return { reason: reasonText(reasonRef), reasonRef };
}

/** The reason `code` with `params`, without its sentence (for nesting and chaining). */
export function reasonRef<C extends ReasonCode>(code: C, params: ReasonParams<C>): ReasonRef {
  return { code, params: params as Record<string, unknown> };
}

/** Appends `next` to a reason (`"<reason>; <next>"`): returns a new {@link Because}. */
export function followedBy(first: Because, next: ReasonRef): Because {
  const ref: ReasonRef = { ...first.reasonRef, then: [...(first.reasonRef.then ?? []), next] };
  return { reason: `${first.reason}; ${reasonText(next)}`, reasonRef: ref };
}

/** The English sentence of a reason (its follow-ups joined with "; "): what logs and answers carry. */
export function reasonText(ref: ReasonRef): string {
  const definition = REASONS[ref.code] as Definition<Record<string, ParamKind>>;
  const head = definition.en(ref.params as ParamsOf<Record<string, ParamKind>>);
  return [head, ...(ref.then ?? []).map(reasonText)].join("; ");
}

const moneySchema = z.object({ amount: z.number().int(), currency: z.string().min(1).max(10) });

const KIND_SCHEMA: Record<Exclude<ParamKind, "cause">, z.ZodType> = {
  money: moneySchema,
  id: z.string(),
  text: z.string(),
  type: z.string(),
  status: z.string(),
  category: z.string(),
  mode: z.string(),
  outcome: z.string(),
  what: z.string(),
  phase: z.string(),
  variant: z.string(),
  role: z.string(),
  csvProblem: z.string(),
  zxcvbnTips: z.string(),
  format: z.string(),
  time: z.string().datetime(),
  number: z.number(),
  seconds: z.number(),
};

/** Parses a stored reason (code and parameters) strictly: each parameter of its code with its kind. */
const storedReasonSchema: z.ZodType<ReasonRef> = z.lazy(() =>
  z
    .object({ code: z.enum(REASON_CODES as [ReasonCode, ...ReasonCode[]]), params: z.record(z.string(), z.unknown()), then: z.array(storedReasonSchema).optional() })
    .superRefine((value, context) => {
      const kinds = REASONS[value.code].params as Record<string, ParamKind>;
      for (const [name, kind] of Object.entries(kinds)) {
        const schema = kind === "cause" ? z.union([z.string(), storedReasonSchema]) : KIND_SCHEMA[kind];
        if (!schema.safeParse(value.params[name]).success) context.addIssue({ code: "custom", message: `parameter ${name} of ${value.code} is not a ${kind}`, path: ["params", name] });
      }
    }),
);

/** A reason as JSON gives it back (`{ code, params, then? }`, e.g. an API answer's `reason`), checked like a stored one; undefined when it does not fit. */
export function readReason(value: unknown): ReasonRef | undefined {
  const result = storedReasonSchema.safeParse(value);
  return result.success ? result.data : undefined;
}

/** The reason a validation issue carries in `params.reason` (a weak password's, lib/auth/users.ts), checked like {@link readReason}. */
export function issueReason(issue: object): ReasonRef | undefined {
  return readReason((issue as { params?: { reason?: unknown } }).params?.reason);
}

/** The two columns a reason is stored in: `reasonCode` and `reasonParams` (JSON of the parameters and follow-ups). */
export interface StoredReasonColumns {
  reasonCode: string | null;
  reasonParams: string | null;
}

/** A reason as its two columns (both null without one). */
export function reasonColumns(ref: ReasonRef | undefined | null): StoredReasonColumns {
  if (!ref) return { reasonCode: null, reasonParams: null };
  return { reasonCode: ref.code, reasonParams: JSON.stringify(ref.then ? { ...ref.params, $then: ref.then } : ref.params) };
}

/**
 * Reads a stored reason back from its two columns. Returns undefined for a row written before codes
 * existed (null code), an unknown code (a newer version's) or parameters that do not fit the code:
 * the caller then shows the stored sentence.
 */
export function readStoredReason(code: string | null | undefined, params: string | null | undefined): ReasonRef | undefined {
  if (!code) return undefined;
  let parsed: unknown;
  try {
    parsed = params ? JSON.parse(params) : {};
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
  const { $then, ...rest } = parsed as Record<string, unknown>;
  const result = storedReasonSchema.safeParse({ code, params: rest, ...($then === undefined ? {} : { then: $then }) });
  return result.success ? result.data : undefined;
}
