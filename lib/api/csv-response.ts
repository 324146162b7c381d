/**
 * A streamed CSV download: `chunks` pulled one at a time as the client reads (a slow reader holds one
 * chunk, not the file), UTF-8, `Content-Disposition: attachment` named `filename`, never cached. The
 * first chunk is read before answering, so a database that is down gives the route's 503, not a
 * truncated 200. A client that disconnects ends the sequence (its `return`), which stops reading.
 */
export async function csvResponse(chunks: AsyncGenerator<string>, filename: string): Promise<Response> {
  const encoder = new TextEncoder();
  const first = await chunks.next();
  let pending: IteratorResult<string> | undefined = first;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = pending ?? (await chunks.next());
      pending = undefined;
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${filename.replace(/[^A-Za-z0-9._-]/g, "_")}"`,
      "cache-control": "no-store",
    },
  });
}

/** A UTC time as a file-name stamp: 20261202T160000Z. */
export function fileStamp(now: Date): string {
  return now.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
}
