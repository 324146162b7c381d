// What an alert's notice says: one JSON body per incident and change, stored on its outbox message and
// sent as is to a webhook channel; Slack gets its `summary` as text, e-mail its summary and details.
import type { IncidentRow } from "@/lib/alerts/alert-store";

/** English titles of the rules for the channels (the dashboard renders its own, in the reader's language). */
const RULE_TITLES: Record<string, string> = {
  dead_letter_open: "Dead letters open",
  pending_event_age: "Events waiting too long",
  payment_undelivered: "Paid order not delivered to fulfilment",
  reconciliation_mismatch: "Reconciliation found mismatches",
  signature_failures: "Signature failures above the rate",
  secret_still_matching: "Retired or expiring secret still matching",
  gap_found: "Gap check found missed events",
};

/** The JSON body of an alert notice (webhook channels receive exactly this). Times ISO 8601 UTC. */
export interface AlertNotice {
  type: "alert.opened" | "alert.resolved";
  organization_id: string;
  incident: { id: string; rule: string; key: string; status: "open" | "resolved"; opened_at: string; resolved_at: string | null; count: number; detail: unknown };
  summary: string;
}

export function alertNoticeBody(incident: IncidentRow, change: "opened" | "resolved"): string {
  const title = RULE_TITLES[incident.rule] ?? incident.rule;
  const where = incident.key ? ` (${incident.key})` : "";
  const summary = change === "opened" ? `Acredita alert: ${title}${where}, ${incident.count} so far` : `Acredita alert resolved: ${title}${where}`;
  const notice: AlertNotice = {
    type: change === "opened" ? "alert.opened" : "alert.resolved",
    organization_id: incident.organizationId,
    incident: {
      id: incident.id,
      rule: incident.rule,
      key: incident.key,
      status: change === "opened" ? "open" : "resolved",
      opened_at: incident.openedAt.toISOString(),
      resolved_at: incident.resolvedAt?.toISOString() ?? null,
      count: incident.count,
      detail: JSON.parse(incident.detail) as unknown,
    },
    summary,
  };
  return JSON.stringify(notice);
}
