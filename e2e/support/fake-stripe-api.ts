// A local stand-in for Stripe's API (STRIPE_API_BASE points the official `stripe` package at it): serves
// `GET /v1/events` as Stripe does (newest first, `created[gte]`, `limit`, `starting_after`, `has_more`),
// answers a wrong key 401 and, on request, 429 the first few times, with Stripe's error shapes, and
// records each request's key and Stripe-Account header. Serves Stripe's Reporting API too: report runs
// created (`POST /v1/reporting/report_runs`, form-encoded as the `stripe` package sends them), pending
// for a number of polls, then succeeded with a file (`GET /v1/files/:id/contents`) or failed on request.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeStripeApi {
  /** `http://127.0.0.1:<port>`: the value of STRIPE_API_BASE. */
  url: string;
  /** The events served, any order (each with `id`, `created`, `livemode`); per connected account under `byAccount`. */
  events: Record<string, unknown>[];
  byAccount: Map<string, Record<string, unknown>[]>;
  /** Requests seen: method, path with query, the bearer key's first 8 characters, the Stripe-Account header. */
  requests: { method: string; path: string; keyStart: string; stripeAccount: string | undefined }[];
  /** Answer 429 to this many of the next requests. */
  rateLimitNext: number;
  /** Report runs created, in order: the report type and the parameters as Stripe parses them (interval in unix seconds). */
  reportRuns: FakeReportRun[];
  /** Polls (GET of a run) that answer `pending` before a new run is done. */
  pendingPolls: number;
  /** Each new run takes the first of these and fails with it as its `error` (empty: runs succeed). */
  failRuns: string[];
  /** The CSV a succeeded run's file holds (taken when the run succeeds). */
  reportCsv: string;
  /** Answer the next file downloads with this status instead of the file (each taken once). */
  refuseFiles: number[];
  /** Answer the next report run creations with this status and message (each taken once). */
  refuseCreates: { status: number; message: string }[];
  close(): Promise<void>;
}

/** A report run as the fake holds it, with the polls left before it is done. */
export interface FakeReportRun {
  id: string;
  report_type: string;
  parameters: { interval_start: number; interval_end: number; columns: string[] };
  status: "pending" | "succeeded" | "failed";
  error: string | null;
  pollsLeft: number;
  failWith: string | undefined;
  file: { id: string; csv: string } | undefined;
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json", "request-id": `req_fake_${Date.now()}` });
  response.end(JSON.stringify(body));
}

