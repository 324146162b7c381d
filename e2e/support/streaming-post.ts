import { request as httpRequest } from "node:http";

/** An answer to {@link postStreaming}: status, headers, parsed JSON body, and the body bytes written before it came. */
export interface StreamingAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: { outcome: string; reason: string };
  bytesWritten: number;
}

/**
 * POSTs to `url`, writing `chunk` up to `chunks` times and stopping as soon as the answer arrives (the
 * server may answer, and close, while the body is still being sent: that is what a body cap does).
 * Without a `content-length` header the body is sent chunked and ended after the last write.
 * Note: a server that answers and closes while the body is still arriving resets the connection when
 * more bytes come, and the client's kernel may drop the answer before it is read (Node.js's HTTP server
 * has no lingering close). Send few bytes past the cap when the answer must be read for sure.
 */
export function postStreaming(url: string, headers: Record<string, string>, chunk: Buffer, chunks: number): Promise<StreamingAnswer> {
  return new Promise((resolve, reject) => {
    let bytesWritten = 0;
    let answered = false;
    const req = httpRequest(url, { method: "POST", headers: { "content-type": "application/json", ...headers } }, (res) => {
      answered = true;
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (part) => (text += part));
      res.on("end", () => {
        req.destroy();
        resolve({ status: res.statusCode!, headers: res.headers, json: JSON.parse(text), bytesWritten });
      });
    });
    // The server closes the connection after a 413 while we may still be writing: that is expected.
    req.on("error", (error) => (answered ? undefined : reject(error)));
    let sent = 0;
    const writeMore = () => {
      while (!answered && sent < chunks) {
        sent++;
        bytesWritten += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", writeMore);
      }
      if (!answered && sent >= chunks && headers["content-length"] === undefined) req.end();
    };
    writeMore();
  });
}
