import { apiCopyBodyHash } from "@/lib/core/event-key";
import type { Db } from "@/lib/db/client";
import { driverOf } from "@/lib/db/driver";
import type { ServedEndpoint } from "@/lib/endpoints/endpoints";
import type { VerifiedDelivery } from "@/lib/ingest/delivery";
import { processInline } from "@/lib/ingest/process-inline";
import { storeInInbox } from "@/lib/ingest/store-inbox-event";
import { logger } from "@/lib/log/logger";
import { providers } from "@/lib/providers/registry";

/** What a backfill did: events the provider listed, those the inbox already held, those it stored (would store, in a dry run), those it could not take. */
export interface BackfillReport {
  listed: number;
  alreadyStored: number;
  stored: number;
  /** Listed events of another mode, or that do not parse as the provider's events (each logged with its reason). */
  skipped: number;
}

/** Events looked up and stored together (one page of Stripe's list). */
const BATCH = 100;

/** Thrown when an event could not be stored (the database failed): the backfill stops, what it stored stays, a later run takes the rest. */
export class BackfillStoreError extends Error {
  constructor(readonly eventId: string) {
    super(`event ${eventId} could not be stored (the database failed); run the backfill again`);
    this.name = "BackfillStoreError";
  }
}

/**
 * The listed ids the database already knows under the endpoint's scope: stored as an event, or parked
 * as a dead letter (an inline endpoint's unappliable delivery is kept only there), whatever its body.
 */
async function knownEventIds(db: Db, endpoint: ServedEndpoint, eventIds: readonly string[]): Promise<Set<string>> {
  if (eventIds.length === 0) return new Set();
  const marks = eventIds.map(() => "?").join(", ");
  const params = [endpoint.provider, endpoint.account, endpoint.livemode, ...eventIds];
  const driver = driverOf(db);
  const [events, letters] = await Promise.all([
    driver.all<{ eventId: string }>(`SELECT "eventId" FROM "WebhookEvent" WHERE "provider" = ? AND "account" = ? AND "livemode" = ? AND "eventId" IN (${marks})`, params),
    driver.all<{ eventId: string }>(`SELECT "eventId" FROM "DeadLetter" WHERE "provider" = ? AND "account" = ? AND "livemode" = ? AND "eventId" IN (${marks})`, params),
  ]);
  return new Set([...events, ...letters].map((row) => row.eventId));
}

/**
 * Stores the events a provider's API listed that the inbox lacks, through the same path as a delivery
 * (the endpoint's mode: the inbox for a worker to apply, or inline, stored and applied at once), under
 * the same event key, so a delivery and its fetched copy are one event. An event fetched with the
 * endpoint's API key is authentic without a signature; its body hash is marked as an API copy
 * (`api:`…), and for it the event id decides: an id already stored, by a delivery or an earlier
 * backfill, is `alreadyStored`, never a conflict, including one that a live delivery stores while the
 * backfill runs. Its decision says where it came from (`source`: backfill or gap-check).
 *
 * Takes the endpoint, the listed events (JSON objects as the API returned them, any number, read batch
 * by batch), and `dryRun` (count what would be stored, store nothing). Returns {@link BackfillReport}.
 * Throws {@link BackfillStoreError} when the database fails to store one (a later run takes the rest),
 * and what the listing throws (lib/provider-api: a bad key, the API unavailable).
 */
export async function backfillEvents(
  db: Db,
  endpoint: ServedEndpoint,
  listed: AsyncIterable<Record<string, unknown>>,
  options: { dryRun?: boolean; source?: "backfill" | "gap-check"; now?: () => Date } = {},
): Promise<BackfillReport> {
  const report: BackfillReport = { listed: 0, alreadyStored: 0, stored: 0, skipped: 0 };
  const now = options.now ?? (() => new Date());
  let batch: Record<string, unknown>[] = [];
  const flush = async () => {
    const events = batch;
    batch = [];
    const known = await knownEventIds(db, endpoint, events.map((event) => String(event.id)));
    for (const event of events) {
      if (known.has(String(event.id))) {
        report.alreadyStored++;
        continue;
      }
      if (event.livemode !== endpoint.livemode) {
        report.skipped++;
        logger.warn({ endpoint: endpoint.name, eventId: String(event.id).slice(0, 255) }, "backfill: listed event of the other mode skipped");
        continue;
      }
      const body = Buffer.from(JSON.stringify(event));
      const at = now();
      const parsed = providers[endpoint.provider].parse({ headers: new Headers(), body, now: at }, endpoint.options, { name: endpoint.name, account: endpoint.account, livemode: endpoint.livemode });
      if (!parsed.ok) {
        report.skipped++;
        logger.warn({ endpoint: endpoint.name, eventId: String(event.id).slice(0, 255), reason: parsed.reason }, "backfill: listed event not taken");
        continue;
      }
      if (options.dryRun) {
        report.stored++;
        continue;
      }
      const delivery: VerifiedDelivery = { endpoint, event: parsed.event, bodyHash: apiCopyBodyHash(body), source: options.source ?? "backfill" };
      const result = endpoint.mode === "inbox" ? await storeInInbox(db, delivery, at) : await processInline(db, delivery);
      if (result.outcome === "duplicate") report.alreadyStored++;
      else if (result.httpStatus >= 500) throw new BackfillStoreError(parsed.event.eventId);
      else report.stored++;
    }
  };
  for await (const event of listed) {
    report.listed++;
    batch.push(event);
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  return report;
}
