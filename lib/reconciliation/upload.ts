import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";

/** An upload larger than the limit (answered 413, naming the limit); nothing of it is kept. */
export class UploadTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`the report is larger than the upload limit of ${formatBytes(limitBytes)} (${limitBytes} bytes, RECONCILIATION_UPLOAD_MAX_BYTES)`);
    this.name = "UploadTooLargeError";
  }
}

/** 209715200 -> "200 MB" (binary megabytes, as the default is written), 1536 -> "1.5 KB". */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Number((bytes / (1024 * 1024)).toFixed(1))} MB`;
  if (bytes >= 1024) return `${Number((bytes / 1024).toFixed(1))} KB`;
  return `${bytes} bytes`;
}

/** A declared Content-Length over `limit` (refused before reading a byte); a missing or bad header is checked while streaming. */
export function declaredTooLarge(contentLength: string | null, limit: number): boolean {
  const declared = contentLength === null ? NaN : Number(contentLength);
  return Number.isFinite(declared) && declared > limit;
}

/**
 * Streams `body` (a Web stream, as a route handler's `request.body`) to a new file in `folder`,
 * counting bytes as they pass and stopping at `limit`: the process never holds more than a chunk.
 * Returns the file's path and size. Throws {@link UploadTooLargeError} past the limit (the partial
 * file deleted); other stream errors (the client went away) are thrown after the same clean-up.
 */
export async function spoolUpload(body: WebReadableStream<Uint8Array> | ReadableStream<Uint8Array> | null, folder: string, limit: number): Promise<{ filePath: string; bytes: number }> {
  await mkdir(folder, { recursive: true });
  const filePath = path.join(folder, `${Date.now()}-${randomUUID()}.csv`);
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes > limit) done(new UploadTooLargeError(limit));
      else done(null, chunk);
    },
  });
  const source = body ? Readable.fromWeb(body as WebReadableStream<Uint8Array>) : Readable.from([]);
  try {
    await pipeline(source, counter, createWriteStream(filePath, { flags: "wx" }));
  } catch (error) {
    await rm(filePath, { force: true });
    throw error;
  }
  return { filePath, bytes };
}
