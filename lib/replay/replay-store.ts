// The Replay and ReplayEvent tables' one writer (driver statements), and their readers.
import type { Db } from "@/lib/db/client";
import { driverOf, type SqlSession } from "@/lib/db/driver";
import type { ReasonRef } from "@/lib/reasons/reason-codes";
import type { ReplayOutcome } from "@/lib/replay/replay-run";
import type { ReplayFilter } from "@/lib/replay/replay-filter";

/** An order's status and totals as a replay shows them (minor units of the order's currency). */
export interface ReplayOrderState {
  status: string;
  credited: number;
  refunded: number;
}

/** A ledger entry a replay books (amount signed, minor units), and the event that booked it. */
export interface ReplayLedgerLine {
  kind: string;
  amount: number;
  currency: string;
  businessKey: string;
  eventId: string;
}

/** What a replay does to one order: before, after (null: no such order), the entries it books and the money per currency (zero left out). */
export interface ReplayOrderView {
  orderId: string;
  before: ReplayOrderState | null;
  after: ReplayOrderState | null;
  ledger: ReplayLedgerLine[];
  /** ISO 4217 code → signed minor units booked; currencies whose sum is zero are left out. */
  delta: Record<string, number>;
}

/** One event of a replay and what replaying it did (or would do). Times ISO 8601 UTC. */
export interface ReplayEventView {
  position: number;
  provider: string;
  endpoint: string;
  eventId: string;
  type: string;
  /** The stored event's status when previewed (`dead` also for an event only a dead letter holds). */
  status: string;
  arrivedAt: string;
  /** The provider's creation time, when the event gives one. */
  createdAt: string | null;
  storedEventId: string | null;
  deadLetterId: string | null;
  outcome: ReplayOutcome;
  reason: string;
  reasonRef?: ReasonRef;
  orderId: string | null;
  /** A refusal's category (`failed`). */
  category?: string;
}

/** previewed: may be applied; applied: done (applying again does nothing); stale: an order moved since the preview, preview again. */
export type ReplayStatus = "previewed" | "applied" | "stale";

/** A stored replay as the API and the dashboard show it. */
export interface ReplayView {
  id: string;
  status: ReplayStatus;
  createdAt: string;
  createdBy: string;
  filter: ReplayFilter;
  events: ReplayEventView[];
  orders: ReplayOrderView[];
  appliedAt: string | null;
  appliedBy: string | null;
  /** What the apply did, once applied: each event's outcome. */
  applied: ReplayEventView[] | null;
}

/** What the preview column holds: the answer, and each order's fingerprint before and after (lib/ledger/order-books.ts). */
export interface StoredPreview {
  events: ReplayEventView[];
  orders: ReplayOrderView[];
  fingerprints: Record<string, { before: string; after: string }>;
}

/** One event of a replay as stored, in the order it is applied. */
export interface ReplayEventRow {
  position: number;
  webhookEventId: string | null;
  deadLetterId: string | null;
  provider: string;
  account: string;
  livemode: boolean;
  eventId: string;
  endpoint: string;
  bodyHash: string;
}

const EVENT_COLUMNS = ["replayId", "position", "webhookEventId", "deadLetterId", "provider", "account", "livemode", "eventId", "endpoint", "bodyHash"] as const;

/** Stores a previewed replay and its events in one transaction. Throws the database's errors. */
export async function insertReplay(
  db: Db,
  replay: { id: string; organizationId: string; createdAt: Date; createdBy: string; filter: ReplayFilter; preview: StoredPreview },
  events: readonly ReplayEventRow[],
): Promise<void> {
  await driverOf(db).transaction(async (session) => {
    await session.run(`INSERT INTO "Replay" ("id", "organizationId", "createdAt", "createdBy", "filter", "status", "eventCount", "orderCount", "preview") VALUES (?, ?, ?, ?, ?, 'previewed', ?, ?, ?)`, [
      replay.id,
      replay.organizationId,
      replay.createdAt,
      replay.createdBy,
      JSON.stringify(replay.filter),
      replay.preview.events.length,
      replay.preview.orders.length,
      JSON.stringify(replay.preview),
    ]);
    // Bounded by MAX_REPLAY_EVENTS (200 × 10 values): one statement.
    if (events.length === 0) return;
    const placeholders = events.map(() => `(${EVENT_COLUMNS.map(() => "?").join(", ")})`).join(", ");
    await session.run(
      `INSERT INTO "ReplayEvent" (${EVENT_COLUMNS.map((column) => `"${column}"`).join(", ")}) VALUES ${placeholders}`,
      events.flatMap((event) => [replay.id, event.position, event.webhookEventId, event.deadLetterId, event.provider, event.account, event.livemode, event.eventId, event.endpoint, event.bodyHash]),
    );
  });
}

