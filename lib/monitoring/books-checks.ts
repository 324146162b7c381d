// The BooksCheck table's one writer (driver statements), and its readers: each run of "rebuild and
// compare" over every order (lib/verification) with its counts and its bounded report, which the health
// strip and the operational metrics show.
import type { Db } from "@/lib/db/client";
import { driverOf } from "@/lib/db/driver";
import { newRowId } from "@/lib/db/row-id";

/** Who asked for a check: the background worker's daily run, the CLI, the dashboard, the API. */
export type BooksCheckTrigger = "daily" | "cli" | "dashboard" | "api";

/** A finished check's counts: orders checked, and of them whose books agree, differ or could not be rebuilt; orders with events still waiting. */
export interface BooksCheckCounts {
  orders: number;
  agreeing: number;
  differing: number;
  unverifiable: number;
  waiting: number;
}

/** A recorded check as the health strip, the metrics and the Books page read it. Times ISO 8601 UTC. */
export interface BooksCheckView {
  id: string;
  trigger: BooksCheckTrigger;
  status: "running" | "done" | "failed";
  startedAt: string;
  finishedAt: string | null;
  ordersChecked: number;
  ordersAgreeing: number;
  ordersDiffering: number;
  ordersWaiting: number;
  ordersUnverifiable: number;
  error: string | null;
}

/** Records that a check over every order of an organization started (status `running`). Returns its id. */
export async function startBooksCheck(db: Db, organizationId: string, trigger: BooksCheckTrigger, now: Date): Promise<string> {
  const id = newRowId(now);
  await driverOf(db).transaction((session) => session.run(`INSERT INTO "BooksCheck" ("id", "organizationId", "startedAt", "trigger", "status", "report") VALUES (?, ?, ?, ?, 'running', '{}')`, [id, organizationId, now, trigger]));
  return id;
}

/** Records a check's end: its counts and its bounded report (`report`, JSON). */
export async function finishBooksCheck(db: Db, id: string, counts: BooksCheckCounts, report: string, now: Date): Promise<void> {
  await driverOf(db).transaction((session) =>
    session.run(
      `UPDATE "BooksCheck" SET "status" = 'done', "finishedAt" = ?, "ordersChecked" = ?, "ordersAgreeing" = ?, "ordersDiffering" = ?, "ordersWaiting" = ?, "ordersUnverifiable" = ?, "report" = ? WHERE "id" = ?`,
      [now, counts.orders, counts.agreeing, counts.differing, counts.waiting, counts.unverifiable, report, id],
    ),
  );
}

/** Records that a check failed (the database went away mid-run), with why (no stack, at most 500 characters). */
export async function failBooksCheck(db: Db, id: string, error: string, now: Date): Promise<void> {
  await driverOf(db).transaction((session) => session.run(`UPDATE "BooksCheck" SET "status" = 'failed', "finishedAt" = ?, "error" = ? WHERE "id" = ?`, [now, error.slice(0, 500), id]));
}

const VIEW_SELECT = { id: true, trigger: true, status: true, startedAt: true, finishedAt: true, ordersChecked: true, ordersAgreeing: true, ordersDiffering: true, ordersWaiting: true, ordersUnverifiable: true, error: true } as const;

function viewOf(row: { id: string; trigger: string; status: string; startedAt: Date; finishedAt: Date | null; ordersChecked: number; ordersAgreeing: number; ordersDiffering: number; ordersWaiting: number; ordersUnverifiable: number; error: string | null }): BooksCheckView {
  return { ...row, trigger: row.trigger as BooksCheckTrigger, status: row.status as BooksCheckView["status"], startedAt: row.startedAt.toISOString(), finishedAt: row.finishedAt?.toISOString() ?? null };
}

/** The organization's latest finished check (done), or null when none has finished. One indexed read. */
export async function latestBooksCheck(db: Db, organizationId: string): Promise<BooksCheckView | null> {
  const row = await db.booksCheck.findFirst({ where: { organizationId, status: "done" }, orderBy: [{ startedAt: "desc" }, { id: "desc" }], select: VIEW_SELECT });
  return row ? viewOf(row) : null;
}

/**
 * When the latest check that finished or is running started, or null: what the daily run's due check
 * reads. A failed one does not count (the database went away mid-run: the next look tries again).
 */
export async function lastBooksCheckStart(db: Db): Promise<Date | null> {
  const row = await db.booksCheck.findFirst({ where: { status: { in: ["done", "running"] } }, orderBy: [{ startedAt: "desc" }, { id: "desc" }], select: { startedAt: true } });
  return row?.startedAt ?? null;
}

/** The organization's latest finished check with its report (JSON, as lib/verification wrote it), or null. */
export async function latestBooksCheckReport(db: Db, organizationId: string): Promise<{ check: BooksCheckView; report: string } | null> {
  const row = await db.booksCheck.findFirst({ where: { organizationId, status: "done" }, orderBy: [{ startedAt: "desc" }, { id: "desc" }], select: { ...VIEW_SELECT, report: true } });
  if (!row) return null;
  const { report, ...check } = row;
  return { check: viewOf(check), report };
}
