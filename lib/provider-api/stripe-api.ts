import Stripe from "stripe";
import { errorMessage } from "@/lib/log/error-message";

/** Stripe's API, unless STRIPE_API_BASE points the calls elsewhere (tests: a local fake). */
export const DEFAULT_STRIPE_API_BASE = "https://api.stripe.com";

/** Events per page of `GET /v1/events` (Stripe's maximum). */
export const STRIPE_EVENTS_PAGE_SIZE = 100;

/** Attempts of one page request when Stripe answers 429 (rate limited), with doubling waits from 500 ms. */
const RATE_LIMIT_ATTEMPTS = 6;
const RATE_LIMIT_FIRST_WAIT_MS = 500;

/** Why a call to the provider's API failed, in words an operator acts on; never the key. */
export class ProviderApiError extends Error {
  constructor(
    /** `bad_key` (401), `forbidden` (403: the key lacks a permission), `rate_limited` (429 after every retry), `unavailable` (5xx or network after retries), `wrong_mode` (a test key for a live endpoint, or the reverse), `other`. */
    readonly code: "bad_key" | "forbidden" | "rate_limited" | "unavailable" | "wrong_mode" | "other",
    message: string,
  ) {
    super(message);
    this.name = "ProviderApiError";
  }
}

/** What the Stripe client needs: the endpoint's key and mode, where the API is, and (Connect) the account called for. */
export interface StripeApiAccess {
  apiKey: string;
  /** The endpoint's mode: a key of the other mode is refused before any call. */
  livemode: boolean;
  /** STRIPE_API_BASE (default {@link DEFAULT_STRIPE_API_BASE}). */
  apiBase?: string;
  /** The label that names the key in messages (`STRIPE_API_KEY`, `endpoint ep_…`), never its value. */
  keyLabel: string;
  /** Waits between rate-limited attempts (tests pass a quick one). */
  sleep?: (ms: number) => Promise<void>;
  /** Stripe Connect: the connected account the Reporting API calls are made for (`Stripe-Account`), absent for the key's own account. */
  stripeAccount?: string;
}

/** The request options of a call on behalf of `access.stripeAccount` (none for the key's own account). */
const onBehalfOf = (access: StripeApiAccess) => (access.stripeAccount ? { stripeAccount: access.stripeAccount } : undefined);

/** The mode a Stripe key is for, from its prefix (`sk_live_`, `rk_test_`, ...), or undefined when it has none of Stripe's prefixes. */
export function stripeKeyMode(apiKey: string): "live" | "test" | undefined {
  const match = /^(?:sk|rk)_(live|test)_/.exec(apiKey);
  return match ? (match[1] as "live" | "test") : undefined;
}

/** A Stripe client for `access`, through the official `stripe` package (its own retries of 5xx and network errors: 2). Throws {@link ProviderApiError} `wrong_mode` for a key of the other mode. */
function stripeClient(access: StripeApiAccess): Stripe {
  const mode = stripeKeyMode(access.apiKey);
  if (mode !== undefined && (mode === "live") !== access.livemode) {
    throw new ProviderApiError("wrong_mode", `${access.keyLabel} is a ${mode}-mode key, but the endpoint is ${access.livemode ? "live" : "test"}: it can only list the other mode's events`);
  }
  const base = new URL(access.apiBase ?? DEFAULT_STRIPE_API_BASE);
  return new Stripe(access.apiKey, {
    host: base.hostname,
    port: base.port || (base.protocol === "http:" ? 80 : 443),
    protocol: base.protocol === "http:" ? "http" : "https",
    maxNetworkRetries: 2,
    timeout: 30_000,
    telemetry: false,
    appInfo: { name: "Acredita" },
  });
}

/** Maps an error of the `stripe` package to a {@link ProviderApiError} naming the key's label, never its value; `permission` is what a 403 asks the key to be given. */
function apiError(error: unknown, access: StripeApiAccess, permission = "read access to events"): ProviderApiError {
  if (error instanceof ProviderApiError) return error;
  if (error instanceof Stripe.errors.StripeAuthenticationError) return new ProviderApiError("bad_key", `Stripe refused ${access.keyLabel} (401): the key is wrong, expired or revoked`);
  if (error instanceof Stripe.errors.StripePermissionError) return new ProviderApiError("forbidden", `${access.keyLabel} lacks a permission Stripe asked for (403): give the restricted key ${permission}`);
  if (error instanceof Stripe.errors.StripeRateLimitError) return new ProviderApiError("rate_limited", `Stripe kept answering 429 (rate limited) after ${RATE_LIMIT_ATTEMPTS} attempts`);
  if (error instanceof Stripe.errors.StripeConnectionError || (error instanceof Stripe.errors.StripeError && (error.statusCode ?? 0) >= 500)) {
    return new ProviderApiError("unavailable", `Stripe's API could not be reached or failed after retries: ${errorMessage(error).slice(0, 200)}`);
  }
  return new ProviderApiError("other", `Stripe's API refused the call: ${errorMessage(error).slice(0, 200)}`);
}

