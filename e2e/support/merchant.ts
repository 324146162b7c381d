import http from "node:http";
import type { AddressInfo } from "node:net";

/** How the fake merchant answers the next requests. */
export type MerchantBehaviour = { kind: "status"; status: number } | { kind: "hang" } | { kind: "reset" };

/** One request the merchant received in full. */
export interface MerchantRequest {
  idempotencyKey: string | undefined;
  signature: string | undefined;
  body: string;
}

/**
 * A local node:http server standing in for the merchant's fulfilment endpoint: records every request it
 * received in full, then answers as told (a status, never, or by resetting the connection).
 */
export class FakeMerchant {
  readonly requests: MerchantRequest[] = [];
  behaviour: MerchantBehaviour = { kind: "status", status: 200 };
  /** Drop, unanswered, a connection used for a second request: what a client sees when it reuses a keep-alive socket the server has just closed. */
  dropReusedConnections = false;
  private readonly requestsPerSocket = new WeakMap<object, number>();
  private server = http.createServer((request, response) => {
    const served = (this.requestsPerSocket.get(request.socket) ?? 0) + 1;
    this.requestsPerSocket.set(request.socket, served);
    if (this.dropReusedConnections && served > 1) {
      request.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      this.requests.push({
        idempotencyKey: request.headers["idempotency-key"] as string | undefined,
        signature: request.headers["acredita-signature"] as string | undefined,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      const behaviour = this.behaviour;
      if (behaviour.kind === "status") response.writeHead(behaviour.status, { "content-type": "application/json" }).end('{"ok":true}');
      else if (behaviour.kind === "reset") request.socket.destroy();
      // "hang": never answer; the client's timeout decides.
    });
  });

  /** Starts listening on a free port of 127.0.0.1; returns the fulfilment URL. */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/fulfil`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A port nothing listens on (asked from the OS, then closed). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
