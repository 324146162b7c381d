import type { DecisionOutcome } from "@/lib/core/effect";
import type { Db } from "@/lib/db/client";
import { driverOf, type SqlSession, type SqlValue } from "@/lib/db/driver";
import { newRowId } from "@/lib/db/row-id";
import { logger } from "@/lib/log/logger";
import { errorMessage } from "@/lib/log/error-message";
import { reasonColumns, type ReasonRef } from "@/lib/reasons/reason-codes";

export type { DecisionOutcome };

/** One decision, as stored: never a secret, a signature header or a raw body. */
export interface DecisionInput {
  /**
   * The organization whose endpoint took the delivery (its members see the row); the default
   * organization for a request that named no endpoint an organization owns.
   */
  organizationId: string;
  provider: string;
  endpoint: string;
  eventId?: string | null;
  verified: boolean;
  eventType?: string | null;
  orderId?: string | null;
  outcome: DecisionOutcome;
  httpStatus?: number | null;
  reason: string;
  /** The reason's code and parameters (lib/reasons/reason-codes.ts); pages render it in the reader's locale. */
  reasonRef?: ReasonRef | null;
  secretLabel?: string | null;
  diagnosis?: string | null;
  /** The diagnosis's code and parameters, rendered in the reader's locale like the reason. */
  diagnosisRef?: ReasonRef | null;
  source?: DecisionSource;
}

/** Who wrote a decision: the webhook receiver, the inbox worker, a dashboard retry, a CLI, an applied replay, a backfill or the gap check (events fetched over the provider's API). */
export const DECISION_SOURCES = ["receiver", "worker", "retry", "cli", "replay", "backfill", "gap-check"] as const;
export type DecisionSource = (typeof DECISION_SOURCES)[number];

/** True when `source` (a stored row's) is one of {@link DECISION_SOURCES}. */
export function isDecisionSource(source: string): source is DecisionSource {
  return (DECISION_SOURCES as readonly string[]).includes(source);
}

/**
 * Bounds free text so a hostile body cannot blow up a decision row, and replaces NUL characters (which
 * PostgreSQL's text columns refuse, so the row would be lost) with U+FFFD: an unverified event id or a
 * reason quoting one may carry anything.
 */
function clip(text: string | null | undefined, max: number): string | null {
  if (text === null || text === undefined) return null;
  const clean = text.replaceAll("\u0000", "\ufffd");
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/** A diagnosis's two columns (both null without one). */
function diagnosisColumns(ref: ReasonRef | null | undefined): { diagnosisCode: string | null; diagnosisParams: string | null } {
  const { reasonCode, reasonParams } = reasonColumns(ref);
  return { diagnosisCode: reasonCode, diagnosisParams: reasonParams };
}

/** The decision row as stored: free text clipped, NUL replaced, defaults filled (no id or time: the database sets them). */
export type DecisionRow = ReturnType<typeof decisionRow>;

/** Builds the row {@link recordDecision} stores for `input` (exported for batched writers: one createMany). */
export function decisionRow(input: DecisionInput) {
  return {
    provider: input.provider,
    endpoint: clip(input.endpoint, 100) ?? "",
    eventId: clip(input.eventId, 255),
    verified: input.verified,
    eventType: clip(input.eventType, 100),
    orderId: clip(input.orderId, 255),
    outcome: input.outcome,
    httpStatus: input.httpStatus ?? null,
    reason: clip(input.reason, 500) ?? "",
    ...reasonColumns(input.reasonRef),
    secretLabel: input.secretLabel ?? null,
    diagnosis: clip(input.diagnosis, 500),
    ...diagnosisColumns(input.diagnosisRef),
    source: input.source ?? "receiver",
    // Last: a log line reads provider, endpoint and event first.
    organizationId: input.organizationId,
  };
}

/** Logs a stored decision row (pino, secrets redacted by the logger; a row never holds one anyway). */
export function logDecision(row: DecisionRow): void {
  logger.info({ decision: row }, "decision");
}

/**
 * Writes one decision row on its own (one statement, autocommit) and logs it. Throws whatever the
 * database throws; use {@link recordDecisionSafely} where the answer is already decided.
 */
export async function recordDecision(db: Db, input: DecisionInput, at = new Date()): Promise<void> {
  const row = decisionRow(input);
  await driverOf(db).transaction((session) => insertDecisions(session, [row], at));
  logDecision(row);
}

/**
 * Writes decision rows in the caller's driver session (lib/db/driver.ts), all in one multi-row INSERT;
 * the caller logs them once committed ({@link logDecision}). Each row is stamped with its own `at` when
 * it has one (a batch of deliveries that arrived at different times), else with `at`; ids are ULIDs of
 * that time, in write order. Throws the database's errors.
 */
export async function insertDecisions(session: SqlSession, rows: readonly (DecisionRow & { at?: Date })[], at: Date): Promise<void> {
  if (rows.length === 0) return;
  const columns = ["id", "at", ...DECISION_ROW_COLUMNS] as const;
  const values: SqlValue[] = [];
  for (const row of rows) values.push(newRowId(row.at ?? at), row.at ?? at, ...DECISION_ROW_COLUMNS.map((column) => row[column]));
  const placeholders = rows.map(() => `(${columns.map(() => "?").join(", ")})`).join(", ");
  await session.run(`INSERT INTO "Decision" (${columns.map((column) => `"${column}"`).join(", ")}) VALUES ${placeholders}`, values);
}

/** The columns of a {@link DecisionRow}, in the order {@link insertDecisions} and the inbox group commit write them. */
export const DECISION_ROW_COLUMNS = ["provider", "endpoint", "eventId", "verified", "eventType", "orderId", "outcome", "httpStatus", "reason", "reasonCode", "reasonParams", "secretLabel", "diagnosis", "diagnosisCode", "diagnosisParams", "source", "organizationId"] as const satisfies readonly (keyof DecisionRow)[];

/** Like {@link recordDecision}, but a database failure is logged instead of thrown (the answer is already decided). */
export async function recordDecisionSafely(client: Db, input: DecisionInput): Promise<void> {
  try {
    await recordDecision(client, input);
  } catch (error) {
    logger.error({ err: errorMessage(error), decision: { ...input } }, "decision not stored");
  }
}

/**
 * Links an event's earlier decision rows that named no order (the receiver's `accepted 200` when the
 * payload does not name the order: a Checkout session found by its id, a charge.refunded; the worker's
 * parked attempts) to the order the worker resolved, so the order's timeline shows that the provider got
 * its answer. Only verified rows of this endpoint: an unsigned body reusing the event id stays unlinked.
 * Returns how many rows it linked. One seek on the (eventId, at) index.
 */
export async function linkDecisionsToOrder(session: SqlSession, event: { organizationId: string; endpoint: string; eventId: string }, orderId: string): Promise<number> {
  return session.run(`UPDATE "Decision" SET "orderId" = ? WHERE "eventId" = ? AND "endpoint" = ? AND "organizationId" = ? AND "verified" = ? AND "orderId" IS NULL`, [orderId, event.eventId, event.endpoint, event.organizationId, true]);
}

/**
 * Deletes these decision rows (retention: lib/retention/purge-decisions.ts chooses them by age) in one
 * statement. Returns how many were deleted.
 */
export async function deleteDecisions(db: Db, ids: readonly string[]): Promise<{ count: number }> {
  if (ids.length === 0) return { count: 0 };
  const count = await driverOf(db).transaction((session) => session.run(`DELETE FROM "Decision" WHERE "id" IN (${ids.map(() => "?").join(", ")})`, ids));
  return { count };
}