/** Runs one API call, again after a wait while Stripe answers 429, up to {@link RATE_LIMIT_ATTEMPTS} times. */
async function withRateLimitRetries<T>(access: StripeApiAccess, call: () => Promise<T>, permission?: string): Promise<T> {
  const sleep = access.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof Stripe.errors.StripeRateLimitError) || attempt >= RATE_LIMIT_ATTEMPTS) throw apiError(error, access, permission);
      await sleep(RATE_LIMIT_FIRST_WAIT_MS * 2 ** (attempt - 1));
    }
  }
}

/**
 * Every event of the key's account and mode created at or after `since` (Stripe: `GET /v1/events` with
 * `created[gte]`, newest first, every page through `starting_after`; events are listable for 30 days),
 * each as the JSON object the API returned. `stripeAccount` calls on behalf of a connected account
 * (`Stripe-Account`). Yields page by page, so a long window is never held whole. Throws
 * {@link ProviderApiError} (a bad key is reported at the first page, once).
 */
export async function* listStripeEvents(access: StripeApiAccess, since: Date, options: { stripeAccount?: string } = {}): AsyncGenerator<Record<string, unknown>> {
  let client: Stripe;
  try {
    client = stripeClient(access);
  } catch (error) {
    throw apiError(error, access);
  }
  const gte = Math.floor(since.getTime() / 1000);
  let startingAfter: string | undefined;
  for (;;) {
    const page = await withRateLimitRetries(access, () =>
      client.events.list({ created: { gte }, limit: STRIPE_EVENTS_PAGE_SIZE, ...(startingAfter ? { starting_after: startingAfter } : {}) }, options.stripeAccount ? { stripeAccount: options.stripeAccount } : undefined),
    );
    for (const event of page.data) yield event as unknown as Record<string, unknown>;
    if (!page.has_more || page.data.length === 0) return;
    startingAfter = page.data[page.data.length - 1].id;
  }
}

/** A report run as Stripe's Reporting API returns it (the fields Acredita reads). */
export interface StripeReportRun {
  /** `frr_…`. */
  id: string;
  status: "pending" | "succeeded" | "failed";
  /** The run's parameters as Stripe echoes them: interval in unix seconds, the columns asked for. */
  parameters: { interval_start?: number; interval_end?: number; columns?: string[] };
  /** The report file once succeeded: its id and the URL its bytes are downloaded from with the API key. */
  result: { id: string; url: string | null; size?: number } | null;
  /** Why the run failed (status failed), in Stripe's words. */
  error: string | null;
}

/** The restricted key's permissions a report pull needs (Stripe: "Report Runs and Report Types" read, "Files" read). */
const REPORTING_PERMISSION = "read access to report runs and report types, and to files";

function reportRunOf(run: Stripe.Reporting.ReportRun): StripeReportRun {
  return {
    id: run.id,
    status: run.status as StripeReportRun["status"],
    parameters: { interval_start: run.parameters.interval_start, interval_end: run.parameters.interval_end, columns: run.parameters.columns },
    result: run.result ? { id: run.result.id, url: run.result.url, size: run.result.size } : null,
    error: run.error,
  };
}

/**
 * Asks Stripe to run report `reportType` over `[intervalStart, intervalEnd)` (unix seconds, UTC) with
 * exactly `columns` (Stripe Reporting API: `POST /v1/reporting/report_runs`; the key needs the restricted
 * permission to read report runs and types). Returns the run, usually `pending`. Throws
 * {@link ProviderApiError}: `bad_key`/`forbidden` naming the key's variable, `other` when Stripe refuses
 * the parameters (an interval past the report type's `data_available_end`: the data is not ready yet).
 */
