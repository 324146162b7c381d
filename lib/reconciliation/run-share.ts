/** The share of a run read so far (0..100, from its bytes; 100 once done), or undefined when its size is unknown. */
export function runShare(run: { status: string; bytesDone: number; bytesTotal: number }): number | undefined {
  if (run.status === "done") return 100;
  if (run.bytesTotal <= 0) return undefined;
  return Math.min(100, Math.floor((run.bytesDone / run.bytesTotal) * 100));
}
