import type { RunProgress } from "@/lib/reconciliation/payment-run";
import type { CliReasons } from "@/lib/reasons/cli-reasons";

function clock(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/**
 * A run's progress as one line: on a terminal a bar (`[#####.....]  50%  120000 rows  40000 rows/s
 * ETA 0:03`), elsewhere a plain line (`reconcile: 120000 rows, 50%, 40000 rows/s, ETA 0:03`). The
 * share and the ETA come from the bytes read against the file's size (unknown size: no share, no
 * ETA); `elapsedMs` is the time since reading began. With a `view` in another locale than English its
 * words are translated and its numbers grouped (`reconcile: 120.000 filas, 50%, 40.000 filas/s, quedan 0:03`). Pure.
 */
export function formatProgress(progress: RunProgress, elapsedMs: number, terminal: boolean, width = 30, view?: CliReasons): string {
  const seconds = Math.max(elapsedMs / 1000, 0.001);
  const rate = Math.round(progress.rows / seconds);
  const share = progress.bytesTotal > 0 ? Math.min(1, progress.bytes / progress.bytesTotal) : undefined;
  const eta = share !== undefined && share > 0 && progress.phase === "reading" ? clock((seconds / share) * (1 - share)) : undefined;
  if (view && view.locale !== "en") {
    const words = (key: string, values: Record<string, string> = {}) => view.t(`reasons.cli.progress.${key}`, values);
    const parts = [words("rows", { n: view.count(progress.rows) }), words("rate", { n: view.count(rate) }), ...(eta ? [words("eta", { eta })] : []), ...(progress.phase === "matching" ? [words("matching")] : [])];
    if (!terminal) return `reconcile: ${[parts[0], ...(share !== undefined ? [`${Math.floor(share * 100)}%`] : []), ...parts.slice(1)].join(", ")}`;
    const filled = share === undefined ? 0 : Math.round(share * width);
    return `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${share === undefined ? "  ?" : String(Math.floor(share * 100)).padStart(3)}%  ${parts.join("  ")}`;
  }
  const phase = progress.phase === "matching" ? " matching with the ledger" : "";
  if (!terminal) return `reconcile: ${progress.rows} rows${share !== undefined ? `, ${Math.floor(share * 100)}%` : ""}, ${rate} rows/s${eta ? `, ETA ${eta}` : ""}${phase}`;
  const filled = share === undefined ? 0 : Math.round(share * width);
  const bar = `[${"#".repeat(filled)}${".".repeat(width - filled)}]`;
  return `${bar} ${share === undefined ? "  ?" : String(Math.floor(share * 100)).padStart(3)}%  ${progress.rows} rows  ${rate} rows/s${eta ? `  ETA ${eta}` : ""}${phase}`;
}
