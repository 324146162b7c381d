// Shared by the server-rendered runs list and the run page's live progress (a client component).
import { useTranslations } from "next-intl";

/** A run's status as a badge: queued, running, done, failed (localised). */
export function RunStatus({ status }: { status: string }) {
  const t = useTranslations("reconciliation");
  const label = status === "queued" ? t("statusQueued") : status === "running" ? t("statusRunning") : status === "failed" ? t("statusFailed") : t("statusDone");
  const tone = status === "failed" ? "bad" : status === "done" ? "ok" : "info";
  return (
    <span className={`badge ${tone}`} data-status={status}>
      {label}
    </span>
  );
}
