import { because, type ReasonRef } from "@/lib/reasons/reason-codes";
import type { IncomingMessage } from "node:http";

/** The raw body as read, or why it was not. `receivedBytes` counts what was read before stopping. */
export type CappedBody =
  | { ok: true; body: Buffer }
  | { ok: false; status: 413; reason: string; reasonRef?: ReasonRef; receivedBytes: number }
  | { ok: false; status: 408; reason: string; reasonRef?: ReasonRef; receivedBytes: number }
  | { ok: false; status: 400; reason: string; reasonRef?: ReasonRef; receivedBytes: number };

/** The 408 of a body that did not arrive within `timeoutMs`. */
function timedOut(timeoutMs: number, receivedBytes: number): CappedBody {
  return { ok: false, status: 408, ...because("body_read_timeout", { seconds: Math.round(timeoutMs / 100) / 10 }), receivedBytes };
}

/**
 * Reads a request's raw body, never holding more than `maxBytes` (+ one chunk) in memory:
 * - a `Content-Length` above the cap is refused before a byte is read (413);
 * - a body that turns out larger than the cap while streaming (chunked, or a lying length) is refused
 *   as soon as the running total passes it, and the stream is cancelled (413);
 * - a body still incomplete `timeoutMs` after reading began is refused and the stream cancelled (408;
 *   none by default): a client trickling or stalling its body would otherwise hold what it sent;
 * - a body that cannot be read (client aborted mid-way) is 400.
 * Returns the bytes exactly as sent (the signature covers them, CRLF and all).
 */
export async function readBodyWithCap(request: Request, maxBytes: number, timeoutMs = Infinity): Promise<CappedBody> {
  const announced = refuseAnnouncedLength(request.headers.get("content-length"), maxBytes);
  if (announced) return announced;
  if (!request.body) return { ok: true, body: Buffer.alloc(0) };

  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let timer: NodeJS.Timeout | undefined;
  // Resolves (never rejects) when the time is up; raced with each read.
  const deadline = Number.isFinite(timeoutMs) ? new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), timeoutMs))) : undefined;
  try {
    for (;;) {
      const next = deadline ? await Promise.race([reader.read(), deadline]) : await reader.read();
      if (next === "timeout") {
        // Frees what was read and stops the stream: the rest of the body never reaches memory. Not
        // awaited: with a read still pending, Next.js's body stream settles its cancel only when the
        // client's body ends, which is what a stalled client never does.
        chunks.length = 0;
        void reader.cancel().catch(() => {});
        return timedOut(timeoutMs, total);
      }
      const { done, value } = next;
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        // Stop reading: the rest of the body never reaches memory.
        await reader.cancel().catch(() => {});
        return { ok: false, status: 413, ...because("body_too_large_bytes", { limit: maxBytes }), receivedBytes: total };
      }
      chunks.push(value);
    }
  } catch {
    return { ok: false, status: 400, ...because("body_unreadable", {}), receivedBytes: total };
  } finally {
    clearTimeout(timer);
    reader.releaseLock();
  }
  return { ok: true, body: Buffer.concat(chunks, total) };
}

/** The 413 for a Content-Length above the cap, answered before a byte is read; undefined otherwise. */
function refuseAnnouncedLength(declared: string | null | undefined, maxBytes: number): CappedBody | undefined {
  if (declared !== null && declared !== undefined && /^\s*\d+\s*$/.test(declared) && Number(declared) > maxBytes) {
    return { ok: false, status: 413, ...because("body_too_large_declared", { declared: Number(declared), limit: maxBytes }), receivedBytes: 0 };
  }
  return undefined;
}

/**
 * {@link readBodyWithCap} for a Node.js request (the dedicated receiver process): the same 413 before
 * reading and while streaming (reading stops and the rest is never buffered; the caller answers with
 * `Connection: close`), the same 408 past `timeoutMs` (what was read is dropped), 400 when the client
 * breaks off. Returns the bytes exactly as sent.
 */
export function readNodeBodyWithCap(message: IncomingMessage, maxBytes: number, timeoutMs = Infinity): Promise<CappedBody> {
  const announced = refuseAnnouncedLength(message.headers["content-length"], maxBytes);
  if (announced) return Promise.resolve(announced);
  return new Promise((resolve) => {
    let chunks: Buffer[] = [];
    let total = 0;
    let settled = false;
    const timer = Number.isFinite(timeoutMs)
      ? setTimeout(() => {
          chunks = [];
          finish(timedOut(timeoutMs, total));
          // Whatever still arrives is read and dropped: bytes left unread when the connection closes
          // make the kernel reset it, and the client would lose the 408 it was sent.
          message.resume();
        }, timeoutMs)
      : undefined;
    const finish = (result: CappedBody) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      message.off("data", onData);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.byteLength;
      if (total > maxBytes) {
        message.pause();
        finish({ ok: false, status: 413, ...because("body_too_large_bytes", { limit: maxBytes }), receivedBytes: total });
        return;
      }
      chunks.push(chunk);
    };
    message.on("data", onData);
    message.once("end", () => finish({ ok: true, body: Buffer.concat(chunks, total) }));
    message.once("aborted", () => finish({ ok: false, status: 400, ...because("body_unreadable", {}), receivedBytes: total }));
    message.once("error", () => finish({ ok: false, status: 400, ...because("body_unreadable", {}), receivedBytes: total }));
  });
}
