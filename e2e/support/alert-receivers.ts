// Local stand-ins for an organization's alert channels: an HTTP receiver (the generic webhook or a
// Slack incoming webhook) that records every request with its headers and answers from a queue of
// statuses, and an SMTP server (the smtp-server package) that records every message.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface ReceivedRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
}

export class AlertReceiver {
  readonly requests: ReceivedRequest[] = [];
  /** Statuses for the next requests, in order; 200 once it is empty. */
  readonly statuses: number[] = [];
  private readonly server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) if (typeof value === "string") headers[name] = value;
      this.requests.push({ path: request.url ?? "/", headers, body: Buffer.concat(chunks).toString("utf8") });
      response.writeHead(this.statuses.shift() ?? 200, { "content-type": "text/plain" }).end("ok");
    });
  });

  /** Listens on 127.0.0.1 and an ephemeral port; resolves with the base URL (http://127.0.0.1:<port>). */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

export class MailReceiver {
  readonly mails: ReceivedMail[] = [];
  /** SMTP reply codes for the next messages (e.g. 451: try later), in order; accepted once it is empty. */
  readonly refusals: number[] = [];
  private readonly server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const code = this.refusals.shift();
        if (code) return callback(Object.assign(new Error("try again later"), { responseCode: code }));
        this.mails.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "", to: session.envelope.rcptTo.map((rcpt) => rcpt.address), raw: Buffer.concat(chunks).toString("utf8") });
        callback();
      });
    },
  });

  /** Listens on 127.0.0.1; resolves with its smtp:// URL. */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", () => resolve()));
    return `smtp://127.0.0.1:${(this.server.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