export async function createStripeReportRun(access: StripeApiAccess, request: { reportType: string; intervalStart: number; intervalEnd: number; columns: readonly string[] }): Promise<StripeReportRun> {
  let client: Stripe;
  try {
    client = stripeClient(access);
  } catch (error) {
    throw apiError(error, access);
  }
  const run = await withRateLimitRetries(access, () =>
    client.reporting.reportRuns.create({ report_type: request.reportType, parameters: { interval_start: request.intervalStart, interval_end: request.intervalEnd, columns: [...request.columns] } }, onBehalfOf(access)),
    REPORTING_PERMISSION,
  );
  return reportRunOf(run);
}

/** Report run `id` as it stands now (Stripe Reporting API: `GET /v1/reporting/report_runs/:id`). Throws {@link ProviderApiError}. */
export async function retrieveStripeReportRun(access: StripeApiAccess, id: string): Promise<StripeReportRun> {
  let client: Stripe;
  try {
    client = stripeClient(access);
  } catch (error) {
    throw apiError(error, access);
  }
  const retrieve = async (): Promise<StripeReportRun> => {
    try {
      return reportRunOf(await client.reporting.reportRuns.retrieve(id, {}, onBehalfOf(access)));
    } catch (error) {
      // A failed run carries its reason as a string in a top-level `error` field, which the `stripe`
      // package (its RequestSender) takes for an OAuth error response even under status 200, and
      // throws: that answer is the failed run itself.
      if (error instanceof Stripe.errors.StripeOAuthError && error.statusCode === 200) return { id, status: "failed", parameters: {}, result: null, error: String(error.rawType ?? "no reason given") };
      throw error;
    }
  };
  return withRateLimitRetries(access, retrieve, REPORTING_PERMISSION);
}

/** Where a report file may be downloaded from with the key: Stripe's file host, or STRIPE_API_BASE's host (tests). */
const STRIPE_FILES_HOST = "files.stripe.com";

/**
 * Opens the report file at `url` (a succeeded run's `result.url`, `https://files.stripe.com/v1/files/<id>/contents`),
 * authenticated with the API key as Stripe documents for file contents. Returns its body as a stream
 * and the declared length (bytes) when given. The key is only ever sent to files.stripe.com or the
 * configured API host: another URL is refused before any request. Throws {@link ProviderApiError}:
 * `bad_key` (401) or `forbidden` (403) naming the key's variable, `unavailable` (429, 5xx or the
 * network), `other` (another status, or a URL on another host).
 */
export async function openStripeFile(access: StripeApiAccess, url: string, options: { fetch?: typeof fetch } = {}): Promise<{ body: ReadableStream<Uint8Array>; contentLength: string | null }> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new ProviderApiError("other", "Stripe's report file has no valid URL");
  }
  const apiHost = new URL(access.apiBase ?? DEFAULT_STRIPE_API_BASE).host;
  if (!((target.protocol === "https:" && target.host === STRIPE_FILES_HOST) || target.host === apiHost)) {
    throw new ProviderApiError("other", `the report file's URL is on ${target.host.slice(0, 100)}, neither ${STRIPE_FILES_HOST} nor the API's host: the key is not sent there`);
  }
  let response: Response;
  try {
    const headers: Record<string, string> = { authorization: `Bearer ${access.apiKey}`, ...(access.stripeAccount ? { "stripe-account": access.stripeAccount } : {}) };
    response = await (options.fetch ?? fetch)(target, { headers, redirect: "error", signal: AbortSignal.timeout(60_000) });
  } catch (error) {
    throw new ProviderApiError("unavailable", `Stripe's file host could not be reached: ${errorMessage(error).slice(0, 200)}`);
  }
  if (response.ok && response.body) return { body: response.body, contentLength: response.headers.get("content-length") };
  await response.body?.cancel().catch(() => undefined);
  if (response.status === 401) throw new ProviderApiError("bad_key", `Stripe refused ${access.keyLabel} (401) downloading the report file: the key is wrong, expired or revoked`);
  if (response.status === 403) throw new ProviderApiError("forbidden", `${access.keyLabel} lacks a permission Stripe asked for (403) downloading the report file: give the restricted key ${REPORTING_PERMISSION}`);
  if (response.status === 429 || response.status >= 500) throw new ProviderApiError("unavailable", `Stripe's file host answered ${response.status} for the report file`);
  throw new ProviderApiError("other", `Stripe's file host refused the report file (${response.status})`);
}
