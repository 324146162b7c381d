"use client";
import { useTranslations } from "next-intl";
import { useEffect } from "react";
import { ProblemPage } from "@/app/_components/problem-page";

// Error boundary for every dashboard page, inside the dashboard's frame: a generic message (never the
// error's text: it may hold internals), the digest to find the server log line, and a retry.
export default function DashboardError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  const t = useTranslations("common");
  const errors = useTranslations("errors");
  useEffect(() => {
    console.error(error.digest ?? "dashboard error");
  }, [error]);
  return (
    <div role="alert">
      <ProblemPage code="500" title={errors("serverTitle")} backText={errors("toOrders")}>
        <p>{t("error")}</p>
        {error.digest ? <p className="mono">digest {error.digest}</p> : null}
        <p>
          <button type="button" onClick={reset}>
            {t("retry")}
          </button>
        </p>
      </ProblemPage>
    </div>
  );
}
