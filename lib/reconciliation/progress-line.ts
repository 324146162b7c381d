import type { RunProgress } from "@/lib/reconciliation/payment-run";

function clock(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/**
 * A run's progress as one line: on a terminal a bar (`[#####.....]  50%  120000 rows  40000 rows/s
 * ETA 0:03`), elsewhere a plain line (`reconcile: 120000 rows, 50%, 40000 rows/s, ETA 0:03`). The
 * share and the ETA come from the bytes read against the file's size (unknown size: no share, no
 * ETA); `elapsedMs` is the time since reading began. Pure.
 */
export function formatProgress(progress: RunProgress, elapsedMs: number, terminal: boolean, width = 30): string {
  const seconds = Math.max(elapsedMs / 1000, 0.001);
  const rate = Math.round(progress.rows / seconds);
  const share = progress.bytesTotal > 0 ? Math.min(1, progress.bytes / progress.bytesTotal) : undefined;
  const eta = share !== undefined && share > 0 && progress.phase === "reading" ? clock((seconds / share) * (1 - share)) : undefined;
  const phase = progress.phase === "matching" ? " matching with the ledger" : "";
  if (!terminal) return `reconcile: ${progress.rows} rows${share !== undefined ? `, ${Math.floor(share * 100)}%` : ""}, ${rate} rows/s${eta ? `, ETA ${eta}` : ""}${phase}`;
  const filled = share === undefined ? 0 : Math.round(share * width);
  const bar = `[${"#".repeat(filled)}${".".repeat(width - filled)}]`;
  return `${bar} ${share === undefined ? "  ?" : String(Math.floor(share * 100)).padStart(3)}%  ${progress.rows} rows  ${rate} rows/s${eta ? `  ETA ${eta}` : ""}${phase}`;
}