/** Starts the fake on a free port of 127.0.0.1 (or `port`: a server started before it points STRIPE_API_BASE there); `apiKey` is the only key it accepts. */
export async function startFakeStripeApi(apiKey: string, options: { port?: number } = {}): Promise<FakeStripeApi> {
  const fake: Omit<FakeStripeApi, "url" | "close"> = { events: [], byAccount: new Map(), requests: [], rateLimitNext: 0, reportRuns: [], pendingPolls: 1, failRuns: [], reportCsv: "", refuseFiles: [], refuseCreates: [] };
  let base = "";
  const runJson = (run: FakeReportRun) => ({
    id: run.id,
    object: "reporting.report_run",
    created: 1_764_600_000,
    error: run.error,
    livemode: apiKey.includes("_live_"),
    parameters: run.parameters,
    report_type: run.report_type,
    result: run.file ? { id: run.file.id, object: "file", created: 1_764_600_000, filename: `${run.file.id}.csv`, purpose: "finance_report_run", size: Buffer.byteLength(run.file.csv), type: "csv", url: `${base}/v1/files/${run.file.id}/contents` } : null,
    status: run.status,
    succeeded_at: run.status === "succeeded" ? 1_764_600_060 : null,
  });
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (request.method === "POST") {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => handle(request, response, Buffer.concat(chunks).toString("utf8")));
    } else handle(request, response, "");
  });
  const handle = (request: IncomingMessage, response: ServerResponse, body: string) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const key = (request.headers.authorization ?? "").replace(/^Bearer /, "");
    const stripeAccount = request.headers["stripe-account"] as string | undefined;
    fake.requests.push({ method: request.method ?? "GET", path: `${url.pathname}${url.search}`, keyStart: key.slice(0, 8), stripeAccount });
    if (key !== apiKey) {
      send(response, 401, { error: { type: "invalid_request_error", message: `Invalid API Key provided: ${key.slice(0, 8)}****` } });
      return;
    }
    if (fake.rateLimitNext > 0) {
      fake.rateLimitNext--;
      send(response, 429, { error: { type: "rate_limit_error", code: "rate_limit", message: "Too many requests hit the API too quickly." } });
      return;
    }
    if (request.method === "POST" && url.pathname === "/v1/reporting/report_runs") {
      const refused = fake.refuseCreates.shift();
      if (refused) {
        send(response, refused.status, { error: { type: "invalid_request_error", message: refused.message } });
        return;
      }
      const form = new URLSearchParams(body);
      const columns = [...form.entries()].filter(([name]) => /^parameters\[columns\]\[\d+\]$/.test(name)).map(([, value]) => value);
      const run: FakeReportRun = {
        id: `frr_fake_${fake.reportRuns.length + 1}`,
        report_type: form.get("report_type") ?? "",
        parameters: { interval_start: Number(form.get("parameters[interval_start]")), interval_end: Number(form.get("parameters[interval_end]")), columns },
        status: "pending",
        error: null,
        pollsLeft: fake.pendingPolls,
        failWith: fake.failRuns.shift(),
        file: undefined,
      };
      fake.reportRuns.push(run);
      send(response, 200, runJson(run));
      return;
    }
    const runPath = /^\/v1\/reporting\/report_runs\/([^/]+)$/.exec(url.pathname);
    if (request.method === "GET" && runPath) {
      const run = fake.reportRuns.find((candidate) => candidate.id === runPath[1]);
      if (!run) {
        send(response, 404, { error: { type: "invalid_request_error", code: "resource_missing", message: `No such report run: '${runPath[1]}'` } });
        return;
      }
      if (run.status === "pending") {
        if (run.pollsLeft > 0) run.pollsLeft--;
        else if (run.failWith !== undefined) Object.assign(run, { status: "failed", error: run.failWith });
        else Object.assign(run, { status: "succeeded", file: { id: `file_fake_${run.id.slice(9)}`, csv: fake.reportCsv } });
      }
      send(response, 200, runJson(run));
      return;
    }
    const filePath = /^\/v1\/files\/([^/]+)\/contents$/.exec(url.pathname);
    if (request.method === "GET" && filePath) {
      const refused = fake.refuseFiles.shift();
      const file = fake.reportRuns.find((run) => run.file?.id === filePath[1])?.file;
      if (refused || !file) {
        send(response, refused ?? 404, { error: { type: "invalid_request_error", message: refused ? "refused by the test" : `No such file: '${filePath[1]}'` } });
        return;
      }
      response.writeHead(200, { "content-type": "text/csv", "content-length": String(Buffer.byteLength(file.csv)) });
      response.end(file.csv);
      return;
    }
    if (request.method !== "GET" || url.pathname !== "/v1/events") {
      send(response, 404, { error: { type: "invalid_request_error", message: `Unrecognized request URL (${request.method}: ${url.pathname}).` } });
      return;
    }
    const gte = Number(url.searchParams.get("created[gte]") ?? 0);
    const limit = Math.min(100, Number(url.searchParams.get("limit") ?? 10));
    const after = url.searchParams.get("starting_after");
    const source = stripeAccount ? (fake.byAccount.get(stripeAccount) ?? []) : fake.events;
    const all = source.filter((event) => Number(event.created) >= gte).sort((a, b) => Number(b.created) - Number(a.created) || String(b.id).localeCompare(String(a.id)));
    const start = after ? all.findIndex((event) => event.id === after) + 1 : 0;
    const data = all.slice(start, start + limit);
    send(response, 200, { object: "list", url: "/v1/events", has_more: start + limit < all.length, data });
  };
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
