import { Counter, Gauge, Registry } from "prom-client";
import type { OperationalMetrics } from "@/lib/monitoring/operational-metrics";

/** Prometheus exposition format content type, as prom-client produces it. */
export const PROMETHEUS_CONTENT_TYPE = new Registry().contentType;

/**
 * Renders the operational metrics in Prometheus text format (prom-client), one gauge per figure, names
 * prefixed `acredita_`. A fresh registry per call: the figures are counted from the database on each
 * scrape, so any number of server processes report the same values. `serverRestarts`, when given,
 * is this server's own figure: how many times `npm start` restarted its server process
 * (`acredita_server_restarts_total`, lib/background/server-supervisor.ts).
 */
export async function renderPrometheus(metrics: OperationalMetrics, serverRestarts?: number): Promise<string> {
  const registry = new Registry();
  const gauge = (name: string, help: string, labelNames: string[] = []) => new Gauge({ name, help, labelNames, registers: [registry] });
  const pending = gauge("acredita_inbox_events_pending", "Inbox events stored and not yet applied or dead-lettered, by status.", ["status"]);
  pending.set({ status: "received" }, metrics.inbox.received);
  pending.set({ status: "processing" }, metrics.inbox.processing);
  pending.set({ status: "parked" }, metrics.inbox.parked);
  gauge("acredita_inbox_oldest_pending_age_seconds", "Seconds since the oldest pending inbox event was received (0 when none).").set(metrics.inbox.oldestPendingAgeSeconds);
  gauge("acredita_failed_attempts_last_hour", "Attempts to apply an event that failed in the last hour.").set(metrics.failedAttemptsLastHour);
  gauge("acredita_unavailable_answers_last_hour", "Deliveries answered 503 (not stored) in the last hour.").set(metrics.unavailableAnswersLastHour);
  gauge("acredita_connect_events_unbound_last_hour", "Events of a Stripe account no endpoint is bound to (a Connect endpoint's unbound connected account), answered 200 and recorded ignored, in the last hour.").set(metrics.unboundAccountEventsLastHour);
  gauge("acredita_dead_letters_open", "Open dead letters.").set(metrics.deadLetters.open);
  const outbox = gauge("acredita_outbox_messages", "Outbox messages by status.", ["status"]);
  for (const [status, count] of Object.entries(metrics.outbox)) outbox.set({ status }, count);
  gauge("acredita_outbox_uncertain", "Outbox messages sent without an answer: the target may have acted; reconcile.").set(metrics.outbox.uncertain);
  gauge("acredita_confirmed_payments_without_delivery_result", "Credited payments whose delivery has no final result.").set(metrics.confirmedPaymentsWithoutDeliveryResult);
  const rejections = new Counter({
    name: "acredita_webhook_rejections_total",
    help: "Webhook requests refused before a valid signature, by endpoint ((unknown) for unknown names) and reason, over the retained per-minute counts (a retention purge reads as a counter reset).",
    labelNames: ["endpoint", "reason"],
    registers: [registry],
  });
  for (const { endpoint, reason, count } of metrics.rejectionTotals) rejections.inc({ endpoint, reason }, count);
  const lastHour = gauge("acredita_webhook_rejections_last_hour", "Webhook requests refused before a valid signature in the last hour, by reason.", ["reason"]);
  for (const [reason, count] of Object.entries(metrics.rejectionsLastHour.byReason)) lastHour.set({ reason }, count);
  if (metrics.books) {
    const books = gauge("acredita_books_orders", "Orders of the last check of the books (rebuilt from their stored events and compared), by verdict: agreeing, differing, unverifiable; waiting: with events still pending or dead-lettered.", ["verdict"]);
    for (const verdict of ["agreeing", "differing", "unverifiable", "waiting"] as const) books.set({ verdict }, metrics.books[verdict]);
    gauge("acredita_books_checked_timestamp_seconds", "When the last check of the books started (unix seconds).").set(Math.floor(Date.parse(metrics.books.checkedAt) / 1000));
  }
  if (metrics.gapChecks.length > 0) {
    const checked = gauge("acredita_gap_check_timestamp_seconds", "When the last gap check of an endpoint started (unix seconds).", ["endpoint"]);
    const missing = gauge("acredita_gap_check_missing_events", "Events the last gap check of an endpoint found missing from the inbox (and stored).", ["endpoint"]);
    const failed = gauge("acredita_gap_check_failed", "1 when the last gap check of an endpoint failed (a refused API key, the API unavailable), else 0.", ["endpoint"]);
    for (const check of metrics.gapChecks) {
      checked.set({ endpoint: check.endpoint }, Math.floor(Date.parse(check.checkedAt) / 1000));
      missing.set({ endpoint: check.endpoint }, check.missing);
      failed.set({ endpoint: check.endpoint }, check.status === "failed" ? 1 : 0);
    }
  }
  if (serverRestarts !== undefined) {
    new Counter({ name: "acredita_server_restarts_total", help: "Times npm start restarted this server's process after it died (crash, kill, out of memory), since npm start began.", registers: [registry] }).inc(serverRestarts);
  }
  return registry.metrics();
}
