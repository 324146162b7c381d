import autocannon from "autocannon";
import type { SignedDelivery } from "@/bench/bench-data";

/** What one load run measured. Latencies in milliseconds, throughput in deliveries per second. */
export interface LoadResult {
  deliveries: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Connection errors and timeouts. */
  errors: number;
  /** Answers outside 2xx. */
  non2xx: number;
  statusCounts: Record<string, number>;
}

/**
 * Posts every delivery once, in order, to `url` + `/api/webhooks/lab` with autocannon over
 * `connections` keep-alive connections (no pipelining), and returns throughput and latency. Each request
 * takes the next delivery from a shared cursor, so `deliveries[i]` is sent i-th (± the connections in
 * flight). The time is measured here, from the start to the last answer: autocannon ends an `amount`
 * run on its next one-second tick, so its `duration` (and any timing around the call) is rounded up to
 * whole seconds (seen: every run of 2,000 deliveries took "4.01 s"), up to 25% off on a 4 s run.
 */
export function postDeliveries(url: string, deliveries: SignedDelivery[], connections: number): Promise<LoadResult> {
  let cursor = 0;
  return runTimed(url, connections, deliveries.length, {
    method: "POST",
    path: "/api/webhooks/lab",
    setupRequest: (request) => {
      const delivery = deliveries[cursor++ % deliveries.length];
      return { ...request, body: delivery.body, headers: { "content-type": "application/json", "lab-signature": delivery.signature } };
    },
  });
}

/**
 * Sends `amount` GETs of `path` over `connections` keep-alive connections: what one route handler of
 * the build costs with nothing behind it (the floor under any webhook route). Same figures as above.
 */
export function getRepeatedly(url: string, path: string, amount: number, connections: number): Promise<LoadResult> {
  return runTimed(url, connections, amount, { method: "GET", path });
}

type AutocannonRequest = NonNullable<Parameters<typeof autocannon>[0]["requests"]>[number];

/** Sends `amount` of `request` with autocannon (no pipelining) and times the run from its start to the last answer. */
async function runTimed(url: string, connections: number, amount: number, request: AutocannonRequest): Promise<LoadResult> {
  let lastAnswer = 0;
  const started = performance.now();
  const result = await autocannon({ url, connections, pipelining: 1, amount, timeout: 60, requests: [{ ...request, onResponse: () => void (lastAnswer = performance.now()) }] });
  const seconds = (lastAnswer - started) / 1000;
  const statusCounts = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, stat]) => [code, Number(stat.count)]));
  const answered = Object.values(statusCounts).reduce((sum, n) => sum + n, 0);
  return { deliveries: answered, seconds, perSecond: answered / seconds, p50Ms: result.latency.p50, p99Ms: result.latency.p99, errors: result.errors + result.timeouts, non2xx: result.non2xx, statusCounts };
}
