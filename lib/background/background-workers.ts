import { db as defaultDb, type Db } from "@/lib/db/client";
import { InboxWorker, type InboxWorkerOptions } from "@/lib/inbox/inbox-worker";
import { logger } from "@/lib/log/logger";
import { OutboxDispatcher, type OutboxDispatcherOptions } from "@/lib/outbox/outbox-dispatcher";

/** The background work of one process: an inbox worker and an outbox dispatcher. */
export interface BackgroundWorkers {
  inbox: InboxWorker;
  outbox: OutboxDispatcher;
  /** Stops both: what each holds is finished and recorded; resolves when done. */
  stop(): Promise<void>;
}

/**
 * Starts one inbox worker and one outbox dispatcher on `database` (default: the process's client). Used
 * by the server process (instrumentation.ts) and by `npm run worker`; run as many processes as needed.
 */
export function startBackgroundWorkers(
  options: { database?: () => Promise<Db>; inbox?: InboxWorkerOptions; outbox?: OutboxDispatcherOptions; where?: string } = {},
): BackgroundWorkers {
  const database = options.database ?? defaultDb;
  const inbox = new InboxWorker(database, options.inbox);
  const outbox = new OutboxDispatcher(database, options.outbox);
  inbox.start();
  outbox.start();
  logger.info({ inboxWorker: inbox.owner, outboxDispatcher: outbox.owner, where: options.where ?? "process" }, "background workers started");
  let stopping: Promise<void> | undefined;
  return {
    inbox,
    outbox,
    stop() {
      stopping ??= Promise.all([inbox.stop(), outbox.stop()]).then(() => {
        logger.info({ inboxWorker: inbox.owner, outboxDispatcher: outbox.owner }, "background workers stopped");
      });
      return stopping;
    },
  };
}
