// Small pieces of the replay pages, usable on the server and in client components.
import { useTranslations } from "next-intl";
import { DateTime, Money } from "@/app/_components/money";
import type { ReplayFilter } from "@/lib/replay/replay-filter";
import type { ReplayOutcome } from "@/lib/replay/replay-run";
import type { ReplayOrderState, ReplayStatus } from "@/lib/replay/replay-store";

const STATUS_TONE: Record<ReplayStatus, string> = { previewed: "info", applied: "ok", stale: "warn" };
const OUTCOME_TONE: Record<ReplayOutcome, string> = { applied: "ok", duplicate: "info", ignored: "neutral", failed: "bad", skipped: "warn" };

/** A replay's status as a badge: previewed (not applied), applied, stale. */
export function ReplayStatusBadge({ status }: { status: ReplayStatus }) {
  const t = useTranslations("replay");
  return (
    <span className={`badge ${STATUS_TONE[status] ?? "neutral"}`} data-replay-status={status}>
      {t(`stateName.${status}`)}
    </span>
  );
}

/** What replaying an event does (or did) as a badge. */
export function ReplayOutcomeBadge({ outcome }: { outcome: ReplayOutcome }) {
  const t = useTranslations("replay");
  return (
    <span className={`badge ${OUTCOME_TONE[outcome] ?? "neutral"}`} data-outcome={outcome}>
      {t(`outcomeName.${outcome}`)}
    </span>
  );
}

/** A filter as "field: value" pairs, times in the reader's locale. */
export function FilterSummary({ filter }: { filter: ReplayFilter }) {
  const t = useTranslations("replays");
  const parts = Object.entries(filter).filter(([, value]) => value !== undefined);
  return (
    <span data-testid="filter-summary">
      {parts.map(([key, value], index) => (
        <span key={key}>
          {index > 0 ? " · " : null}
          <span className="muted">{t(`filterField.${key}`)}:</span>{" "}
          {key === "from" || key === "to" ? <DateTime value={value as string} /> : <span className="mono">{Array.isArray(value) ? value.join(", ") : String(value)}</span>}
        </span>
      ))}
    </span>
  );
}

/** An order's status and totals, or "no such order". */
export function OrderState({ state, currency }: { state: ReplayOrderState | null; currency: string }) {
  const t = useTranslations("replay");
  const status = useTranslations("status");
  if (!state) return <span className="muted">{t("noOrder")}</span>;
  return (
    <span>
      <span className="badge neutral" data-status={state.status}>
        {status.has(state.status) ? status(state.status) : state.status}
      </span>{" "}
      {t("credited")} <Money minor={state.credited} currency={currency} />, {t("refunded")} <Money minor={state.refunded} currency={currency} />
    </span>
  );
}
