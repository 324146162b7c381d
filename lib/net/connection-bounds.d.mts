// Types for connection-bounds.mjs (plain JavaScript so that npm start's server process needs no TypeScript loader).
import type { Server as HttpServer } from "node:http";
import type { Server } from "node:net";

export const CONNECTION_REFUSED_CHANNEL: string;
export const TIMEOUT_CHECK_INTERVAL_MS: number;

/** The bounds on the connections clients may hold open at once. */
export interface ConnectionLimits {
  /** Per client (socket) address; 0 for none. */
  maxConnectionsPerAddress: number;
  /** In all. */
  maxConnections: number;
}

/** What is published on CONNECTION_REFUSED_CHANNEL for each refused connection. */
export interface ConnectionRefusal {
  server: string;
  address: string;
  /** Connections open when it came, in all and from its address. */
  open: number;
  fromAddress: number;
  limit: "per_address" | "total" | "closing";
  reason: string;
}

export interface BoundedConnections {
  server: Server;
  closing(): boolean;
  openConnections(): number;
  close(deadlineMs?: number): Promise<void>;
}

export function boundConnections(http: HttpServer, limits: ConnectionLimits, name: string): BoundedConnections;
