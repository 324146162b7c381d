/** The raw body as read, or why it was not. `receivedBytes` counts what was read before stopping. */
export type CappedBody =
  | { ok: true; body: Buffer }
  | { ok: false; status: 413; reason: string; receivedBytes: number }
  | { ok: false; status: 400; reason: string; receivedBytes: number };

/**
 * Reads a request's raw body, never holding more than `maxBytes` (+ one chunk) in memory:
 * - a `Content-Length` above the cap is refused before a byte is read (413);
 * - a body that turns out larger than the cap while streaming (chunked, or a lying length) is refused
 *   as soon as the running total passes it, and the stream is cancelled (413);
 * - a body that cannot be read (client aborted mid-way) is 400.
 * Returns the bytes exactly as sent (the signature covers them, CRLF and all).
 */
export async function readBodyWithCap(request: Request, maxBytes: number): Promise<CappedBody> {
  const declared = request.headers.get("content-length");
  if (declared !== null && /^\s*\d+\s*$/.test(declared) && Number(declared) > maxBytes) {
    return { ok: false, status: 413, reason: tooLarge(maxBytes, `Content-Length ${Number(declared)}`), receivedBytes: 0 };
  }
  if (!request.body) return { ok: true, body: Buffer.alloc(0) };

  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        // Stop reading: the rest of the body never reaches memory.
        await reader.cancel().catch(() => {});
        return { ok: false, status: 413, reason: tooLarge(maxBytes, `more than ${maxBytes} bytes received`), receivedBytes: total };
      }
      chunks.push(value);
    }
  } catch {
    return { ok: false, status: 400, reason: "request body could not be read", receivedBytes: total };
  } finally {
    reader.releaseLock();
  }
  return { ok: true, body: Buffer.concat(chunks, total) };
}

function tooLarge(maxBytes: number, what: string): string {
  return `body too large: ${what}, limit ${maxBytes} bytes`;
}
