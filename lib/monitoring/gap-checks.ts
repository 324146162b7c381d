// The GapCheck table's one writer (driver statements), and its readers: each run of the gap check (the
// background worker's, over the last three days) or of `npm run backfill` over one endpoint, with what
// the provider's API listed and what was missing, which the Endpoints page and the metrics show.
import type { Db } from "@/lib/db/client";
import { driverOf } from "@/lib/db/driver";
import { newRowId } from "@/lib/db/row-id";

/** Who ran it: the background worker's gap check, or a backfill from the command line. */
export type GapCheckTrigger = "scheduled" | "cli";

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
  status: "running" | "done" | "failed";
  startedAt: string;
  finishedAt: string | null;
  /** The window's start: events created since then were listed. */
  since: string;
  error: string | null;
}

/** Records that a run over `endpoint` started (status `running`), listing events created since `since`. Returns its id. */
export async function startGapCheck(db: Db, endpoint: string, trigger: GapCheckTrigger, since: Date, now: Date): Promise<string> {
  const id = newRowId(now);
  await driverOf(db).transaction((session) => session.run(`INSERT INTO "GapCheck" ("id", "endpoint", "trigger", "status", "startedAt", "since") VALUES (?, ?, ?, 'running', ?, ?)`, [id, endpoint, trigger, now, since]));
  return id;
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
  return { ...row, trigger: row.trigger as GapCheckTrigger, status: row.status as GapCheckView["status"], startedAt: row.startedAt.toISOString(), finishedAt: row.finishedAt?.toISOString() ?? null, since: row.since.toISOString() };
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
