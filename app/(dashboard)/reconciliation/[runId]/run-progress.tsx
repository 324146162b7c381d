"use client";
// While a run is queued or running, its page polls GET /api/reconciliations/{id} once a second and
// shows the progress bar; when the run ends, the server-rendered page is refreshed (totals, mismatches).
import { useRouter } from "next/navigation";
import { useLocale, useTranslations } from "next-intl";
import { useEffect, useState } from "react";
import { formatCount } from "@/lib/format/format";
import { runShare } from "@/lib/reconciliation/run-share";
import { RunStatus } from "../run-status";
import { useOrganizationApiPath } from "@/app/_components/organization-link";

interface Progress {
  status: string;
  rows: number;
  bytesDone: number;
  bytesTotal: number;
  mismatches: number;
}

/** The run's status and progress bar (rows read, share of the file's bytes), live until the run ends. */
export function RunProgress({ runId, initial }: { runId: string; initial: Progress }) {
  const t = useTranslations("reconciliation");
  const locale = useLocale();
  const router = useRouter();
  const [progress, setProgress] = useState(initial);
  const apiPath = useOrganizationApiPath();
  const live = progress.status === "queued" || progress.status === "running";

  useEffect(() => {
    if (!live) return;
    let stopped = false;
    const timer = setInterval(async () => {
      const response = await fetch(apiPath(`/api/reconciliations/${encodeURIComponent(runId)}?mismatches=none`)).catch(() => undefined);
      if (!response || response.status !== 200 || stopped) return;
      const { run } = (await response.json()) as { run: { status: string; progress: { rows: number; bytes: number; bytesTotal: number; mismatches: number } } };
      setProgress({ status: run.status, rows: run.progress.rows, bytesDone: run.progress.bytes, bytesTotal: run.progress.bytesTotal, mismatches: run.progress.mismatches });
    }, 1_000);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [live, runId]);

  // The run ended but the server-rendered page still shows it running: refresh it, and reload the page
  // should the refresh not have landed within 5 s (a slow render on a busy server).
  const serverLive = initial.status === "queued" || initial.status === "running";
  useEffect(() => {
    if (live || !serverLive) return;
    router.refresh();
    const fallback = setTimeout(() => window.location.reload(), 5_000);
    return () => clearTimeout(fallback);
  }, [live, serverLive, router]);

  const share = runShare(progress);
  return (
    <div className="run-progress" data-testid="run-progress" data-status={progress.status}>
      <RunStatus status={progress.status} />{" "}
      {live || progress.status === "done" ? (
        <>
          <progress max={100} value={share ?? undefined} aria-label={t("progress")} data-testid="run-progress-bar">
            {share ?? 0}%
          </progress>{" "}
          <span data-testid="run-progress-rows">{t("progressRows", { count: progress.rows, rows: formatCount(progress.rows, locale) })}</span>
          {share !== undefined ? <span className="muted"> ({share}%)</span> : null}
        </>
      ) : null}
    </div>
  );
}
