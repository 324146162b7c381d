// The GapCheck table's one writer (driver statements), and its readers: each run of the gap check (the
// background worker's, over the last three days) or of `npm run backfill` over one endpoint, with what
// the provider's API listed and what was missing, which the Endpoints page and the metrics show.
import type { Db } from "@/lib/db/client";
import { driverOf } from "@/lib/db/driver";
import { newRowId } from "@/lib/db/row-id";

/** Who ran it: the background worker's gap check, a backfill from the command line, or one asked for on the Endpoints page. */
export type GapCheckTrigger = "scheduled" | "cli" | "dashboard";

/** Where a run is: asked for on the Endpoints page and not yet taken by a worker, running, done or failed. */
export type GapCheckStatus = "queued" | "running" | "done" | "failed";

/** The endpoint a run goes over: its URL name (environment) or id (data), and the organization that owns it. */
export interface GapCheckEndpoint {
  name: string;
  organizationId: string;
}

/** A running dashboard backfill older than this was left by a worker that stopped: it is recorded failed. */
export const BACKFILL_STALE_MS = 60 * 60_000;

/** A run's counts, as lib/backfill reports them. */
export interface GapCheckCounts {
  listed: number;
  alreadyStored: number;
  stored: number;
  skipped: number;
}

/** A recorded run as the Endpoints page and the metrics read it. Times ISO 8601 UTC. */
export interface GapCheckView extends GapCheckCounts {
  id: string;
  endpoint: string;
  trigger: GapCheckTrigger;
  status: GapCheckStatus;
  startedAt: string;
  finishedAt: string | null;
  /** The window's start: events created since then were listed. */
  since: string;
  error: string | null;
}

/** Records that a run over `endpoint` started (status `running`, in the endpoint's organization), listing events created since `since`. Returns its id. */
export async function startGapCheck(db: Db, endpoint: GapCheckEndpoint, trigger: GapCheckTrigger, since: Date, now: Date): Promise<string> {
  const id = newRowId(now);
  await driverOf(db).transaction((session) =>
    session.run(`INSERT INTO "GapCheck" ("id", "organizationId", "endpoint", "trigger", "status", "startedAt", "since") VALUES (?, ?, ?, ?, 'running', ?, ?)`, [id, endpoint.organizationId, endpoint.name, trigger, now, since]),
  );
  return id;
}

/**
 * Queues a backfill of `endpoint` from `since`, asked for on the Endpoints page (trigger `dashboard`,
 * status `queued`): a worker takes it ({@link claimQueuedBackfill}), never the web request. One at a
 * time per endpoint: while one is queued or running, returns it instead (`created` false).
 */
export async function queueBackfill(db: Db, endpoint: GapCheckEndpoint, since: Date, now: Date): Promise<{ id: string; created: boolean }> {
  return driverOf(db).transaction(async (session) => {
    const [pending] = await session.all<{ id: string }>(
      `SELECT "id" FROM "GapCheck" WHERE "organizationId" = ? AND "endpoint" = ? AND "trigger" = 'dashboard' AND "status" IN ('queued', 'running') AND "startedAt" > ? ORDER BY "startedAt" DESC LIMIT 1`,
      [endpoint.organizationId, endpoint.name, new Date(now.getTime() - BACKFILL_STALE_MS)],
    );
    if (pending) return { id: pending.id, created: false };
    const id = newRowId(now);
    await session.run(`INSERT INTO "GapCheck" ("id", "organizationId", "endpoint", "trigger", "status", "startedAt", "since") VALUES (?, ?, ?, 'dashboard', 'queued', ?, ?)`, [id, endpoint.organizationId, endpoint.name, now, since]);
    return { id, created: true };
  });
}

/**
 * Takes the oldest queued dashboard backfill for this worker (status `running`, started now); a
 * conditional update, so two workers never take the same one. Records a dashboard backfill left
 * `running` for {@link BACKFILL_STALE_MS} as failed first (its worker stopped). Returns the run, or null
 * when none is queued.
 */
export async function claimQueuedBackfill(db: Db, now: Date): Promise<{ id: string; organizationId: string; endpoint: string; since: Date } | null> {
  const driver = driverOf(db);
  const stale = new Date(now.getTime() - BACKFILL_STALE_MS);
  // One indexed read when nothing waits (the usual case, every few seconds on every worker): no write.
  const rows = await driver.all<{ id: string; organizationId: string; endpoint: string; since: Date | string; status: string }>(
    `SELECT "id", "organizationId", "endpoint", "since", "status" FROM "GapCheck" WHERE "status" = 'queued' OR ("status" = 'running' AND "startedAt" < ? AND "trigger" = 'dashboard') ORDER BY "startedAt", "id" LIMIT 5`,
    [stale],
  );
  for (const row of rows) {
    if (row.status === "running") {
      await driver.transaction((session) =>
        session.run(`UPDATE "GapCheck" SET "status" = 'failed', "finishedAt" = ?, "error" = ? WHERE "id" = ? AND "status" = 'running'`, [now, "the worker stopped before it finished; ask for the backfill again", row.id]),
      );
      continue;
    }
    const taken = await driver.transaction((session) => session.run(`UPDATE "GapCheck" SET "status" = 'running', "startedAt" = ? WHERE "id" = ? AND "status" = 'queued'`, [now, row.id]));
    if (taken === 1) return { id: row.id, organizationId: row.organizationId, endpoint: row.endpoint, since: row.since instanceof Date ? row.since : new Date(row.since) };
  }
  return null;
}

