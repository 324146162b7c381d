// A local stand-in for Stripe's API (STRIPE_API_BASE points the official `stripe` package at it): serves
// `GET /v1/events` as Stripe does (newest first, `created[gte]`, `limit`, `starting_after`, `has_more`),
// answers a wrong key 401 and, on request, 429 the first few times, with Stripe's error shapes, and
// records each request's key and Stripe-Account header.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeStripeApi {
  /** `http://127.0.0.1:<port>`: the value of STRIPE_API_BASE. */
  url: string;
  /** The events served, any order (each with `id`, `created`, `livemode`); per connected account under `byAccount`. */
  events: Record<string, unknown>[];
  byAccount: Map<string, Record<string, unknown>[]>;
  /** Requests seen: path with query, the bearer key's first 8 characters, the Stripe-Account header. */
  requests: { path: string; keyStart: string; stripeAccount: string | undefined }[];
  /** Answer 429 to this many of the next requests. */
  rateLimitNext: number;
  close(): Promise<void>;
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json", "request-id": `req_fake_${Date.now()}` });
  response.end(JSON.stringify(body));
}

/** Starts the fake on a free port of 127.0.0.1; `apiKey` is the only key it accepts. */
export async function startFakeStripeApi(apiKey: string): Promise<FakeStripeApi> {
  const fake: Omit<FakeStripeApi, "url" | "close"> = { events: [], byAccount: new Map(), requests: [], rateLimitNext: 0 };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const key = (request.headers.authorization ?? "").replace(/^Bearer /, "");
    const stripeAccount = request.headers["stripe-account"] as string | undefined;
    fake.requests.push({ path: `${url.pathname}${url.search}`, keyStart: key.slice(0, 8), stripeAccount });
    if (key !== apiKey) {
      send(response, 401, { error: { type: "invalid_request_error", message: `Invalid API Key provided: ${key.slice(0, 8)}****` } });
      return;
    }
    if (fake.rateLimitNext > 0) {
      fake.rateLimitNext--;
      send(response, 429, { error: { type: "rate_limit_error", code: "rate_limit", message: "Too many requests hit the API too quickly." } });
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
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
