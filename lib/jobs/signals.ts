import { EventEmitter } from "node:events";

/**
 * In-process wake-ups: the receiver says "new inbox work", the apply step says "new outbox work" and a
 * new dead letter says "evaluate the alerts",
 * so a worker in the same process starts at once instead of at its next poll. Kept on globalThis
 * because Next.js bundles route handlers and instrumentation.ts separately (two module copies, one
 * process). Workers in other processes find the same work by polling.
 */
type Channel = "inbox" | "outbox" | "reconciliation" | "alerts";

const globalForSignals = globalThis as unknown as { acreditaSignals?: EventEmitter };

function emitter(): EventEmitter {
  globalForSignals.acreditaSignals ??= new EventEmitter().setMaxListeners(50);
  return globalForSignals.acreditaSignals;
}

/** Tells this process's workers on `channel` that work is due. */
export function notifyWork(channel: Channel): void {
  emitter().emit(channel);
}

/** Calls `listener` whenever work on `channel` is announced; returns the unsubscribe function. */
export function onWork(channel: Channel, listener: () => void): () => void {
  emitter().on(channel, listener);
  return () => emitter().off(channel, listener);
}