/** Records a run's end with its counts. */
export async function finishGapCheck(db: Db, id: string, counts: GapCheckCounts, now: Date): Promise<void> {
  await driverOf(db).transaction((session) =>
    session.run(`UPDATE "GapCheck" SET "status" = 'done', "finishedAt" = ?, "listed" = ?, "alreadyStored" = ?, "stored" = ?, "skipped" = ? WHERE "id" = ?`, [now, counts.listed, counts.alreadyStored, counts.stored, counts.skipped, id]),
  );
}

/** Records that a run failed, with why (the API's or the database's message, never a key; at most 500 characters). */
export async function failGapCheck(db: Db, id: string, error: string, now: Date): Promise<void> {
  await driverOf(db).transaction((session) => session.run(`UPDATE "GapCheck" SET "status" = 'failed', "finishedAt" = ?, "error" = ? WHERE "id" = ?`, [now, error.slice(0, 500), id]));
}

interface GapCheckRow extends GapCheckCounts {
  id: string;
  endpoint: string;
  trigger: string;
  status: string;
  startedAt: Date;
  finishedAt: Date | null;
  since: Date;
  error: string | null;
}

function viewOf(row: GapCheckRow): GapCheckView {
  return {
    id: row.id,
    endpoint: row.endpoint,
    listed: row.listed,
    alreadyStored: row.alreadyStored,
    stored: row.stored,
    skipped: row.skipped,
    error: row.error,
    trigger: row.trigger as GapCheckTrigger,
    status: row.status as GapCheckStatus,     startedAt: row.startedAt.toISOString(),
    finishedAt: row.finishedAt?.toISOString() ?? null,
    since: row.since.toISOString(),
  };
}

/**
 * The latest backfill asked for by hand (Endpoints page or command line; queued, running, done or
 * failed) of each of `endpoints` in `organizationId` that has one, by endpoint name: what the Endpoints
 * page shows beside its backfill button. One indexed read each.
 */
export async function latestBackfills(db: Db, organizationId: string, endpoints: readonly string[]): Promise<Map<string, GapCheckView>> {
  const rows = await Promise.all(
    endpoints.map((endpoint) => db.gapCheck.findFirst({ where: { organizationId, endpoint, trigger: { in: ["dashboard", "cli"] } }, orderBy: [{ startedAt: "desc" }, { id: "desc" }] })),
  );
  return new Map(rows.filter((row) => row !== null).map((row) => [row.endpoint, viewOf(row)]));
}

/** The latest scheduled run (finished or failed; a running one is left out) of each of `endpoints` that has one, by endpoint name: one indexed read each. */
export async function latestGapChecks(db: Db, endpoints: readonly string[]): Promise<Map<string, GapCheckView>> {
  const rows = await Promise.all(
    endpoints.map((endpoint) => db.gapCheck.findFirst({ where: { trigger: "scheduled", endpoint, status: { in: ["done", "failed"] } }, orderBy: [{ startedAt: "desc" }, { id: "desc" }] })),
  );
  return new Map(rows.filter((row) => row !== null).map((row) => [row.endpoint, viewOf(row)]));
}

/** The endpoints a scheduled run went over within this many days are the ones the metrics report. */
const RECENT_GAP_CHECK_DAYS = 7;

/** The latest scheduled run of each endpoint checked within the last {@link RECENT_GAP_CHECK_DAYS} days, by endpoint name, sorted. */
export async function recentGapChecks(db: Db, now: Date): Promise<GapCheckView[]> {
  const endpoints = await db.gapCheck.findMany({ where: { trigger: "scheduled", startedAt: { gte: new Date(now.getTime() - RECENT_GAP_CHECK_DAYS * 86_400_000) } }, select: { endpoint: true }, distinct: ["endpoint"] });
  const latest = await latestGapChecks(db, endpoints.map((row) => row.endpoint).sort());
  return [...latest.values()];
}

/** When the latest scheduled run that finished or is running started, or null: what the gap check's due look reads. */
export async function lastGapCheckStart(db: Db): Promise<Date | null> {
  const row = await db.gapCheck.findFirst({ where: { trigger: "scheduled", status: { in: ["done", "running"] } }, orderBy: [{ startedAt: "desc" }, { id: "desc" }], select: { startedAt: true } });
  return row?.startedAt ?? null;
}

/**
 * Deletes finished runs (done or failed) that started before `cutoff` (the daily retention, with the
 * decisions' DECISION_RETENTION_DAYS): the gap check records one per endpoint an hour. The latest
 * finished run of each endpoint and trigger is kept whatever its age, so the Endpoints page and the
 * metrics still show it. Returns how many went.
 */
export async function deleteGapChecksBefore(db: Db, cutoff: Date): Promise<number> {
  const driver = driverOf(db);
  return driver.transaction((session) =>
    session.run(
      `DELETE FROM "GapCheck" WHERE "status" IN ('done', 'failed') AND "startedAt" < ?
         AND "id" NOT IN (SELECT "id" FROM "GapCheck" AS latest WHERE latest."status" IN ('done', 'failed') AND latest."startedAt" = (
           SELECT MAX(other."startedAt") FROM "GapCheck" AS other WHERE other."endpoint" = latest."endpoint" AND other."trigger" = latest."trigger" AND other."status" IN ('done', 'failed')))`,
      [cutoff],
    ),
  );
}
