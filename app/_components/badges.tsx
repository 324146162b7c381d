import { useTranslations } from "next-intl";

const STATUS_TONE: Record<string, string> = {
  paid: "ok",
  processed: "ok",
  sent: "ok",
  resolved: "ok",
  created: "neutral",
  received: "info",
  pending: "info",
  processing: "info",
  refunded: "warn",
  disputed: "bad",
  dispute_lost: "bad",
  ignored: "neutral",
  open: "bad",
  uncertain: "warn",
  failed: "bad",
  dead: "bad",
};

const OUTCOME_TONE: Record<string, string> = {
  applied: "ok",
  accepted: "ok",
  duplicate: "info",
  ignored: "neutral",
  retry_scheduled: "warn",
  dead_lettered: "bad",
  conflict: "bad",
  rejected: "bad",
};

/** A status word (order, event, dead letter, outbox) as a coloured badge with a translated label. */
export function StatusBadge({ status }: { status: string }) {
  const t = useTranslations("status");
  const label = t.has(status) ? t(status) : status;
  return (
    <span className={`badge ${STATUS_TONE[status] ?? "neutral"}`} data-status={status}>
      {label}
    </span>
  );
}

/** A decision outcome as a badge. */
export function OutcomeBadge({ outcome }: { outcome: string }) {
  const t = useTranslations("outcome");
  const label = t.has(outcome) ? t(outcome) : outcome;
  return (
    <span className={`badge ${OUTCOME_TONE[outcome] ?? "neutral"}`} data-outcome={outcome}>
      {label}
    </span>
  );
}
