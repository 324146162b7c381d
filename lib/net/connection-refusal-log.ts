import { channel, type Channel } from "node:diagnostics_channel";
import { CONNECTION_REFUSED_CHANNEL, type ConnectionRefusal } from "@/lib/net/connection-bounds.mjs";
import { logger } from "@/lib/log/logger";

// The subscription is kept on globalThis: a channel object only weakly held could be collected with its subscriber.
const installed = globalThis as unknown as { acreditaConnectionRefusalLog?: Channel };

/**
 * Logs the connections this process refused past its bounds (lib/net/connection-bounds.mjs), at most
 * one warning a second with the count since the last one ("<server> connections refused: too many
 * open", with the address, which bound, and the connections open): a flood of connections must not
 * become a flood of log lines. Refusals while shutting down are not logged. Installed once per process
 * (the receiver, and npm start's server through instrumentation.ts); later calls do nothing.
 */
export function logConnectionRefusals(): void {
  if (installed.acreditaConnectionRefusalLog) return;
  const refusals = channel(CONNECTION_REFUSED_CHANNEL);
  installed.acreditaConnectionRefusalLog = refusals;
  let lastLogAt = 0;
  let sinceLog = 0;
  refusals.subscribe((message) => {
    const refusal = message as ConnectionRefusal;
    if (refusal.limit === "closing") return;
    sinceLog += 1;
    if (Date.now() - lastLogAt < 1_000) return;
    logger.warn({ address: refusal.address, open: refusal.open, fromAddress: refusal.fromAddress, limit: refusal.limit, refused: sinceLog }, `${refusal.server} connections refused: too many open`);
    lastLogAt = Date.now();
    sinceLog = 0;
  });
}
