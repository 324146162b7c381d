import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Db } from "@/lib/db/client";
import { logger } from "@/lib/log/logger";
import { receiveWebhookHttp, type WebhookHttpAnswer } from "@/lib/webhooks/receive-webhook-request";
import { readNodeBodyWithCap } from "@/lib/webhooks/request-body";

const WEBHOOK_PATH = /^\/api\/webhooks\/([^/?#]+)\/?(?:\?.*)?$/;

/** Headers every answer carries: JSON, never cached, never sniffed. */
const BASE_HEADERS = { "content-type": "application/json", "cache-control": "no-store", "x-content-type-options": "nosniff" } as const;

/** The request's headers as a Fetch `Headers`, repeated ones appended in order (as Next.js builds them). */
function headersOf(message: IncomingMessage): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < message.rawHeaders.length; i += 2) headers.append(message.rawHeaders[i], message.rawHeaders[i + 1]);
  return headers;
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { ...BASE_HEADERS, ...headers, "content-length": Buffer.byteLength(text) });
  response.end(text);
}

/** The endpoint name in the path, percent-decoded; the raw segment when it does not decode (then it is unknown: 404). */
function endpointNameOf(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

async function handle(request: IncomingMessage, response: ServerResponse, options: { db?: Db }): Promise<void> {
  const url = request.url ?? "/";
  const webhook = WEBHOOK_PATH.exec(url);
  if (!webhook) {
    if (url === "/api/health/live" && request.method === "GET") return send(response, 200, { ok: true });
    return send(response, 404, { error: "not found: this process serves POST /api/webhooks/{endpoint} only" });
  }
  let answer: WebhookHttpAnswer;
  try {
    answer = await receiveWebhookHttp({ method: request.method ?? "GET", headers: headersOf(request), readBody: (maxBytes) => readNodeBodyWithCap(request, maxBytes) }, endpointNameOf(webhook[1]), options);
  } catch (error) {
    logger.error({ err: error instanceof Error ? error.message : String(error) }, "webhook request failed");
    return send(response, 500, { outcome: "rejected", reason: "internal error; retry later" });
  }
  send(response, answer.status, answer.body, answer.headers);
}

/**
 * The dedicated webhook receiver (`npm run receiver`): a bare Node.js HTTP server answering
 * `/api/webhooks/{endpoint}` with exactly the route handler's contract (same lib function
 * {@link receiveWebhookHttp}: same statuses, bodies, body cap, decision rows and processing modes) and
 * `GET /api/health/live`; everything else is 404. It exists for throughput: one App Router route
 * handler that does nothing costs ~1 ms of CPU per request here (lib/bench, target `route`), more than
 * all of the inbox's own work. Run it beside the dashboard on the same database and send providers to it.
 * Returns the (not yet listening) server; `options.db` lets tests pass their own client.
 */
export function createReceiverServer(options: { db?: Db } = {}): Server {
  const server = createServer((request, response) => {
    handle(request, response, options).catch((error: unknown) => {
      logger.error({ err: error instanceof Error ? error.message : String(error) }, "webhook answer failed");
      if (!response.headersSent) send(response, 500, { outcome: "rejected", reason: "internal error; retry later" });
      else response.destroy();
    });
  });
  server.keepAliveTimeout = 30_000;
  return server;
}
