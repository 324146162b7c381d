"use client";
import { useTranslations } from "next-intl";
import { useEffect } from "react";

// Error boundary for every dashboard page: a generic message (never the error's text: it may hold
// internals), the digest to find the server log line, and a retry.
export default function DashboardError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  const t = useTranslations("common");
  useEffect(() => {
    console.error(error.digest ?? "dashboard error");
  }, [error]);
  return (
    <div role="alert" className="notice bad">
      <p>{t("error")}</p>
      {error.digest ? <p className="mono">digest {error.digest}</p> : null}
      <button type="button" onClick={reset}>
        {t("retry")}
      </button>
    </div>
  );
}
