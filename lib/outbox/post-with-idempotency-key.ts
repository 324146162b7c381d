import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";

/**
 * What became of one POST:
 * - answered: the target sent a status line (it decided; the status says what);
 * - not_sent: the request was not fully written (DNS failure, refused, connect timeout): the target
 *   cannot have acted on it, a resend is safe;
 * - uncertain: the request was written but no answer came (timeout, connection reset): the target may
 *   have acted. No HTTP webhook can tell these apart from the sender's side.
 * An alert channel's sender (lib/alerts) may also say delivered or refused.
 */
export type SendOutcome =
  | { kind: "answered"; statusCode: number }
  | { kind: "not_sent"; error: string }
  | { kind: "uncertain"; error: string }
  /** Accepted by a target that answers with no HTTP status (an SMTP server's 250): sent. */
  | { kind: "delivered"; detail: string }
  /** Not sent, and sending again cannot help (the channel was removed, its URL is refused, an SMTP 5xx): failed. */
  | { kind: "refused"; error: string };

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}

/**
 * POSTs `body` (JSON) to `target` with `Idempotency-Key: <idempotencyKey>` (and `extraHeaders`), waiting at most `timeoutMs`
 * for the status line; `options.lookup` pins the addresses it connects to. Uses node:http directly to know whether the request had been fully written when
 * a failure happened ('finish' event), which decides not_sent versus uncertain. Never throws; the
 * outcome's error text never contains the URL (it may carry credentials).
 */
export function postWithIdempotencyKey(
  target: string,
  body: string,
  idempotencyKey: string,
  timeoutMs: number,
  extraHeaders: Record<string, string> = {},
  options: { lookup?: LookupFunction } = {},
): Promise<SendOutcome> {
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      resolve({ kind: "not_sent", error: "invalid target URL" });
      return;
    }
    let written = false;
    let settled = false;
    const settle = (outcome: SendOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const request = (url.protocol === "https:" ? https : http).request(url, {
      method: "POST",
      // A fresh connection per send: a pooled keep-alive socket the target has just closed fails with
      // ECONNRESET after the write, which would look like "sent, no answer" and make the message uncertain.
      agent: false,
      // A user-given URL is connected to the addresses its check resolved (lib/net/outbound-url.ts: DNS rebinding).
      ...(options.lookup ? { lookup: options.lookup } : {}),
      headers: {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
        "idempotency-key": idempotencyKey,
        "user-agent": "Acredita-Outbox/1",
        ...extraHeaders,
      },
    });
    const timer = setTimeout(() => request.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: "ETIMEDOUT" })), timeoutMs);
    request.on("finish", () => {
      written = true;
    });
    request.on("response", (response) => {
      response.resume();
      settle({ kind: "answered", statusCode: response.statusCode ?? 0 });
    });
    request.on("error", (error) => settle(written ? { kind: "uncertain", error: describe(error) } : { kind: "not_sent", error: describe(error) }));
    request.end(body);
  });
}
