/** Server response times of one URL, in milliseconds (time to the whole body). */
export interface TimedPath {
  label: string;
  path: string;
  status: number;
  bytes: number;
  p50Ms: number;
  p90Ms: number;
  maxMs: number;
  samples: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * Fetches `path` from `baseUrl` `repeats` times, one at a time (after `warmup` untimed fetches), and
 * returns the status, body size and p50/p90/max of the time to the complete body. One request at a
 * time: this measures the server's response time, not its throughput.
 */
export async function timeRequests(baseUrl: string, label: string, path: string, headers: Record<string, string>, repeats = 20, warmup = 3): Promise<TimedPath> {
  const times: number[] = [];
  let status = 0;
  let bytes = 0;
  for (let i = 0; i < warmup + repeats; i++) {
    const started = performance.now();
    const response = await fetch(`${baseUrl}${path}`, { headers, redirect: "manual" });
    const body = await response.arrayBuffer();
    const elapsed = performance.now() - started;
    status = response.status;
    bytes = body.byteLength;
    if (i >= warmup) times.push(elapsed);
  }
  times.sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return { label, path, status, bytes, p50Ms: round(percentile(times, 50)), p90Ms: round(percentile(times, 90)), maxMs: round(times[times.length - 1]), samples: times.length };
}

/** Times an async function like {@link timeRequests} times a URL (in-process: lib query functions). */
export async function timeCalls(label: string, call: () => Promise<unknown>, repeats = 20, warmup = 3): Promise<Omit<TimedPath, "status" | "bytes" | "path"> & { path: string }> {
  const times: number[] = [];
  for (let i = 0; i < warmup + repeats; i++) {
    const started = performance.now();
    await call();
    if (i >= warmup) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return { label, path: "(in process)", p50Ms: round(percentile(times, 50)), p90Ms: round(percentile(times, 90)), maxMs: round(times[times.length - 1]), samples: times.length };
}
