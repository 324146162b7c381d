// Types for app-server.mjs (plain JavaScript so that npm start's server process needs no TypeScript loader).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Server } from "node:net";

export const LONG_BODY_PATHS: ReadonlySet<string>;
export const UPLOAD_TIMEOUT_MS: number;

export interface AppServerOptions {
  /** How long headers may take (ms); a body has twice this from the request's start (WEBHOOK_BODY_READ_TIMEOUT_MS). */
  readTimeoutMs: number;
  /** Connections open at once per client address; 0 for none (RECEIVER_MAX_CONNECTIONS_PER_ADDRESS). */
  maxConnectionsPerAddress: number;
  /** Connections open at once in all (RECEIVER_MAX_CONNECTIONS). */
  maxConnections: number;
  /** AUTH_SECRET: what a session cookie's signature is checked against. */
  authSecret: string;
}

export interface AppServer {
  server: Server;
  close(deadlineMs?: number): Promise<void>;
}

export function createAppServer(handle: (request: IncomingMessage, response: ServerResponse) => Promise<unknown>, options: AppServerOptions): AppServer;