/**
 * The first write of a replay's apply, in its transaction: marks it applied by `by` at `now` with what
 * the apply did, only while it is `previewed`. Returns false when it is not (applied or stale already,
 * or no such replay): two applies at once apply it once.
 */
export async function markReplayApplied(session: SqlSession, id: string, by: string, now: Date): Promise<boolean> {
  return (await session.run(`UPDATE "Replay" SET "status" = 'applied', "appliedAt" = ?, "appliedBy" = ? WHERE "id" = ? AND "status" = 'previewed'`, [now, by, id])) === 1;
}

/** Records what the apply did (each event's outcome), in the apply's transaction. */
export async function recordReplayResult(session: SqlSession, id: string, applied: readonly ReplayEventView[]): Promise<void> {
  await session.run(`UPDATE "Replay" SET "result" = ? WHERE "id" = ?`, [JSON.stringify(applied), id]);
}

/** Marks a previewed replay stale (its orders moved since the preview): it can no longer be applied. Returns false when it was not `previewed`. */
export async function markReplayStale(db: Db, id: string): Promise<boolean> {
  return driverOf(db).transaction(async (session) => (await session.run(`UPDATE "Replay" SET "status" = 'stale' WHERE "id" = ? AND "status" = 'previewed'`, [id])) === 1);
}

/** The organization's stored replay with its preview (fingerprints included) and its events in order, or null (another organization's is not found). */
export async function readReplay(db: Db, organizationId: string, id: string): Promise<{ view: ReplayView; preview: StoredPreview; events: ReplayEventRow[] } | null> {
  const row = await db.replay.findFirst({ where: { id, organizationId }, include: { events: { orderBy: { position: "asc" } } } });
  if (!row) return null;
  const preview = JSON.parse(row.preview) as StoredPreview;
  return {
    view: {
      id: row.id,
      status: row.status as ReplayStatus,
      createdAt: row.createdAt.toISOString(),
      createdBy: row.createdBy,
      filter: JSON.parse(row.filter) as ReplayFilter,
      events: preview.events,
      orders: preview.orders,
      appliedAt: row.appliedAt?.toISOString() ?? null,
      appliedBy: row.appliedBy,
      applied: row.result ? (JSON.parse(row.result) as ReplayEventView[]) : null,
    },
    preview,
    events: row.events.map(({ replayId: _replayId, ...event }) => event),
  };
}

/** One line of the replays list. */
export interface ReplaySummary {
  id: string;
  status: ReplayStatus;
  createdAt: string;
  createdBy: string;
  filter: ReplayFilter;
  eventCount: number;
  orderCount: number;
  appliedAt: string | null;
  appliedBy: string | null;
}

/** The organization's latest replays, newest first (at most `limit`, default 20). */
export async function listReplays(db: Db, organizationId: string, limit = 20): Promise<ReplaySummary[]> {
  const rows = await db.replay.findMany({
    where: { organizationId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: Math.min(Math.max(limit, 1), 100),
    select: { id: true, status: true, createdAt: true, createdBy: true, filter: true, eventCount: true, orderCount: true, appliedAt: true, appliedBy: true },
  });
  return rows.map((row) => ({
    ...row,
    status: row.status as ReplayStatus,
    createdAt: row.createdAt.toISOString(),
    filter: JSON.parse(row.filter) as ReplayFilter,
    appliedAt: row.appliedAt?.toISOString() ?? null,
  }));
}
